"""Every identity policy in the dev templates: known owner, allowed actions only, `*` only where required."""

from __future__ import annotations

import json
import re

import pytest

from contract.resource_names import tenant_stack_name
from policies.endpoint_role import WILDCARD_REASONS
from policies.gateway_role import GATEWAY_WILDCARD_REASONS
from tests.stacks.templates import as_list, policy_documents, render, statements

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

ENDPOINT_ACTIONS = {
    "bedrock:AgenticRetrieveStream",
    "bedrock:Retrieve",
    "bedrock:GetDocumentContent",
    "bedrock:InvokeModelWithResponseStream",
    "bedrock:InvokeModel",
    "bedrock:Rerank",
    "bedrock:GetGuardrail",
    "bedrock:ApplyGuardrail",
    "cloudwatch:PutMetricData",
    "logs:CreateLogStream",
    "logs:PutLogEvents",
    "kms:Decrypt",
    # The result cache (policies/cache_access.py): its own items of its table, the content versions of
    # its knowledge bases, and the access re-check on a hit.
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
    "bedrock:ListDataSources",
    "bedrock:ListIngestionJobs",
    "bedrock:CheckIngestedDocumentAcl",
    # Conversations (policies/memory_access.py): sessions and long-term records of the tenant's memory only.
    "bedrock-agentcore:ListEvents",
    "bedrock-agentcore:CreateEvent",
    "bedrock-agentcore:RetrieveMemoryRecords",
}
KNOWLEDGE_BASE_ACTIONS = {
    "s3:ListBucket",
    "s3:GetObject",
    "cloudwatch:PutMetricData",
    "secretsmanager:GetSecretValue",
    "kms:Decrypt",
    "kms:GenerateDataKey",
    "bedrock:InvokeModel",
}
INVOKER_ACTIONS = {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction"}
# The MCP gateway's execution role: the endpoint's model/guardrail actions for the same call, plus what
# AgentCore's connector needs (GetKnowledgeBase) and invoking its interceptor; no logs. GetDocumentContent
# with Retrieve: full-document expansion needs both (docs/facts-and-decisions.md, Issue 25, fact 8).
GATEWAY_ACTIONS = (ENDPOINT_ACTIONS - {"logs:CreateLogStream", "logs:PutLogEvents"}) | {
    "bedrock:GetKnowledgeBase",
    "lambda:InvokeFunction",
}
# The Bedrock agent (tenants with `agent:`; policies/agent_role.py): its service role calls its own
# model and applies the guardrail; its invokers may only InvokeAgent on the alias.
AGENT_SERVICE_ACTIONS = {"bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream", "bedrock:ApplyGuardrail"}
AGENT_INVOKER_ACTIONS = {"bedrock:InvokeAgent"}
# CDK's own helper roles, allowed by name. cdk-nag cannot see them (CDK synthesizes them as raw
# CfnResources), so each must carry here what an acknowledgement would: a reason, the AWS page that
# documents its permissions, and the AWS managed policies it may hold (docs/security.md).
CDK_HELPER_ROLES: dict[str, dict] = {
    "CustomS3AutoDeleteObjectsCustomResourceProviderRole": {
        "reason": "auto_delete_objects on the document and access-log buckets, set only when removal_policy is "
        "destroy: a CDK custom resource empties the buckets on `cdk destroy`. Its identity policy is only "
        "AWSLambdaBasicExecutionRole (write CloudWatch Logs); the delete rights come from each bucket's own "
        "policy, scoped to that bucket.",
        "doc": "https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html",
        "managed_policies": {"AWSLambdaBasicExecutionRole"},
    },
}


def _kind(logical_id: str) -> str:
    # The agent's action function has the endpoint's policy (same builder, its own log group, no cache).
    if logical_id.startswith(("EndpointRole", "AgentFunctionRole")):
        return "endpoint"
    if logical_id.startswith("AgentAgentRole"):
        return "agent-service"
    if logical_id.startswith("AgentInvokePolicy"):
        return "agent-invoker"
    if logical_id.startswith("EndpointInvokePolicy"):
        return "invoker"
    if logical_id.startswith("KnowledgeBase") and "Role" in logical_id:
        return "knowledge-base"
    if logical_id.startswith("McpGatewayGatewayRole"):
        return "gateway"
    if logical_id.startswith("McpGatewayInterceptorRole"):
        return "gateway-interceptor"
    if any(logical_id.startswith(helper) for helper in CDK_HELPER_ROLES):
        return "cdk-helper"
    raise AssertionError(f"{logical_id}: an IAM policy nobody reviewed; classify it in this test with a reason")


def _tenant_templates(synthesized):
    return [
        (name, synthesized.template(tenant_stack_name(synthesized.project.env_name, name)))
        for name in synthesized.project.tenants
    ]


def _wildcard_actions_allowed(kind: str, project) -> set[str]:
    if kind in ("endpoint", "gateway"):
        allowed = {"bedrock:AgenticRetrieveStream", "cloudwatch:PutMetricData"}
        if kind == "endpoint":
            # CheckIngestedDocumentAcl has no resource type (Service Authorization Reference).
            allowed.add("bedrock:CheckIngestedDocumentAcl")
        if project.environment.planner.type == "MANAGED":
            allowed.add("bedrock:InvokeModelWithResponseStream")
        if project.environment.reranking.type == "CUSTOM":
            allowed.add("bedrock:Rerank")
        return allowed
    if kind == "knowledge-base":
        return {"cloudwatch:PutMetricData"}
    return set()


ALLOWED = {
    "endpoint": ENDPOINT_ACTIONS,
    "knowledge-base": KNOWLEDGE_BASE_ACTIONS,
    "invoker": INVOKER_ACTIONS,
    "gateway": GATEWAY_ACTIONS,
    "gateway-interceptor": {"logs:CreateLogStream", "logs:PutLogEvents"},
    "agent-service": AGENT_SERVICE_ACTIONS,
    "agent-invoker": AGENT_INVOKER_ACTIONS,
    "cdk-helper": set(),
}


def test_every_identity_policy_has_a_known_owner_and_only_allowed_actions(synthesized):
    checked = 0
    for tenant, template in _tenant_templates(synthesized):
        for logical_id, _, document in policy_documents(template):
            kind = _kind(logical_id)
            for statement in statements(document):
                actions = set(as_list(statement["Action"]))
                assert actions <= ALLOWED[kind], f"{tenant}/{logical_id} ({kind}): {actions - ALLOWED[kind]}"
                assert statement["Effect"] == "Allow"
                checked += 1
    assert checked >= 20


def test_no_action_wildcards_anywhere(synthesized):
    for name, template in synthesized.templates.items():
        for logical_id, _, document in policy_documents(template):
            for statement in statements(document):
                assert not [a for a in as_list(statement["Action"]) if "*" in a], f"{name}/{logical_id}"


def test_star_resource_only_with_actions_that_cannot_be_scoped(synthesized):
    stars = 0
    for tenant, template in _tenant_templates(synthesized):
        for logical_id, _, document in policy_documents(template):
            kind = _kind(logical_id)
            for statement in statements(document):
                if "*" in as_list(statement["Resource"]):
                    stars += 1
                    actions = set(as_list(statement["Action"]))
                    allowed = _wildcard_actions_allowed(kind, synthesized.project)
                    assert actions <= allowed, f"{tenant}/{logical_id}: {actions - allowed} on *"
                    if "cloudwatch:PutMetricData" in actions:
                        assert "cloudwatch:namespace" in json.dumps(statement.get("Condition", {}))
    assert stars >= 4  # per tenant: AgenticRetrieveStream, PutMetricData (endpoint and each KB role)


def test_partial_wildcards_in_the_endpoint_and_gateway_roles_are_the_documented_ones(synthesized):
    reasons = {
        "endpoint": WILDCARD_REASONS,
        "gateway": GATEWAY_WILDCARD_REASONS,
        "gateway-interceptor": GATEWAY_WILDCARD_REASONS,
    }
    for tenant, template in _tenant_templates(synthesized):
        for logical_id, _, document in policy_documents(template):
            if _kind(logical_id) not in reasons:
                continue
            for statement in statements(document):
                wildcards = [r for r in as_list(statement["Resource"]) if r != "*" and "*" in render(r)]
                if wildcards:
                    assert statement["Sid"] in reasons[_kind(logical_id)], f"{tenant}: {statement['Sid']} {wildcards}"
                    if "foundation-model" in json.dumps(wildcards):
                        assert "bedrock:InferenceProfileArn" in json.dumps(statement["Condition"])


def _helper_entry(logical_id: str) -> dict:
    (entry,) = [entry for helper, entry in CDK_HELPER_ROLES.items() if logical_id.startswith(helper)]
    return entry


def test_only_cdk_helper_roles_carry_aws_managed_policies_and_only_the_listed_ones(synthesized):
    for name, template in synthesized.templates.items():
        for logical_id, resource in template["Resources"].items():
            if resource["Type"] == "AWS::IAM::Role" and resource["Properties"].get("ManagedPolicyArns"):
                assert _kind(logical_id) == "cdk-helper", f"{name}/{logical_id}"
                attached = json.dumps(resource["Properties"]["ManagedPolicyArns"])
                names = set(re.findall(r"policy/(?:service-role/)?([A-Za-z0-9+=,.@_-]+)", attached))
                assert names == _helper_entry(logical_id)["managed_policies"], f"{name}/{logical_id}"


def test_every_exempted_cdk_helper_role_has_a_reason_and_an_aws_page(synthesized):
    present = {
        helper
        for template in synthesized.templates.values()
        for logical_id, resource in template["Resources"].items()
        for helper in CDK_HELPER_ROLES
        if resource["Type"] == "AWS::IAM::Role" and logical_id.startswith(helper)
    }
    assert present, "the dev example (removal_policy: destroy) has the auto-delete helper role"
    for helper, entry in CDK_HELPER_ROLES.items():
        assert set(entry) == {"reason", "doc", "managed_policies"}, helper
        assert len(entry["reason"].split()) >= 10, f"{helper}: write why CDK adds this role"
        assert entry["doc"].startswith("https://docs.aws.amazon.com/"), f"{helper}: cite the AWS page"


def test_endpoint_role_has_exactly_one_inline_policy_and_no_other_attachment(synthesized):
    for tenant, template in _tenant_templates(synthesized):
        roles = {k: v for k, v in template["Resources"].items() if k.startswith("EndpointRole")}
        assert len(roles) == 1, tenant
        ((role_id, role),) = roles.items()
        assert [p["PolicyName"] for p in role["Properties"]["Policies"]] == ["endpoint"]
        attached = [
            k
            for k, v in template["Resources"].items()
            if v["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy")
            and {"Ref": role_id} in v["Properties"].get("Roles", [])
        ]
        assert attached == [], f"{tenant}: CDK attached {attached} to the endpoint role"


def _acknowledgements(synthesized, stack_name: str) -> list[tuple[str, str, str]]:
    """(construct path, rule id, reason) of every cdk-nag acknowledgement recorded in the assembly."""
    metadata = json.loads((synthesized.outdir / f"{stack_name}.metadata.json").read_text())
    return [
        (path, rule, reason)
        for path, entries in metadata.items()
        for entry in entries
        if entry["type"] == "aws:cdk:acknowledged-rules"
        for rule, reason in entry["data"].items()
    ]


def test_cdk_nag_iam4_and_iam5_are_acknowledged_finding_by_finding_with_a_reason(synthesized):
    for tenant in synthesized.project.tenants:
        stack_name = tenant_stack_name(synthesized.project.env_name, tenant)
        iam = [
            (path, rule, reason)
            for path, rule, reason in _acknowledgements(synthesized, stack_name)
            if "-IAM4" in rule or "-IAM5" in rule
        ]
        for path, rule, reason in iam:
            assert rule.endswith("]") and "[" in rule, f"{path}: {rule} acknowledges the whole rule"
            assert len(reason) >= 40, f"{path}: {rule}: {reason!r}"
        endpoint = {rule for path, rule, _ in iam if path.endswith("/Endpoint/Role")}
        assert "AwsSolutions::AwsSolutions-IAM5[Resource::*]" in endpoint
        assert any(":log-group:" in rule for rule in endpoint)
    report = json.loads((synthesized.outdir / "validation-report.json").read_text())
    unacknowledged = [
        v["ruleName"]
        for plugin in report["pluginReports"]
        for v in plugin.get("violations", [])
        if "IAM4" in v["ruleName"] or "IAM5" in v["ruleName"]
    ]
    assert unacknowledged == []
