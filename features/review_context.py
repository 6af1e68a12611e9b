"""What `akb policy` knows of a tenant before deploy, for the features' review hooks.

Partition, region and account come from config (`<account>` for an environment-agnostic config); what
exists only after deploy is a named placeholder: `<kb:docs:id>`, `<guardrail:id>`, `<mcp-gateway-role>`.
No CDK import: `akb policy` prints a tenant's IAM without synthesizing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contract.resource_names import endpoint_log_group_name
from features.tenant_feature import TenantScope
from schema import Environment, Project

# log_kms_key_arn names a key this project only imports: its key policy is the key owner's to edit.
LOG_KEY_NOTE = (
    "the endpoint log group is encrypted with this customer managed key. The stacks import the key and "
    "cannot change its key policy: add this statement to it before deploying, or creating the log group "
    "fails. Source: https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/encrypt-log-data-kms.html"
)


def partition_for(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


@dataclass(frozen=True)
class ReviewContext:
    """One tenant as `akb policy` sees it: ARNs from config, placeholders for what deploy creates."""

    scope: TenantScope
    partition: str
    region: str
    account: str

    @classmethod
    def of(cls, project: Project, tenant_name: str) -> ReviewContext:
        region = project.environment.region
        account = project.environment.account or "<account>"
        return cls(TenantScope(project, tenant_name), partition_for(region), region, account)

    def arn(self, service: str, resource: str) -> str:
        return f"arn:{self.partition}:{service}:{self.region}:{self.account}:{resource}"

    def role(self, placeholder: str) -> str:
        """A role created at deploy, e.g. `arn:aws:iam::123456789012:role/<endpoint-role>`."""
        return f"arn:{self.partition}:iam::{self.account}:role/<{placeholder}>"

    @property
    def knowledge_base_arns(self) -> dict[str, str]:
        kbs = self.scope.tenant.knowledge_bases
        return {kb.alias: self.arn("bedrock", f"knowledge-base/<kb:{kb.alias}:id>") for kb in kbs}

    @property
    def guardrail_arn(self) -> str | None:
        return self.arn("bedrock", "guardrail/<guardrail:id>") if self.scope.tenant.guardrail is not None else None

    @property
    def endpoint_log_group_arn(self) -> str:
        return self.arn("logs", f"log-group:{endpoint_log_group_name(self.scope.env_name, self.scope.tenant_name)}")


def why_wildcards(policy: dict[str, Any], reasons: dict[str, str]) -> dict[str, str]:
    """The written reason of each statement of `policy` that has a wildcard resource."""
    sids = {statement["Sid"] for statement in policy["Statement"]}
    return {sid: reason for sid, reason in reasons.items() if sid in sids}


def log_key_review(environment: Environment, log_group_arn: str) -> dict[str, Any]:
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
