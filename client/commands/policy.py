"""`akb policy`: the IAM a tenant gets, as JSON for a security review, without synthesizing.

Built by the same pure functions the stacks attach (policies/), fed with what config already knows
(partition, region, account, names from contract/resource_names.py) and named placeholders for what exists
only after deploy: `<kb:docs:id>`, `<guardrail:id>`, `<account>` for an environment-agnostic config.
The endpoint's own sections come from here; each enabled tenant feature adds its statements to the
endpoint role, its reader roles to the knowledge-base policies and its own sections (features/registry.py).
No CDK import: a test keeps it so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client.options import config_option, env_option, load_or_exit
from contract.resource_names import endpoint_function_name, invoke_policy_name

if TYPE_CHECKING:
    from contract.resource_refs import GuardrailRef, KnowledgeBaseRef
    from features.registry import Features
    from features.review_context import ReviewContext
    from schema import Project, Tenant
    from schema.knowledge import KnowledgeBase


# Why a session name is only a user id where the tenant vouches for it (docs/security.md, "Identity
# for document ACLs"): whoever calls sts:AssumeRole chooses it unless the role's trust policy pins it.
SESSION_NAME_NOTE = (
    "the userId sent to Bedrock is the session name of the roles listed under session_name_roles. Whoever "
    "calls sts:AssumeRole chooses the session name, so each of these roles' trust policies must pin it "
    "(condition sts:RoleSessionName, e.g. ${aws:username}: "
    "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_iam-condition-keys.html"
    "#ck_rolesessionname). The function URL request context carries no source identity, so "
    "sts:SourceIdentity alone does not help. See docs/security.md."
)
REFUSED_NOTE = (
    "any other role caller without a vouched identity is refused (403 user_identity_unverified); IAM users "
    "are identified by their user name"
)


def user_context_review(tenant: Tenant) -> dict[str, Any]:
    """The tenant's user_context: whose session names become user ids (with the trust-policy caveat)."""
    review: dict[str, Any] = {"mode": tenant.user_context}
    if tenant.user_context == "none":
        return review
    session_roles = [invoker.arn for invoker in tenant.invokers if invoker.user_id_from_session_name]
    if tenant.user_context == "trusted":
        review["trusted_callers"] = [invoker.arn for invoker in tenant.invokers if invoker.trusted]
    review["session_name_roles"] = session_roles
    review["note"] = (SESSION_NAME_NOTE + " " if session_roles else "") + REFUSED_NOTE
    return review


def review(project: Project, tenant_name: str, features: Features | None = None) -> dict[str, Any]:
    """The execution role, the invoker policy, the URL permissions, the knowledge bases' roles and
    policies of one tenant, then each enabled feature's sections, as dicts. `features`: the registry
    (features/registry.py); tests pass their own."""
    from features.endpoint_plan import endpoint_plan, planned_refs
    from features.registry import FEATURES, enabled_features
    from features.review_context import ReviewContext, log_key_review, why_wildcards
    from policies.endpoint_role import endpoint_role_policy
    from policies.invoker import invoker_policy, url_permissions

    registry = FEATURES if features is None else features
    context = ReviewContext.of(project, tenant_name)
    tenant, enabled = context.scope.tenant, enabled_features(context.scope, registry)
    plan = endpoint_plan(
        context.scope,
        knowledge_bases=_knowledge_base_refs(context),
        log_group_arn=context.endpoint_log_group_arn,
        guardrail=_guardrail_ref(context),
        refs=planned_refs(context, registry),
        features=registry,
    )
    role_policy = endpoint_role_policy(plan.role)
    readers = [context.role("endpoint-role"), *(arn for feature in enabled for arn in feature.review_readers(context))]
    function_arn = context.arn("lambda", f"function:{endpoint_function_name(project.env_name, tenant_name)}")
    sections: dict[str, Any] = {
        "environment": project.env_name,
        "tenant": tenant_name,
        "endpoint_execution_role": role_policy,
        "why_wildcards": why_wildcards(role_policy, dict(plan.wildcard_reasons)),
        "invoker_managed_policy": {
            "name": invoke_policy_name(project.env_name, tenant_name),
            "document": invoker_policy(function_arn),
        },
        "user_context": user_context_review(tenant),
        "function_url": {"auth_type": "AWS_IAM", "invoke_mode": "RESPONSE_STREAM"},
        "function_url_permissions": [
            {key: value for key, value in vars(permission).items() if value is not None}
            for invoker in tenant.invokers
            for permission in url_permissions(invoker.arn)
        ],
        "knowledge_base_roles": {kb.alias: _knowledge_base_role(kb, context) for kb in tenant.knowledge_bases},
        "knowledge_base_resource_policies": _knowledge_base_policies(tenant, context.knowledge_base_arns, readers),
        **log_key_review(project.environment, context.endpoint_log_group_arn),
    }
    for feature in enabled:
        sections.update(feature.review(context))
    return sections


def _knowledge_base_refs(context: ReviewContext) -> list[KnowledgeBaseRef]:
    from contract.resource_refs import KnowledgeBaseRef

    return [
        KnowledgeBaseRef(kb.alias, kb.description, f"<kb:{kb.alias}:id>", context.knowledge_base_arns[kb.alias])
        for kb in context.scope.tenant.knowledge_bases
    ]


def _guardrail_ref(context: ReviewContext) -> GuardrailRef | None:
    from contract.resource_refs import GuardrailRef

    arn = context.guardrail_arn
    return GuardrailRef("<guardrail:id>", arn, "<guardrail:version>") if arn is not None else None


def _knowledge_base_policies(tenant: Tenant, kb_arns: dict[str, str], reader_role_arns: list[str]) -> dict[str, Any]:
    """Each knowledge base's AWS::Bedrock::KnowledgeBasePolicy, as cdk_constructs/knowledge_base_policy.py builds it."""
    from policies.knowledge_base_access import KnowledgeBaseAccessInputs, knowledge_base_access_policy

    access = tenant.knowledge_base_access
    return {
        alias: knowledge_base_access_policy(
            KnowledgeBaseAccessInputs(
                knowledge_base_arn=kb_arn,
                reader_role_arns=reader_role_arns,
                cross_account_readers=access.cross_account_readers,
                break_glass_role_arns=access.break_glass_roles,
            )
        )
        for alias, kb_arn in kb_arns.items()
    }


def _knowledge_base_role(kb: KnowledgeBase, context: ReviewContext) -> dict[str, Any]:
    """The service role of one knowledge base, from the same builder the construct calls
    (policies/knowledge_base_role.py); the tenant's generated bucket name is a placeholder."""
    from policies.knowledge_base_role import inputs_for, knowledge_base_role_policy, knowledge_base_trust_policy

    partition, region, account = context.partition, context.region, context.account
    documents = f"arn:{partition}:s3:::<documents-bucket>"
    inputs = inputs_for(kb, partition=partition, region=region, account=account, documents_bucket_arn=documents)
    return {
        "trust": knowledge_base_trust_policy(partition, region, account),
        "policy": knowledge_base_role_policy(inputs),
    }


@click.command()
@env_option
@config_option
@click.option("--tenant", "tenant_name", required=True, help="Tenant: config/tenants/<tenant>.yaml.")
def command(env_name: str, config_dir: Path, tenant_name: str) -> None:
    """Print a tenant's IAM as JSON: endpoint role, invoker policy, URL permissions, KB roles, and each
    enabled feature's roles."""
    project = load_or_exit(config_dir, env_name)
    if tenant_name not in project.tenants:
        click.echo(
            f"tenant '{tenant_name}' is not deployed in {env_name}; tenants: {', '.join(project.tenants)}", err=True
        )
        raise SystemExit(1)
    click.echo(json.dumps(review(project, tenant_name), indent=2))
