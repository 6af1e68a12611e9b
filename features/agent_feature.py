"""`agent:` an Agents for Amazon Bedrock agent whose action group runs agentic retrieval (docs/agents.md).

Built beside the endpoint (cdk_constructs/bedrock_agent.py: it runs with the endpoint's settings), its
action function's role reads the knowledge bases, its function's alarms join the tenant's composite
(monitoring/agent_observability.py), and `akb policy` prints its roles (the same pure builders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from contract.resource_names import agent_function_name
from features.review_context import why_wildcards
from features.tenant_feature import BuildContext, TenantFeature, TenantScope
from policies.agent_role import (
    BEDROCK_SERVICE,
    WILDCARD_REASONS,
    agent_invoker_policy,
    agent_role_policy,
    agent_trust_policy,
)
from policies.endpoint_role import endpoint_role_policy, inputs_for
from schema import Environment, Tenant

if TYPE_CHECKING:
    from cdk_constructs.bedrock_agent import TenantAgent, TenantAgentProps
    from cdk_constructs.streaming_endpoint import StreamingEndpoint
    from contract.resource_refs import GuardrailRef
    from contract.settings import TenantSettings
    from features.review_context import ReviewContext
    from monitoring.observability_parts import Contribution
    from schema.agent_config import Agent

READER_PLACEHOLDER = "agent-action-function-role"


def invoker_roles(scope: TenantScope) -> tuple[str, ...]:
    """The tenant's same-account invoker roles that may invoke the agent (with user_context trusted: the
    trusted ones only, since callers set the user id)."""
    tenant = scope.tenant
    return tuple(
        invoker.arn
        for invoker in tenant.invokers
        if invoker.is_role
        and invoker.arn.split(":")[4] == scope.environment.account
        and (tenant.user_context != "trusted" or invoker.trusted)
    )


def agent_props(
    scope: TenantScope,
    config: Agent,
    *,
    knowledge_base_arns: Sequence[str],
    guardrail: GuardrailRef | None,
    settings: TenantSettings,
    token_lengths: Mapping[str, int],
) -> TenantAgentProps:
    """The agent construct's props from the tenant and what the endpoint was built with (its settings,
    its knowledge bases and guardrail); the function's role reads what the endpoint's reads."""
    from cdk_constructs.bedrock_agent import TenantAgentProps

    function_role = inputs_for(
        scope.environment,
        scope.tenant,
        knowledge_base_arns=knowledge_base_arns,
        log_group_arn="-",  # the function's own log group, set by the construct
        guardrail_arn=guardrail.guardrail_arn if guardrail else None,
    )
    return TenantAgentProps(
        env_name=scope.env_name,
        tenant_name=scope.tenant_name,
        config=config,
        environment=scope.environment,
        settings=settings,
        token_lengths=token_lengths,
        function_role=function_role,
        guardrail=guardrail,
        invoker_roles=invoker_roles(scope),
    )


class AgentFeature(TenantFeature["TenantAgent"]):
    name = "agent"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.agent is not None

    def build_beside_endpoint(self, ctx: BuildContext, endpoint: StreamingEndpoint) -> TenantAgent | None:
        from cdk_constructs.bedrock_agent import TenantAgent

        scope = ctx.tenant
        if scope.tenant.agent is None:
            return None
        props = agent_props(
            scope,
            scope.tenant.agent,
            knowledge_base_arns=[kb.knowledge_base_arn for kb in ctx.knowledge_bases.values()],
            guardrail=ctx.guardrail,
            settings=endpoint.settings,
            token_lengths=endpoint.token_lengths,
        )
        return TenantAgent(ctx.scope, "Agent", props=props)

    def reader_roles(self, built: TenantAgent) -> list[str]:
        return [built.function_role.role_arn]

    def observability(self, ctx: BuildContext, built: TenantAgent) -> list[Contribution]:
        """The function's own dashboard and alarms (no actions); the alarms join the tenant's composite."""
        from monitoring.agent_observability import AgentObservability
        from monitoring.observability_parts import PagedAlarms

        watched = AgentObservability(
            ctx.scope,
            "AgentObservability",
            function=built.function,
            timeout_seconds=built.config.timeout_seconds,
            name=ctx.tenant.prefix,
        )
        return [PagedAlarms(watched.alarms)]

    def review_readers(self, review: ReviewContext) -> list[str]:
        return [review.role(READER_PLACEHOLDER)]

    def review(self, review: ReviewContext) -> dict[str, Any]:
        """The agent's service role and trust, the action function's role, who may invoke what."""
        scope = review.scope
        agent = scope.tenant.agent
        if agent is None:
            return {}
        function_name = agent_function_name(scope.env_name, scope.tenant_name)
        function_role = endpoint_role_policy(
            inputs_for(
                scope.environment,
                scope.tenant,
                knowledge_base_arns=list(review.knowledge_base_arns.values()),
                log_group_arn=review.arn("logs", f"log-group:/aws/lambda/{function_name}"),
                guardrail_arn=review.guardrail_arn,
            )
        )
        role = agent_role_policy(agent.foundation_model, review.guardrail_arn)
        return {
            "bedrock_agent": {
                "service_role": role,
                "service_role_trust": agent_trust_policy(review.account, review.arn("bedrock", "agent/*")),
                "why_wildcards": why_wildcards(role, WILDCARD_REASONS),
                "action_function": function_name,
                "action_function_role": function_role,
                "action_function_invoked_by": {
                    "principal": BEDROCK_SERVICE,
                    "source_account": review.account,
                    "source_arn": review.arn("bedrock", "agent/<agent-id>"),
                },
                "invoker_managed_policy": agent_invoker_policy(
                    review.arn("bedrock", "agent-alias/<agent-id>/<alias-id>")
                ),
            }
        }
