"""`gateway:` the tenant's knowledge as MCP tools behind an AgentCore Gateway (docs/agents.md).

Built beside the endpoint (cdk_constructs/mcp_gateway.py), with the endpoint's settings minus
conversations; its role reads the knowledge bases; its alarms and row join the tenant's monitoring
(monitoring/gateway_monitoring.py); `akb policy` prints its roles, trust and callers (policies/gateway_role.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contract.resource_names import endpoint_log_group_name
from features.review_context import ReviewContext, log_key_review, why_wildcards
from features.tenant_feature import BuildContext, TenantFeature, TenantScope
from policies.endpoint_role import inputs_for
from policies.gateway_role import (
    GATEWAY_WILDCARD_REASONS,
    GatewayRoleInputs,
    gateway_invoker_policy,
    gateway_resource_policy,
    gateway_role_policy,
    gateway_trust_policy,
    interceptor_role_policy,
)
from schema import Environment, Tenant
from schema.gateway_config import McpGateway

if TYPE_CHECKING:
    from cdk_constructs.mcp_gateway import McpGatewayConstruct
    from cdk_constructs.streaming_endpoint import StreamingEndpoint
    from monitoring.observability_parts import Contribution

READER_PLACEHOLDER = "mcp-gateway-role"


def interceptor_log_group_name(scope: TenantScope) -> str:
    return f"{endpoint_log_group_name(scope.env_name, scope.tenant_name)}-mcp-interceptor"


class GatewayFeature(TenantFeature["McpGatewayConstruct"]):
    name = "gateway"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.gateway is not None

    def build_beside_endpoint(self, ctx: BuildContext, endpoint: StreamingEndpoint) -> McpGatewayConstruct | None:
        from cdk_constructs.mcp_gateway import McpGatewayConstruct, McpGatewayProps
        from features.endpoint_settings import tenant_settings

        scope, refs = ctx.tenant, ctx.knowledge_base_refs
        if scope.tenant.gateway is None:
            return None
        props = McpGatewayProps(
            env_name=scope.env_name,
            tenant_name=scope.tenant_name,
            config=scope.tenant.gateway,
            environment=scope.environment,
            # The endpoint's settings without what the features built (no conversations through MCP).
            settings=tenant_settings(
                scope.project,
                scope.tenant_name,
                knowledge_bases=refs,
                guardrail=ctx.guardrail,
                retrieval_instruction=ctx.retrieval_instruction,
            ),
            knowledge_bases=tuple(refs),
            models=inputs_for(
                scope.environment,
                scope.tenant,
                knowledge_base_arns=[kb.knowledge_base_arn for kb in refs],
                log_group_arn="-",
                guardrail_arn=ctx.guardrail.guardrail_arn if ctx.guardrail else None,
            ),
            log_group_name=interceptor_log_group_name(scope),
            invokers=tuple(invoker.arn for invoker in scope.tenant.invokers),
        )
        return McpGatewayConstruct(ctx.scope, "McpGateway", props=props)

    def reader_roles(self, built: McpGatewayConstruct) -> list[str]:
        return [built.role.role_arn]

    def observability(self, ctx: BuildContext, built: McpGatewayConstruct) -> list[Contribution]:
        from monitoring.gateway_monitoring import gateway_observability
        from monitoring.metric_catalogue import GatewayMetrics

        return gateway_observability(
            GatewayMetrics(built.gateway.attr_gateway_arn, list(built.tools)), built.interceptor
        )

    def review_readers(self, review: ReviewContext) -> list[str]:
        return [review.role(READER_PLACEHOLDER)]

    def review(self, review: ReviewContext) -> dict[str, Any]:
        config = review.scope.tenant.gateway
        return {"mcp_gateway": gateway_review(review, config)} if config is not None else {}


def gateway_review(review: ReviewContext, config: McpGateway) -> dict[str, Any]:
    """The gateway's execution role and trust, interceptor role, who may invoke it, and how its
    interceptor decides whose documents a call reads."""
    scope, arn = review.scope, review.arn
    environment, tenant = scope.environment, scope.tenant
    kb_arns = list(review.knowledge_base_arns.values())
    models = inputs_for(
        environment, tenant, knowledge_base_arns=kb_arns, log_group_arn="-", guardrail_arn=review.guardrail_arn
    )
    role = gateway_role_policy(GatewayRoleInputs(kb_arns, arn("lambda", "function:<interceptor-function>"), models))
    gateway_arn = arn("bedrock-agentcore", "gateway/<gateway:id>")
    log_group = arn("logs", f"log-group:{interceptor_log_group_name(scope)}")
    iam_callers = config.authorizer == "AWS_IAM"
    return {
        "authorizer": config.authorizer,
        "execution_role": role,
        "execution_role_trust": gateway_trust_policy(review.partition, review.region, review.account),
        "why_wildcards": why_wildcards(role, GATEWAY_WILDCARD_REASONS),
        "interceptor_role": interceptor_role_policy(log_group),
        "invoker_managed_policy": gateway_invoker_policy(gateway_arn) if iam_callers else None,
        "resource_policy": (
            gateway_resource_policy(gateway_arn, [i.arn for i in tenant.invokers])
            if iam_callers and tenant.invokers
            else None
        ),
        "jwt": config.jwt.model_dump() if config.jwt else None,
        "user_context": {
            "mode": tenant.user_context,
            "from": f"the verified token's '{config.jwt.user_claim}' claim"
            if config.jwt
            else "nothing (user_context: none)",
        },
        "rate_limit_per_caller_per_minute": config.requests_per_minute,
        **(
            {"interceptor_log_group_key": log_key_review(environment, log_group)["log_group_key"]}
            if environment.log_kms_key_arn
            else {}
        ),
    }
