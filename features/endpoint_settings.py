"""The endpoint's TenantSettings, built from config, the references of the tenant's resources and the
settings each enabled feature adds (features/registry.py).

No CDK import: the stack calls it with references that are CDK tokens, `akb local` with the emulator's
knowledge-base ids, and tests with literals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import Retriever, RoutingSettings, TenantSettings
from features.registry import FEATURES, Features, enabled_features
from features.tenant_feature import EndpointInputs, FeatureRef, TenantScope
from schema import Project


def tenant_settings(
    project: Project,
    tenant_name: str,
    *,
    knowledge_bases: Sequence[KnowledgeBaseRef],
    guardrail: GuardrailRef | None = None,
    retrieval_instruction: RetrievalInstructionRef | None = None,
    refs: Mapping[str, FeatureRef] | None = None,
    features: Features = FEATURES,
) -> TenantSettings:
    """`refs`: what the features built before the endpoint, by feature name; a feature whose ref is
    missing adds what it can without it (features/tenant_feature.py)."""
    scope = TenantScope(project, tenant_name)
    settings = _core_settings(scope, knowledge_bases, guardrail, retrieval_instruction)
    inputs = EndpointInputs(scope, tuple(kb.knowledge_base_arn for kb in knowledge_bases), refs or {})
    for feature in enabled_features(scope, features):
        settings = feature.endpoint_settings(inputs, settings)
    return settings


def _core_settings(
    scope: TenantScope,
    knowledge_bases: Sequence[KnowledgeBaseRef],
    guardrail: GuardrailRef | None,
    retrieval_instruction: RetrievalInstructionRef | None,
) -> TenantSettings:
    """What every tenant's endpoint gets: retrievers, planner, reranker, guardrail, caps, identity, prices."""
    environment, tenant = scope.environment, scope.tenant
    return TenantSettings(
        tenant=scope.tenant_name,
        environment=scope.env_name,
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
    )
