"""The endpoint's Lambda limits, checked without the CDK so `akb validate` and `cdk synth` agree.

The streaming endpoint construct enforces them at synth; `akb validate` and app.py run
`deploy_problems(project)` on the loaded config first, with the same numbers and the same
worst-case arithmetic, so a config that validates also synthesizes (and synth reports these as
config errors, never as a stack trace).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from contract.env_vars import TENANT_SETTINGS
from contract.resource_names import endpoint_function_name
from contract.resource_refs import GuardrailRef, KnowledgeBaseRef, RetrievalInstructionRef
from contract.settings import TenantSettings
from features.endpoint_plan import (
    GUARDRAIL_ID_LENGTH,
    INSTRUCTION_ID_LENGTH,
    KB_ID_LENGTH,
    OTHER_TOKEN_LENGTH,
    PAGE_TOKEN_KEY_LENGTH,
    VERSION_LENGTH,
    endpoint_plan,
    planned_refs,
)
from features.review_context import ReviewContext
from schema import Project
from schema.config_errors import Problem
from schema.front_door_checks import tenant_front_door

# Lambda: "The total size of all environment variables doesn't exceed 4 KB."
# https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html
ENVIRONMENT_LIMIT_BYTES = 4096
_TOKEN = re.compile(r"\$\{Token\[[^\]]+\]\}")
# Lambda function names: 64 characters (https://docs.aws.amazon.com/lambda/latest/api/API_CreateFunction.html).
FUNCTION_NAME_LIMIT = 64


def worst_case_size(variables: Mapping[str, str], lengths: Mapping[str, int]) -> int:
    """Bytes of keys + values once every token is replaced by the longest value it can resolve to."""

    def resolved(value: str) -> str:
        return _TOKEN.sub(lambda match: "x" * lengths.get(match.group(0), OTHER_TOKEN_LENGTH), value)

    return sum(len(key.encode()) + len(resolved(value).encode()) for key, value in variables.items())


def environment_size_message(variables: Mapping[str, str], size: int) -> str:
    settings = TenantSettings.from_json(variables[TENANT_SETTINGS])
    descriptions = sum(len(retriever.description) for retriever in settings.retrievers)
    callers = sum(len(arn) for arn in settings.trusted_callers)
    return (
        f"the function's environment can reach {size} bytes; Lambda allows "
        f"{ENVIRONMENT_LIMIT_BYTES} in total. Shorten the knowledge base descriptions ({descriptions} "
        f"characters now) or list fewer trusted invokers ({callers} characters of ARNs)."
    )


def function_name_message(function_name: str) -> str | None:
    if len(function_name) <= FUNCTION_NAME_LIMIT:
        return None
    return (
        f"function name '{function_name}' has {len(function_name)} characters; "
        f"Lambda allows {FUNCTION_NAME_LIMIT}: shorten the environment or tenant name"
    )


def _worst_case_variables(project: Project, tenant_name: str) -> dict[str, str]:
    """The environment the tenant's function would get, every deploy-time id at its longest."""
    review = ReviewContext.of(project, tenant_name)
    tenant = review.scope.tenant
    longest_arn = "x" * OTHER_TOKEN_LENGTH
    plan = endpoint_plan(
        review.scope,
        knowledge_bases=[
            KnowledgeBaseRef(kb.alias, kb.description, "x" * KB_ID_LENGTH, longest_arn) for kb in tenant.knowledge_bases
        ],
        log_group_arn=longest_arn,
        guardrail=GuardrailRef("x" * GUARDRAIL_ID_LENGTH, longest_arn, "x" * VERSION_LENGTH)
        if tenant.has_guardrail
        else None,
        retrieval_instruction=RetrievalInstructionRef("x" * INSTRUCTION_ID_LENGTH, longest_arn, "x" * VERSION_LENGTH)
        if tenant.retrieval.instruction is not None
        else None,
        refs={name: ref.worst_case() for name, ref in planned_refs(review).items()},
    )
    return plan.variables(tenant_front_door(project.environment, tenant), "x" * PAGE_TOKEN_KEY_LENGTH)


def deploy_problems(project: Project) -> list[Problem]:
    """Every limit the endpoint construct would refuse at synth, as config problems (file + field)."""
    problems = []
    for tenant_name in project.tenants:
        tenant_file = str(project.config_dir / "tenants" / f"{tenant_name}.yaml")
        variables = _worst_case_variables(project, tenant_name)
        size = worst_case_size(variables, {})
        if size > ENVIRONMENT_LIMIT_BYTES:
            problems.append(Problem(tenant_file, "knowledge_bases", environment_size_message(variables, size)))
        name_problem = function_name_message(endpoint_function_name(project.env_name, tenant_name))
        if name_problem:
            problems.append(Problem(tenant_file, "", name_problem))
    return problems
