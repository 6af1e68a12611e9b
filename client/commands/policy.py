"""`akb policy`: the IAM a tenant gets, as JSON for a security review, without synthesizing.

Built by the same pure functions the stacks attach (policies/), fed with what config already knows
(partition, region, account, names from contract/resource_names.py) and named placeholders for what exists
only after deploy: `<kb:docs:id>`, `<guardrail:id>`, `<account>` for an environment-agnostic config.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client.agent_review import agent_review
from client.front_door_review import front_door_review
from client.options import config_option, env_option, load_or_exit
from contract.resource_names import (
    cache_table_name,
    endpoint_function_name,
    endpoint_log_group_name,
    invoke_policy_name,
)

if TYPE_CHECKING:
    from schema import Environment, Project, Tenant
    from schema.gateway_config import McpGateway
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


# log_kms_key_arn names a key this project only imports: its key policy is the key owner's to edit.
LOG_KEY_NOTE = (
    "the endpoint log group is encrypted with this customer managed key. The stacks import the key and "
    "cannot change its key policy: add this statement to it before deploying, or creating the log group "
    "fails. Source: https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html"
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


def partition_for(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def review(project: Project, tenant_name: str) -> dict[str, Any]:
    """The execution role, the invoker policy and the URL permissions of one tenant, as dicts."""
    from policies.endpoint_role import WILDCARD_REASONS, endpoint_role_policy, inputs_for
    from policies.invoker import invoker_policy, url_permissions

    environment, tenant = project.environment, project.tenants[tenant_name]
    partition, region = partition_for(environment.region), environment.region
    account = environment.account or "<account>"

    def arn(service: str, resource: str) -> str:
        return f"arn:{partition}:{service}:{region}:{account}:{resource}"

    function_arn = arn("lambda", f"function:{endpoint_function_name(project.env_name, tenant_name)}")
    kb_arns = {kb.alias: arn("bedrock", f"knowledge-base/<kb:{kb.alias}:id>") for kb in tenant.knowledge_bases}
    log_group_arn = arn("logs", f"log-group:{endpoint_log_group_name(project.env_name, tenant_name)}")
    role_policy = endpoint_role_policy(
        inputs_for(
            environment,
            tenant,
            knowledge_base_arns=list(kb_arns.values()),
            log_group_arn=log_group_arn,
            guardrail_arn=arn("bedrock", "guardrail/<guardrail:id>") if tenant.guardrail is not None else None,
            cache_table_arn=arn("dynamodb", f"table/{cache_table_name(project.env_name, tenant_name)}")
            if tenant.cache is not None
            else None,
            tenant_name=tenant_name,
        )
    )
    return {
        "environment": project.env_name,
        "tenant": tenant_name,
        "endpoint_execution_role": role_policy,
        "why_wildcards": _why_wildcards(role_policy, WILDCARD_REASONS),
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
        "knowledge_base_roles": {
            kb.alias: _knowledge_base_role(kb, partition, region, account) for kb in tenant.knowledge_bases
        },
        "knowledge_base_resource_policies": _knowledge_base_policies(
            tenant, kb_arns, _reader_roles(tenant, partition, account)
        ),
        **_log_key_review(environment, log_group_arn),
        **({"mcp_gateway": _gateway(project, tenant_name, tenant.gateway, arn)} if tenant.gateway else {}),
        **front_door_review(project, tenant_name, partition, region, account),  # client/front_door_review.py
        **agent_review(project, tenant_name, partition, region, account),  # client/agent_review.py
    }


def _why_wildcards(policy: dict[str, Any], reasons: dict[str, str]) -> dict[str, str]:
    """The written reason of each statement of `policy` that has a wildcard resource."""
    sids = {statement["Sid"] for statement in policy["Statement"]}
    return {sid: reason for sid, reason in reasons.items() if sid in sids}


def _reader_roles(tenant: Tenant, partition: str, account: str) -> list[str]:
    """The roles the knowledge bases' resource policies admit: the endpoint's, the MCP gateway's and the
    agent action function's (each only when the tenant has one)."""
    roles = [f"arn:{partition}:iam::{account}:role/<endpoint-role>"]
    if tenant.gateway is not None:
        roles.append(f"arn:{partition}:iam::{account}:role/<mcp-gateway-role>")
    if tenant.agent is not None:
        roles.append(f"arn:{partition}:iam::{account}:role/<agent-action-function-role>")
    return roles


def _gateway(project: Project, tenant_name: str, config: McpGateway, arn: Callable[[str, str], str]) -> dict[str, Any]:
    """The tenant's MCP gateway (policies/gateway_role.py): execution role and trust, interceptor role,
    who may invoke it, and how its interceptor decides whose documents a call reads."""
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

    environment, tenant = project.environment, project.tenants[tenant_name]
    partition = partition_for(environment.region)
    kb_arns = [arn("bedrock", f"knowledge-base/<kb:{kb.alias}:id>") for kb in tenant.knowledge_bases]
    guardrail = arn("bedrock", "guardrail/<guardrail:id>") if tenant.guardrail is not None else None
    models = inputs_for(environment, tenant, knowledge_base_arns=kb_arns, log_group_arn="-", guardrail_arn=guardrail)
    role = gateway_role_policy(GatewayRoleInputs(kb_arns, arn("lambda", "function:<interceptor-function>"), models))
    gateway_arn = arn("bedrock-agentcore", "gateway/<gateway:id>")
    log_group = arn("logs", f"log-group:{endpoint_log_group_name(project.env_name, tenant_name)}-mcp-interceptor")
    iam_callers = config.authorizer == "AWS_IAM"
    return {
        "authorizer": config.authorizer,
        "execution_role": role,
        "execution_role_trust": gateway_trust_policy(partition, environment.region, environment.account or "<account>"),
        "why_wildcards": _why_wildcards(role, GATEWAY_WILDCARD_REASONS),
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
            {"interceptor_log_group_key": _log_key_review(environment, log_group)["log_group_key"]}
            if environment.log_kms_key_arn
            else {}
        ),
    }


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


def _log_key_review(environment: Environment, log_group_arn: str) -> dict[str, Any]:
    """With log_kms_key_arn: the statement its key policy must hold (the project cannot add it: the key is imported)."""
    if not environment.log_kms_key_arn:
        return {}
    from policies.log_key import log_group_key_statement

    return {
        "log_group_key": {
            "key_arn": environment.log_kms_key_arn,
            "note": LOG_KEY_NOTE,
            "key_policy_statement_to_add": log_group_key_statement(environment.region, log_group_arn),
        }
    }


def _knowledge_base_role(kb: KnowledgeBase, partition: str, region: str, account: str) -> dict[str, Any]:
    """The service role of one knowledge base, from the same builder the construct calls
    (policies/knowledge_base_role.py); the tenant's generated bucket name is a placeholder."""
    from policies.knowledge_base_role import inputs_for, knowledge_base_role_policy, knowledge_base_trust_policy

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
    """Print a tenant's IAM as JSON: endpoint role, invoker policy, URL permissions, KB roles, MCP gateway."""
    project = load_or_exit(config_dir, env_name)
    if tenant_name not in project.tenants:
        click.echo(
            f"tenant '{tenant_name}' is not deployed in {env_name}; tenants: {', '.join(project.tenants)}", err=True
        )
        raise SystemExit(1)
    click.echo(json.dumps(review(project, tenant_name), indent=2))
