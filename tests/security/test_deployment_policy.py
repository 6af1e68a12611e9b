"""The CloudFormation execution policy for `cdk bootstrap` comes from what is deployed: every resource type
of the example synth, each with the handler permissions of its CloudFormation schema, and nothing else.

The region limit is checked by evaluating the generated documents as IAM does (tests/iam_simulation.py):
the example `dev` environment deploys to us-west-2, and IAM requests carry aws:RequestedRegion = us-east-1.
"""

from __future__ import annotations

import copy
import json

import pytest
from moto.iam.access_control import IAMPolicy, PermissionResult

from security.deployment_policy import (
    execution_policy,
    handler_permissions,
    is_global_service_action,
    resource_types,
    split_policy,
)
from tests.iam_simulation import ALLOWED, IMPLICIT_DENY, Request, evaluate

ACCOUNT = "111122223333"
DEPLOYER = f"arn:aws:iam::{ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role"


@pytest.fixture(scope="module")
def policy(synthesized):
    types = resource_types(synthesized.templates.values())
    return types, execution_policy(types, synthesized.project.environment.region)


def _request(action: str, resource: str, region: str) -> Request:
    return Request(DEPLOYER, action, resource, ACCOUNT, {"aws:RequestedRegion": region})


# (request, decision) in the example's region us-west-2; IAM requests name us-east-1 as AWS sets it.
DEPLOY_REQUESTS = [
    (_request("iam:CreateRole", f"arn:aws:iam::{ACCOUNT}:role/dev-acme-endpoint", "us-east-1"), ALLOWED),
    (_request("iam:PutRolePolicy", f"arn:aws:iam::{ACCOUNT}:role/dev-acme-endpoint", "us-east-1"), ALLOWED),
    (_request("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/dev-acme-endpoint", "us-east-1"), ALLOWED),
    (_request("lambda:CreateFunction", f"arn:aws:lambda:us-west-2:{ACCOUNT}:function:f", "us-west-2"), ALLOWED),
    (_request("logs:PutResourcePolicy", "*", "us-west-2"), ALLOWED),
    (_request("logs:DescribeResourcePolicies", "*", "us-west-2"), ALLOWED),
    (_request("logs:DescribeLogGroups", "*", "us-west-2"), ALLOWED),
    # Regional services stay held to the environment's region.
    (_request("lambda:CreateFunction", f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:f", "eu-west-1"), IMPLICIT_DENY),
    (_request("bedrock:CreateKnowledgeBase", "*", "us-east-1"), IMPLICIT_DENY),
]


def test_a_region_outside_us_east_1_can_create_roles_and_nothing_regional_elsewhere(policy):
    _, document = policy
    requests = [request for request, _ in DEPLOY_REQUESTS]
    assert evaluate(requests, split_policy(document)) == [decision for _, decision in DEPLOY_REQUESTS]


def test_the_region_condition_on_iam_is_what_refused_every_role(policy):
    """The fault the exemption fixes: with the region condition on IAM's statements too, no role is created."""
    _, document = policy
    faulty = copy.deepcopy(document)
    for statement in faulty["Statement"]:
        statement["Condition"] = {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
    create_role = DEPLOY_REQUESTS[0][0]
    assert evaluate([create_role], split_policy(faulty)) == [IMPLICIT_DENY]


def test_mots_evaluator_agrees_on_the_global_service_exemption(policy):
    """A second opinion: the documents use StringEquals only, the one operator moto's evaluator knows."""
    _, document = policy
    decisions = {}
    for request, _ in DEPLOY_REQUESTS[:4] + DEPLOY_REQUESTS[-2:]:
        results = [
            IAMPolicy(json.dumps(part)).is_action_permitted(request.action, request.resource, None, request.context)
            for part in split_policy(document)
        ]
        decisions[request.action, request.context["aws:RequestedRegion"]] = PermissionResult.PERMITTED in results
    assert decisions == {
        ("iam:CreateRole", "us-east-1"): True,
        ("iam:PutRolePolicy", "us-east-1"): True,
        ("iam:PassRole", "us-east-1"): True,
        ("lambda:CreateFunction", "us-west-2"): True,
        ("lambda:CreateFunction", "eu-west-1"): False,
        ("bedrock:CreateKnowledgeBase", "us-east-1"): False,
    }


def test_every_deployed_resource_type_has_its_statement(policy):
    types, document = policy
    sids = {statement["Sid"] for statement in document["Statement"]}
    for resource_type in types:
        sid = resource_type.replace("AWS::", "").replace("::", "")
        assert {sid, f"{sid}GlobalService"} & sids, resource_type
    assert {"BedrockKnowledgeBase", "LogsDeliverySource", "LogsDelivery", "LambdaFunction"} <= sids
    assert {"IAMRoleGlobalService", "LambdaFunctionGlobalService"} <= sids


def test_no_wildcard_action_and_only_global_service_actions_escape_the_region(policy):
    _, document = policy
    for statement in document["Statement"]:
        assert all(action != "*" and not action.endswith(":*") for action in statement["Action"]), statement["Sid"]
        if statement["Sid"].endswith("GlobalService"):
            assert "Condition" not in statement
            assert all(is_global_service_action(action) for action in statement["Action"]), statement["Sid"]
        elif statement["Sid"] != "ReadBootstrapVersion":
            assert statement["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-west-2"}}
            assert not any(is_global_service_action(action) for action in statement["Action"]), statement["Sid"]


def test_log_delivery_needs_bedrocks_vended_log_permission_and_may_write_the_log_group_policy(policy):
    _, document = policy
    [source] = [s for s in document["Statement"] if s["Sid"] == "LogsDeliverySource"]
    assert "bedrock:AllowVendedLogDeliveryForResource" in source["Action"]
    assert "logs:PutDeliverySource" in source["Action"]
    [delivery] = [s for s in document["Statement"] if s["Sid"] == "LogsDelivery"]
    assert {"logs:PutResourcePolicy", "logs:DescribeResourcePolicies", "logs:DescribeLogGroups"} <= set(
        delivery["Action"]
    )


def test_the_policy_is_split_into_documents_that_fit_iams_managed_policy_size(policy):
    _, document = policy
    parts = split_policy(document)
    assert len(parts) > 1
    assert all(len(json.dumps(part, separators=(",", ":"))) <= 6144 for part in parts)
    assert [s for part in parts for s in part["Statement"]] == document["Statement"]


def test_a_schema_entry_that_is_no_iam_action_is_left_out():
    assert "s3:REST.PUT.OBJECT" not in handler_permissions("AWS::Logs::LogGroup", "us-west-2")
    assert "logs:CreateLogGroup" in handler_permissions("AWS::Logs::LogGroup", "us-west-2")


def test_an_unknown_resource_type_is_refused():
    with pytest.raises(ValueError, match="has no schema"):
        handler_permissions("AWS::Nope::Thing", "us-west-2")
