"""The MCP gateway's IAM builders: scoped statements, a trust pinned to this account's gateways, never public."""

from __future__ import annotations

import pytest

from policies.endpoint_role import EndpointRoleInputs
from policies.gateway_role import (
    GATEWAY_WILDCARD_REASONS,
    GatewayRoleInputs,
    gateway_invoker_policy,
    gateway_resource_policy,
    gateway_role_policy,
    gateway_trust_policy,
    interceptor_role_policy,
)

KB = "arn:aws:bedrock:us-west-2:111122223333:knowledge-base/KB1"
FN = "arn:aws:lambda:us-west-2:111122223333:function:interceptor"
GW = "arn:aws:bedrock-agentcore:us-west-2:111122223333:gateway/akb-dev-acme-abcdefghij"


def _inputs(**models) -> GatewayRoleInputs:
    return GatewayRoleInputs([KB], FN, EndpointRoleInputs(knowledge_base_arns=[KB], log_group_arn="-", **models))


def test_statements_follow_the_agentcore_service_role_page():
    statements = {s["Sid"]: s for s in gateway_role_policy(_inputs())["Statement"]}
    validate = statements["ValidateTheTenantsKnowledgeBases"]
    assert (validate["Action"], validate["Resource"]) == ("bedrock:GetKnowledgeBase", KB)
    assert statements["RetrieveFromTheTenantsKnowledgeBasesOnly"]["Resource"] == KB
    # Full-document expansion runs as this role and needs both actions (fact 8).
    assert statements["RetrieveFromTheTenantsKnowledgeBasesOnly"]["Action"] == [
        "bedrock:GetDocumentContent",
        "bedrock:Retrieve",
    ]
    assert statements["AgenticRetrieveStreamCannotBeScopedToAResource"]["Resource"] == "*"
    assert statements["InvokeTheTenantsInterceptorOnly"] == {
        "Sid": "InvokeTheTenantsInterceptorOnly", "Effect": "Allow", "Action": "lambda:InvokeFunction", "Resource": FN,
    }  # fmt: skip
    metrics = statements["PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces"]
    assert metrics["Condition"] == {"StringEquals": {"cloudwatch:namespace": ["AWS/Bedrock/KnowledgeBases"]}}
    assert "ApplyTheTenantsGuardrail" not in statements


def test_every_wildcard_statement_has_a_written_reason():
    guardrail = "arn:aws:bedrock:us-west-2:111122223333:guardrail/g1"
    policy = gateway_role_policy(_inputs(guardrail_arn=guardrail, planner_type="MANAGED"))
    for statement in policy["Statement"]:
        if "*" in str(statement["Resource"]):
            assert len(GATEWAY_WILDCARD_REASONS[statement["Sid"]]) > 40
    assert {s["Sid"]: s["Resource"] for s in policy["Statement"]}["ApplyTheTenantsGuardrail"] == guardrail
    log_policy = interceptor_role_policy("arn:aws:logs:us-west-2:111122223333:log-group:x")
    assert GATEWAY_WILDCARD_REASONS[log_policy["Statement"][0]["Sid"]]


def test_trust_is_agentcore_for_this_accounts_gateways_in_this_region():
    (statement,) = gateway_trust_policy("aws", "us-west-2", "111122223333")["Statement"]
    assert statement["Principal"] == {"Service": "bedrock-agentcore.amazonaws.com"}
    assert statement["Condition"] == {
        "StringEquals": {"aws:SourceAccount": "111122223333"},
        "ArnLike": {"aws:SourceArn": "arn:aws:bedrock-agentcore:us-west-2:111122223333:gateway/*"},
    }


def test_callers_get_invoke_gateway_on_this_gateway_only_and_it_is_never_public():
    (statement,) = gateway_invoker_policy(GW)["Statement"]
    assert (statement["Action"], statement["Resource"]) == ("bedrock-agentcore:InvokeGateway", GW)
    (allowed,) = gateway_resource_policy(GW, ["arn:aws:iam::444455556666:role/app"])["Statement"]
    assert allowed["Principal"] == {"AWS": ["arn:aws:iam::444455556666:role/app"]}
    for bad in (["*"], [], ["444455556666"]):
        with pytest.raises(ValueError, match="never public"):
            gateway_resource_policy(GW, bad)


def test_a_role_without_knowledge_bases_is_refused():
    with pytest.raises(ValueError, match="at least one knowledge base"):
        gateway_role_policy(GatewayRoleInputs([], FN, EndpointRoleInputs(knowledge_base_arns=[], log_group_arn="-")))
