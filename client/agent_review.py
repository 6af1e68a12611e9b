"""`akb policy`'s view of a tenant's Bedrock agent: its service role and trust, the action function's
role, who may invoke the alias, and who may invoke the function.

The same pure builders the stack uses (policies/agent_role.py, policies/endpoint_role.py), with ids
unknown before deploy written as `<agent-id>`/`<alias-id>`, so a review reads what will be deployed.
"""

from __future__ import annotations

from typing import Any

from contract.resource_names import agent_function_name
from policies.agent_role import (
    BEDROCK_SERVICE,
    WILDCARD_REASONS,
    agent_invoker_policy,
    agent_role_policy,
    agent_trust_policy,
)
from policies.endpoint_role import endpoint_role_policy, inputs_for
from schema import Project


def agent_review(project: Project, tenant_name: str, partition: str, region: str, account: str) -> dict[str, Any]:
    """{"bedrock_agent": ...} for a tenant with `agent:`; {} otherwise."""
    tenant = project.tenants[tenant_name]
    if tenant.agent is None:
        return {}

    def arn(service: str, resource: str) -> str:
        return f"arn:{partition}:{service}:{region}:{account}:{resource}"

    guardrail = arn("bedrock", "guardrail/<guardrail:id>") if tenant.guardrail is not None else None
    function_name = agent_function_name(project.env_name, tenant_name)
    function_role = endpoint_role_policy(
        inputs_for(
            project.environment,
            tenant,
            knowledge_base_arns=[arn("bedrock", f"knowledge-base/<kb:{kb.alias}:id>") for kb in tenant.knowledge_bases],
            log_group_arn=arn("logs", f"log-group:/aws/lambda/{function_name}"),
            guardrail_arn=guardrail,
        )
    )
    role = agent_role_policy(tenant.agent.foundation_model, guardrail)
    sids = {statement["Sid"] for statement in role["Statement"]}
    return {
        "bedrock_agent": {
            "service_role": role,
            "service_role_trust": agent_trust_policy(account, arn("bedrock", "agent/*")),
            "why_wildcards": {sid: reason for sid, reason in WILDCARD_REASONS.items() if sid in sids},
            "action_function": function_name,
            "action_function_role": function_role,
            "action_function_invoked_by": {
                "principal": BEDROCK_SERVICE,
                "source_account": account,
                "source_arn": arn("bedrock", "agent/<agent-id>"),
            },
            "invoker_managed_policy": agent_invoker_policy(arn("bedrock", "agent-alias/<agent-id>/<alias-id>")),
        }
    }
