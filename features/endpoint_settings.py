"""The endpoint's TenantSettings, built from config and the references of the tenant's resources.

No CDK import: the stack calls it with references that are CDK tokens, `akb local` could call it
with the emulator's knowledge-base ids, and tests call it with literals.
"""

from __future__ import annotations

from collections.abc import Sequence

from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import CacheSettings, MemorySettings, Retriever, RoutingSettings, TenantSettings
from schema import Project, Tenant


def tenant_settings(
    project: Project,
    tenant_name: str,
    *,
    knowledge_bases: Sequence[KnowledgeBaseRef],
    guardrail: GuardrailRef | None = None,
    retrieval_instruction: RetrievalInstructionRef | None = None,
    memory_id: str | None = None,
) -> TenantSettings:
    environment = project.environment
    tenant = project.tenants[tenant_name]
    return TenantSettings(
        tenant=tenant_name,
        environment=project.env_name,
        retrievers=[
            Retriever(alias=kb.alias, knowledge_base_id=kb.knowledge_base_id, description=kb.description)
            for kb in knowledge_bases
        ],
        planner_type=environment.planner.type,
        planner_model_arn=environment.planner.model_arn,
        reranking_type=environment.reranking.type,
        reranking_model_arn=environment.reranking.model_arn,
        guardrail_id=guardrail.guardrail_id if guardrail else None,
        guardrail_version=guardrail.guardrail_version if guardrail else None,
        retrieval_instruction_id=retrieval_instruction.instruction_id if retrieval_instruction else None,
        retrieval_instruction_version=retrieval_instruction.version if retrieval_instruction else None,
        max_agent_iteration=tenant.retrieval.max_agent_iteration,
        max_results=tenant.retrieval.max_results,
        generate_response=tenant.retrieval.generate_response,
        user_context=tenant.user_context,
        trusted_callers=[invoker.arn for invoker in tenant.invokers if invoker.trusted],
        session_name_callers=[invoker.arn for invoker in tenant.invokers if invoker.user_id_from_session_name],
        deadline_seconds=environment.endpoint.effective_deadline_seconds,
        max_body_bytes=environment.endpoint.max_body_bytes,
        agentic_price_per_1000_usd=environment.pricing.agentic_per_1000_usd,
        retrieve_price_per_1000_usd=environment.pricing.retrieve_per_1000_usd,
        routing=RoutingSettings(**tenant.routing.model_dump()),  # same field names (docs/routing.md)
        cache=cache_settings(tenant),
        memory=memory_settings(tenant, memory_id),
    )


def cache_settings(tenant: Tenant) -> CacheSettings | None:
    """The endpoint's view of the tenant's `cache:` block (None: off)."""
    cache = tenant.cache
    if cache is None or not cache.enabled:
        return None
    aliases = [kb.alias for kb in tenant.knowledge_bases]
    acl = cache.acl_recheck
    return CacheSettings(
        ttl_seconds=cache.ttl_seconds,
        max_entry_bytes=cache.max_entry_kb * 1000,
        modes=list(cache.modes),
        version_refresh_seconds=cache.version_refresh_seconds,
        acl_knowledge_bases=aliases if acl == "all" else [] if acl == "none" else list(acl),
    )


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
