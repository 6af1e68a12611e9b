"""The CloudFormation execution policy for `cdk bootstrap` comes from what is deployed: every resource type
of the example synth, each with the handler permissions of its CloudFormation schema, and nothing else."""

from __future__ import annotations

import json

import pytest

from security.deployment_policy import execution_policy, handler_permissions, resource_types, split_policy


@pytest.fixture(scope="module")
def policy(synthesized):
    types = resource_types(synthesized.templates.values())
    return types, execution_policy(types, synthesized.project.environment.region)


def test_every_deployed_resource_type_has_its_statement(policy):
    types, document = policy
    sids = {statement["Sid"] for statement in document["Statement"]}
    assert {t.replace("AWS::", "").replace("::", "") for t in types} <= sids
    assert {"BedrockKnowledgeBase", "LogsDeliverySource", "LogsDelivery", "LambdaFunction"} <= sids


def test_no_wildcard_action_and_every_statement_is_held_to_the_region(policy):
    _, document = policy
    for statement in document["Statement"]:
        assert all(action != "*" and not action.endswith(":*") for action in statement["Action"]), statement["Sid"]
        if statement["Sid"] != "ReadBootstrapVersion":
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}


def test_log_delivery_needs_bedrocks_vended_log_permission(policy):
    _, document = policy
    [source] = [s for s in document["Statement"] if s["Sid"] == "LogsDeliverySource"]
    assert "bedrock:AllowVendedLogDeliveryForResource" in source["Action"]
    assert "logs:PutDeliverySource" in source["Action"]


def test_the_policy_is_split_into_documents_that_fit_iams_managed_policy_size(policy):
    _, document = policy
    parts = split_policy(document)
    assert len(parts) > 1
    assert all(len(json.dumps(part, separators=(",", ":"))) <= 6144 for part in parts)
    assert [s for part in parts for s in part["Statement"]] == document["Statement"]


def test_an_unknown_resource_type_is_refused():
    with pytest.raises(ValueError, match="has no schema"):
        handler_permissions("AWS::Nope::Thing", "us-west-2")
