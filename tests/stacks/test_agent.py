"""A tenant with `agent:` (globex in the example config) synthesizes its agent, action group, alias and grants."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _one(synthesized, resource_type: str) -> dict:
    found = synthesized.resources("dev-globex", resource_type)
    return next(iter(found.values()))["Properties"] if len(found) == 1 else pytest.fail(f"{resource_type}: {found}")


def _logical_id(synthesized, resource_type: str, prefix: str) -> str:
    return next(k for k in synthesized.resources("dev-globex", resource_type) if k.startswith(prefix))


def test_agent_has_model_instruction_ttl_guardrail_autoprepare_and_one_function_action_group(synthesized):
    agent = _one(synthesized, "AWS::Bedrock::Agent")
    assert agent["FoundationModel"].endswith("inference-profile/us.amazon.nova-lite-v1:0")
    assert agent["IdleSessionTTLInSeconds"] == 900 and agent["AutoPrepare"] is True
    assert len(agent["Instruction"]) >= 40
    assert set(agent["GuardrailConfiguration"]) == {"GuardrailIdentifier", "GuardrailVersion"}
    (group,) = agent["ActionGroups"]
    (function,) = group["FunctionSchema"]["Functions"]
    assert function["Name"] == "search_knowledge"
    assert function["Parameters"]["question"]["Required"] is True
    assert function["Parameters"]["knowledge_bases"]["Required"] is False
    assert group["ActionGroupExecutor"]["Lambda"]["Fn::GetAtt"][0].startswith("AgentFunction")
    assert _one(synthesized, "AWS::Bedrock::AgentAlias")["AgentId"]["Fn::GetAtt"][1] == "AgentId"
    assert "dev-acme" in synthesized.templates
    assert not synthesized.resources("dev-acme", "AWS::Bedrock::Agent")  # opt-in


def test_agent_role_trusts_bedrock_for_this_account_only_and_invokes_only_its_model(synthesized):
    roles = synthesized.resources("dev-globex", "AWS::IAM::Role")
    role = roles[_logical_id(synthesized, "AWS::IAM::Role", "AgentAgentRole")]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert trust["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
    assert trust["Condition"]["ArnLike"]["aws:SourceArn"].startswith("arn:aws:bedrock:us-west-2:123456789012:agent/")
    statements = role["Policies"][0]["PolicyDocument"]["Statement"]
    actions = {a for s in statements for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert actions == {"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream", "bedrock:ApplyGuardrail"}
    through = next(s for s in statements if s["Sid"].endswith("ThroughProfile"))
    assert "bedrock:InferenceProfileArn" in through["Condition"]["StringEquals"]


def test_function_may_be_invoked_by_bedrock_for_this_agent_only(synthesized):
    permissions = synthesized.resources("dev-globex", "AWS::Lambda::Permission")
    agent_permission = [
        p["Properties"] for p in permissions.values() if p["Properties"]["Principal"] == "bedrock.amazonaws.com"
    ]
    (permission,) = agent_permission
    assert permission["SourceAccount"] == "123456789012"
    assert permission["SourceArn"]["Fn::GetAtt"][1] == "AgentArn"


def test_invokers_get_invoke_agent_on_the_alias_only_trusted_same_account_roles_attached(synthesized):
    policies = synthesized.resources("dev-globex", "AWS::IAM::ManagedPolicy")
    policy = policies[_logical_id(synthesized, "AWS::IAM::ManagedPolicy", "AgentInvokePolicy")]["Properties"]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == "bedrock:InvokeAgent"
    assert statement["Resource"]["Fn::GetAtt"][1] == "AgentAliasArn"
    assert policy["Roles"] == ["globex-portal"]  # the trusted invoker; globex-batch is another account


def test_knowledge_base_policies_admit_the_action_function_role(synthesized):
    function_role = _logical_id(synthesized, "AWS::IAM::Role", "AgentFunctionRole")
    for policy in synthesized.resources("dev-globex", "AWS::Bedrock::KnowledgeBasePolicy").values():
        assert function_role in json.dumps(policy["Properties"]["PolicyDocument"])


def test_agent_ids_are_published_and_the_function_is_alarmed(synthesized):
    parameters = [p["Properties"]["Name"] for p in synthesized.resources("dev-globex", "AWS::SSM::Parameter").values()]
    assert "/akb/dev/globex/agent/id" in parameters and "/akb/dev/globex/agent/alias-id" in parameters
    alarms = synthesized.resources("dev-globex", "AWS::CloudWatch::Alarm")
    agent_alarms = {a["Properties"]["MetricName"] for k, a in alarms.items() if k.startswith("AgentObservability")}
    assert agent_alarms == {"Errors", "Throttles", "Duration"}
    # They page through the tenant's composite, like every tenant alarm, not on their own.
    (composite,) = synthesized.resources("dev-globex", "AWS::CloudWatch::CompositeAlarm").values()
    rule = json.dumps(composite["Properties"]["AlarmRule"])
    for key, alarm in alarms.items():
        if key.startswith("AgentObservability"):
            assert key in rule and not alarm["Properties"].get("AlarmActions")
    assert any(
        "-agent" in json.dumps(d["Properties"])
        for d in synthesized.resources("dev-globex", "AWS::CloudWatch::Dashboard").values()
    )
