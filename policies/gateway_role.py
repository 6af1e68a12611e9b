"""IAM of a tenant's MCP gateway: its execution role, its trust, its interceptor's role, and its callers.

The gateway execution role is what AgentCore assumes to call the managed-knowledge-base connector
(`GATEWAY_IAM_ROLE`, the only credential type connector targets take). Its actions follow the
AgentCore developer guide ("Configure the Gateway Service Role", gateway-add-target-api-target-config)
and the agentic-retrieval page of the Bedrock user guide (docs/facts-and-decisions.md, MCP gateway):
GetKnowledgeBase, Retrieve and GetDocumentContent on the tenant's knowledge bases only (the planner's
full-document expansion "requires both bedrock:Retrieve and bedrock:GetDocumentContent", Bedrock user
guide kb-test-get-document-content, and runs with this role's credentials), AgenticRetrieveStream on `*`
(it has no resource to scope to; the knowledge bases it can reach are bounded by Retrieve), the
planner/reranker/guardrail statements the endpoint's role has for the same call, and
lambda:InvokeFunction on the tenant's interceptor function only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from policies.document import PolicyDocument, Statement, allow, document
from policies.endpoint_role import METRIC_NAMESPACES, WILDCARD_REASONS, EndpointRoleInputs, model_statements_for

AGENTCORE_SERVICE = "bedrock-agentcore.amazonaws.com"
_GATEWAY_ROLE_PAGE = (
    "https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/gateway-add-target-api-target-config.html"
)
GATEWAY_WILDCARD_REASONS: dict[str, str] = {
    **WILDCARD_REASONS,
    "AgenticRetrieveStreamCannotBeScopedToAResource": (
        "bedrock:AgenticRetrieveStream is not scoped to a managed knowledge base resource, so it is granted "
        f"on * ({_GATEWAY_ROLE_PAGE}); the knowledge bases it reaches are bounded by the Retrieve statement"
    ),
    "WriteTheInterceptorsOwnLogGroup": WILDCARD_REASONS["WriteTheEndpointsOwnLogGroup"],
}


@dataclass(frozen=True)
class GatewayRoleInputs:
    """Deployed ARNs (tokens or placeholders) and the endpoint-role inputs for the model statements."""

    knowledge_base_arns: Sequence[str]
    interceptor_function_arn: str
    models: EndpointRoleInputs  # planner, reranker, guardrail, KMS keys: as for the endpoint's role


def gateway_role_policy(inputs: GatewayRoleInputs) -> PolicyDocument:
    if not inputs.knowledge_base_arns:
        raise ValueError("the gateway role needs at least one knowledge base ARN")
    models = inputs.models
    statements: list[Statement] = [
        allow("ValidateTheTenantsKnowledgeBases", ["bedrock:GetKnowledgeBase"], inputs.knowledge_base_arns),
        # Full-document expansion needs GetDocumentContent beside Retrieve (kb-test-get-document-content; fact 8).
        allow(
            "RetrieveFromTheTenantsKnowledgeBasesOnly",
            ["bedrock:Retrieve", "bedrock:GetDocumentContent"],
            inputs.knowledge_base_arns,
        ),
        # Not scoped to a managed knowledge base resource (AgentCore: Configure the Gateway Service Role).
        allow("AgenticRetrieveStreamCannotBeScopedToAResource", ["bedrock:AgenticRetrieveStream"], "*"),
        *model_statements_for(models),
        allow("InvokeTheTenantsInterceptorOnly", ["lambda:InvokeFunction"], inputs.interceptor_function_arn),
        # Bedrock publishes the KB metrics of AgenticRetrieveStream with the caller's credentials
        # (docs/facts-and-decisions.md, IAM); only its namespace.
        allow(
            "PutMetricDataCannotBeScopedToAResourceSoOnlyTheseNamespaces",
            ["cloudwatch:PutMetricData"],
            "*",
            condition={"StringEquals": {"cloudwatch:namespace": [METRIC_NAMESPACES[0]]}},
        ),
    ]
    if models.guardrail_arn:
        statements.append(
            allow("ApplyTheTenantsGuardrail", ["bedrock:GetGuardrail", "bedrock:ApplyGuardrail"], models.guardrail_arn)
        )
    if models.kms_key_arns:
        statements.append(allow("DecryptWithTheTenantsConfiguredKeys", ["kms:Decrypt"], models.kms_key_arns))
    return document(statements)


def gateway_trust_policy(partition: str, region: str, account: str) -> PolicyDocument:
    """Only AgentCore, only for this account's gateways in this region (confused-deputy conditions)."""
    return document(
        [
            {
                "Sid": "AssumableByThisAccountsAgentCoreGatewaysOnly",
                "Effect": "Allow",
                "Principal": {"Service": AGENTCORE_SERVICE},
                "Action": "sts:AssumeRole",
                "Condition": {
                    "StringEquals": {"aws:SourceAccount": account},
                    "ArnLike": {"aws:SourceArn": f"arn:{partition}:bedrock-agentcore:{region}:{account}:gateway/*"},
                },
            }
        ]
    )


def interceptor_role_policy(log_group_arn: str) -> PolicyDocument:
    """The interceptor reads nothing and calls nothing: it only writes its own log group."""
    return document(
        [
            allow(
                "WriteTheInterceptorsOwnLogGroup",
                ["logs:CreateLogStream", "logs:PutLogEvents"],
                [log_group_arn, f"{log_group_arn}:*"],
            )
        ]
    )


def gateway_invoker_statements(gateway_arn: str) -> list[Statement]:
    # bedrock-agentcore:InvokeGateway belongs to the caller, not to the execution role (AgentCore guide).
    return [allow("InvokeTheTenantsMcpGatewayOnly", ["bedrock-agentcore:InvokeGateway"], gateway_arn)]


def gateway_invoker_policy(gateway_arn: str) -> PolicyDocument:
    return document(gateway_invoker_statements(gateway_arn))


def gateway_resource_policy(gateway_arn: str, invoker_arns: Sequence[str]) -> PolicyDocument:
    """The gateway's resource-based policy: the tenant's invokers (any account) may invoke it, nobody else."""
    if not invoker_arns or any(arn.strip() in ("*", "") or ":iam::" not in arn for arn in invoker_arns):
        raise ValueError("the gateway's resource policy names IAM role or user ARNs only; it is never public")
    return document(
        [
            {
                "Sid": "TheTenantsInvokersMayInvokeTheGateway",
                "Effect": "Allow",
                "Principal": {"AWS": sorted(set(invoker_arns))},
                "Action": "bedrock-agentcore:InvokeGateway",
                "Resource": gateway_arn,
            }
        ]
    )
