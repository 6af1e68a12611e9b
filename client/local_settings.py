"""TenantSettings for running a tenant locally: the tenant's config, the emulator's knowledge-base ids.

What the stack renders into AKB_TENANT_SETTINGS at deploy time, `akb local` builds here from the
same config; only the ids differ (the emulator's `kb_id_for(alias)` instead of CloudFormation's,
fixed local guardrail/instruction ids instead of deployed ones).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from lambdas.endpoint.settings import Retriever, RoutingSettings, TenantSettings
from schema.loader import Project

LOCAL_VERSION = "1"


class LocalSettingsError(ValueError):
    """The tenant cannot run against the emulator as configured (message says what to change)."""


def _local_id(tenant: str, kind: str) -> str:
    """A Bedrock-shaped id (`[a-z0-9]+`) for a resource that only exists locally."""
    return re.sub(r"[^a-z0-9]", "", f"local{tenant}{kind}".lower())[:64]


def tenant_settings(
    project: Project,
    tenant_name: str,
    kb_id_for: Callable[[str], str],
    available_aliases: Collection[str] | None = None,
) -> TenantSettings:
    """The settings the endpoint would get in `project`'s environment, with emulator ids."""
    if tenant_name not in project.tenants:
        raise LocalSettingsError(
            f"tenant '{tenant_name}' is not deployed in environment '{project.env_name}' "
            f"(it deploys: {', '.join(project.tenants)})"
        )
    tenant = project.tenants[tenant_name]
    environment = project.environment
    aliases = [kb.alias for kb in tenant.knowledge_bases]
    if available_aliases is not None:
        missing = [alias for alias in aliases if alias not in available_aliases]
        if missing:
            raise LocalSettingsError(
                f"tenant '{tenant_name}' has knowledge bases {missing} with no folder of that name in the "
                f"emulator corpus (folders: {', '.join(sorted(available_aliases))}); "
                "add the folder or use --corpus"
            )
    return TenantSettings(
        tenant=tenant_name,
        environment=project.env_name,
        retrievers=[
            Retriever(kb.alias, kb_id_for(kb.alias), kb.description) for kb in tenant.knowledge_bases
        ],
        planner_type=environment.planner.type,
        planner_model_arn=environment.planner.model_arn,
        reranking_type=environment.reranking.type,
        reranking_model_arn=environment.reranking.model_arn,
        guardrail_id=_local_id(tenant_name, "guardrail") if tenant.has_guardrail else None,
        guardrail_version=LOCAL_VERSION if tenant.has_guardrail else None,
        retrieval_instruction_id=(
            _local_id(tenant_name, "instruction") if tenant.retrieval.instruction is not None else None
        ),
        retrieval_instruction_version=LOCAL_VERSION if tenant.retrieval.instruction is not None else None,
        max_agent_iteration=tenant.retrieval.max_agent_iteration,
        max_results=tenant.retrieval.max_results,
        generate_response=tenant.retrieval.generate_response,
        user_context=tenant.user_context,
        trusted_callers=[invoker.arn for invoker in tenant.invokers if invoker.trusted],
        deadline_seconds=environment.endpoint.effective_deadline_seconds,
        max_body_bytes=environment.endpoint.max_body_bytes,
        agentic_price_per_1000_usd=environment.pricing.agentic_per_1000_usd,
        retrieve_price_per_1000_usd=environment.pricing.retrieve_per_1000_usd,
        routing=RoutingSettings(**tenant.routing.model_dump()),  # same field names (docs/routing.md)
    )
