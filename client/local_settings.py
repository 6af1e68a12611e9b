"""TenantSettings for running a tenant locally: the tenant's config, the emulator's knowledge-base ids.

What the stack renders into AKB_TENANT_SETTINGS at deploy time, `akb local` builds here from the
same config; only the ids differ (the emulator's `kb_id_for(alias)` instead of CloudFormation's,
fixed local guardrail/instruction ids instead of deployed ones); the settings themselves come
from the stack's own builder (features/endpoint_settings.py, no CDK import).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import TenantSettings
from features.endpoint_settings import tenant_settings as stack_tenant_settings
from features.memory_feature import MemoryFeature
from features.tenant_feature import FeatureRef
from schema.loader import Project

LOCAL_VERSION = "1"
LOCAL_USER = "developer"  # the end user `akb local`'s default caller stands for


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
    aliases = [kb.alias for kb in tenant.knowledge_bases]
    if available_aliases is not None:
        missing = [alias for alias in aliases if alias not in available_aliases]
        if missing:
            raise LocalSettingsError(
                f"tenant '{tenant_name}' has knowledge bases {missing} with no folder of that name in the "
                f"emulator corpus (folders: {', '.join(sorted(available_aliases))}); "
                "add the folder or use --corpus"
            )
    partition_arn = "arn:aws:bedrock:local:000000000000"
    guardrail = (
        GuardrailRef(
            guardrail_id=_local_id(tenant_name, "guardrail"),
            guardrail_arn=f"{partition_arn}:guardrail/{_local_id(tenant_name, 'guardrail')}",
            guardrail_version=LOCAL_VERSION,
        )
        if tenant.has_guardrail
        else None
    )
    instruction = (
        RetrievalInstructionRef(
            instruction_id=_local_id(tenant_name, "instruction"),
            instruction_arn=f"{partition_arn}:retrieval-instruction/{_local_id(tenant_name, 'instruction')}",
            version=LOCAL_VERSION,
        )
        if tenant.retrieval.instruction is not None
        else None
    )
    knowledge_bases = [
        KnowledgeBaseRef(
            alias=kb.alias,
            description=kb.description,
            knowledge_base_id=kb_id_for(kb.alias),
            knowledge_base_arn=f"{partition_arn}:knowledge-base/{kb_id_for(kb.alias)}",
        )
        for kb in tenant.knowledge_bases
    ]
    # The same builder the stack uses: local and deployed settings cannot drift apart.
    return stack_tenant_settings(
        project,
        tenant_name,
        knowledge_bases=knowledge_bases,
        guardrail=guardrail,
        retrieval_instruction=instruction,
        refs={MemoryFeature.name: _local_memory(tenant_name)} if tenant.memory_on else {},
    )


def _local_memory(tenant: str) -> FeatureRef:
    """The emulator's stand-in for the memory the stack builds (features/memory_feature.py)."""
    memory_id = local_memory_id(tenant)
    return FeatureRef(id=memory_id, arn=f"arn:aws:bedrock-agentcore:local:000000000000:memory/{memory_id}")


def local_memory_id(tenant: str) -> str:
    """An AgentCore-shaped memory id (`^[a-zA-Z][a-zA-Z0-9-_]{0,99}-[a-zA-Z0-9]{10}$`, botocore) for
    the emulator, which keeps sessions under any well-formed id."""
    return f"akb_{re.sub(r'[^a-zA-Z0-9_-]', '_', tenant)[:80]}_memory-local00000"


def default_caller(settings: TenantSettings) -> str:
    """A caller the tenant's identity rules vouch for (lambdas/endpoint/identity.py), so the curl
    `akb local` prints works: a role the tenant lists with user_id_from_session_name, assumed with
    session name `developer`; otherwise an IAM user `developer` (an IAM user's name is always vouched
    for). With user_context none any caller would do; the same default keeps conversations working."""
    for principal in settings.session_name_callers:
        parts = principal.split(":")  # arn:<partition>:iam::<account>:role/<path/>name
        if len(parts) == 6:
            role = parts[5].rsplit("/", 1)[-1]
            return f"arn:{parts[1]}:sts::{parts[4]}:assumed-role/{role}/{LOCAL_USER}"
    return f"arn:aws:iam::000000000000:user/{LOCAL_USER}"
