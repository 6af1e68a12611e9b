"""The synthesized AgentCore Memory of a tenant with `memory:` (acme), its id in the endpoint's
settings, and the role's statements on it; none of it for a tenant without (globex). cfn-lint and
cdk-nag run over the same synth in test_app.py."""

from __future__ import annotations

import json

import pytest

from cdk_constructs.agentcore_memory import memory_name
from contract.resource_names import tenant_stack_name
from tests.stacks.templates import as_list, referenced_ids

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _template(synthesized, tenant):
    return synthesized.template(tenant_stack_name(synthesized.project.env_name, tenant))


def _of_type(template, kind):
    return {key: value for key, value in template["Resources"].items() if value["Type"] == kind}


def _endpoint_statements(template):
    roles = [
        role
        for role in _of_type(template, "AWS::IAM::Role").values()
        if "lambda.amazonaws.com" in json.dumps(role["Properties"]["AssumeRolePolicyDocument"])
    ]
    return [
        s for role in roles for p in role["Properties"].get("Policies", []) for s in p["PolicyDocument"]["Statement"]
    ]


def test_a_tenant_with_memory_gets_one_memory_with_expiry_and_actor_scoped_strategies(synthesized):
    (memory,) = _of_type(_template(synthesized, "acme"), "AWS::BedrockAgentCore::Memory").values()
    props = memory["Properties"]
    assert props["Name"] == memory_name("dev", "acme") == "akb_dev_acme"
    assert props["EventExpiryDuration"] == 30
    assert props["MemoryStrategies"] == [
        {"SemanticMemoryStrategy": {"Name": "facts", "NamespaceTemplates": ["/actors/{actorId}/facts"]}}
    ]


def test_the_endpoint_gets_the_memory_id_and_only_session_and_record_actions_on_that_memory(synthesized):
    template = _template(synthesized, "acme")
    (memory_id,) = _of_type(template, "AWS::BedrockAgentCore::Memory")
    settings = [
        f["Properties"]["Environment"]["Variables"]["AKB_TENANT_SETTINGS"]
        for f in _of_type(template, "AWS::Lambda::Function").values()
        if "AKB_TENANT_SETTINGS" in f["Properties"].get("Environment", {}).get("Variables", {})
    ]
    assert memory_id in referenced_ids(settings)  # the MemoryId attribute, joined into the settings JSON
    statements = {s["Sid"]: s for s in _endpoint_statements(template)}
    memory_sids = {sid for sid, s in statements.items() if "bedrock-agentcore" in json.dumps(s["Action"])}
    assert memory_sids == {
        "RestoreSessionsOfTheTenantsMemory",
        "WriteTurnsBackToTheTenantsMemory",
        "ReadLongTermRecordsOfTheTenantsMemory",
    }
    for sid in memory_sids:
        resources = as_list(statements[sid]["Resource"])
        assert resources == [{"Fn::GetAtt": [memory_id, "MemoryArn"]}], sid
    actions = sorted(a for sid in memory_sids for a in as_list(statements[sid]["Action"]))
    assert actions == [
        "bedrock-agentcore:CreateEvent",
        "bedrock-agentcore:ListEvents",
        "bedrock-agentcore:RetrieveMemoryRecords",
    ]


def test_a_tenant_without_memory_has_no_memory_and_no_memory_permission(synthesized):
    template = _template(synthesized, "globex")
    assert not _of_type(template, "AWS::BedrockAgentCore::Memory")
    # globex has an MCP gateway (bedrock-agentcore:InvokeGateway for its callers) but no memory actions.
    text = json.dumps(template)
    for action in ("ListEvents", "CreateEvent", "RetrieveMemoryRecords", "GetEvent", "ListSessions"):
        assert f"bedrock-agentcore:{action}" not in text
