"""`memory:` conversations in the tenant's AgentCore Memory (docs/conversations.md) as a registry feature.

Builds the memory before the endpoint (cdk_constructs/agentcore_memory.py), hands the endpoint its id
(settings) and the endpoint role the session actions on it (policies/memory_access.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from contract.settings import MemorySettings, TenantSettings
from features.tenant_feature import BuildContext, EndpointInputs, FeatureRef, RoleStatements, TenantFeature
from policies.memory_access import MemoryAccess, memory_statements
from schema import Environment, Tenant

if TYPE_CHECKING:
    from cdk_constructs.agentcore_memory import ConversationMemory
    from features.review_context import ReviewContext

MEMORY_ID_LENGTH = 111  # AgentCoreMemoryId: at most 111 characters (botocore bedrock-agent-runtime)


def memory_settings(tenant: Tenant, memory_id: str | None) -> MemorySettings | None:
    """The endpoint's view of the tenant's `memory:` block (None: no conversations). Without a memory id
    (a caller that builds no memory) there are none: a `sessionId` is then refused, never half-bound."""
    if not tenant.memory_on or tenant.memory is None or memory_id is None:
        return None
    return MemorySettings(
        memory_id=memory_id,
        required=tenant.memory.required,
        retrieval_namespace=tenant.memory.retrieval_namespace(),
    )


class MemoryFeature(TenantFeature["ConversationMemory"]):
    name = "memory"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.memory_on

    def build_resources(self, ctx: BuildContext) -> ConversationMemory | None:
        from cdk_constructs.agentcore_memory import ConversationMemory, memory_name

        scope = ctx.tenant
        if scope.tenant.memory is None:
            return None
        return ConversationMemory(
            ctx.scope,
            "ConversationMemory",
            memory=scope.tenant.memory,
            name=memory_name(scope.env_name, scope.tenant_name),
            description=f"Conversations of tenant {scope.tenant_name} ({scope.env_name})",
        )

    def ref(self, built: ConversationMemory) -> FeatureRef:
        return FeatureRef(id=built.memory_id, arn=built.memory_arn, id_max_length=MEMORY_ID_LENGTH)

    def planned_ref(self, review: ReviewContext) -> FeatureRef:
        return FeatureRef(
            id="<memory:id>",
            arn=review.arn("bedrock-agentcore", "memory/<memory:id>"),
            id_max_length=MEMORY_ID_LENGTH,
        )

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        ref = inputs.refs.get(self.name)
        return replace(settings, memory=memory_settings(inputs.scope.tenant, ref.id if ref else None))

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        ref, memory = inputs.refs.get(self.name), inputs.scope.tenant.memory
        if ref is None or memory is None:
            return RoleStatements()
        access = MemoryAccess(ref.arn, long_term_retrieval=memory.long_term_retrieval is not None)
        return RoleStatements(tuple(memory_statements(access)))
