"""`quota:` fair share of the account's AgenticRetrieveStream quota (docs/quota.md) as a registry feature.

On for every tenant while the environment's `quota.fair_share` is on. Builds, once per environment in
`<env>-platform`, the table that holds every tenant's token buckets (cdk_constructs/quota_table.py) and
the fair-share row and alarms of the environment dashboard (monitoring/quota_monitoring.py). Per tenant
it hands the endpoint its share (QuotaSettings: the shares of every tenant of the environment decide the
reserve, schema/quota_shares.py) and the table's name, the endpoint role its own item and the shared
one (policies/quota_access.py), and the tenant dashboard its row (monitoring/quota_row.py). The tenant
stacks derive the table's name and ARN (no cross-stack export).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from contract.env_vars import FeatureValues
from contract.resource_names import QUOTA_ACCOUNT_ITEM, quota_table_name, quota_tenant_item, resource_prefix
from contract.settings import QuotaSettings, TenantSettings
from features.tenant_feature import (
    BuildContext,
    EndpointInputs,
    EnvironmentBuild,
    FeatureRef,
    RoleStatements,
    TenantFeature,
    TenantScope,
)
from policies.quota_access import QuotaAccess, quota_statements
from schema import Environment, Project, Tenant
from schema.quota_shares import tenant_shares

if TYPE_CHECKING:
    from features.review_context import ReviewContext
    from monitoring.observability_parts import Contribution


@dataclass(frozen=True)
class QuotaTableRef:
    """What a tenant stack knows of the environment's quota table: its literal name and derived ARN."""

    name: str
    arn: str


def quota_settings(project: Project, tenant_name: str) -> QuotaSettings:
    """The endpoint's view of its tenant's share among every tenant of the environment."""
    quota = project.environment.quota
    shares = tenant_shares(project.environment, project.tenants)
    return QuotaSettings.for_tenant(
        tenant_name,
        float(quota.agentic_requests_per_minute),
        {name: share.guaranteed for name, share in shares.items()},
        {name: share.burst for name, share in shares.items()},
        float(quota.burst_seconds),
    )


class QuotaFeature(TenantFeature[QuotaTableRef]):
    name = "quota"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return environment.quota.fair_share

    def build_environment(self, ctx: EnvironmentBuild) -> Any:
        from cdk_constructs.quota_table import QuotaTable
        from monitoring.quota_monitoring import FairShareMonitoring
        from monitoring.tenant_observability import RUNBOOK

        project = ctx.project
        table = QuotaTable(ctx.scope, "QuotaTable", table_name=quota_table_name(project.env_name))
        FairShareMonitoring(
            ctx.scope,
            "FairShare",
            name_prefix=resource_prefix(project.env_name),
            guaranteed={name: s.guaranteed for name, s in tenant_shares(project.environment, project.tenants).items()},
            quota=project.environment.quota,
            dashboard=ctx.dashboard,
            topic=ctx.alarm_topic,
            runbook_url=RUNBOOK,
        )
        return table

    def build_resources(self, ctx: BuildContext) -> QuotaTableRef:
        from aws_cdk import Stack

        name = quota_table_name(ctx.tenant.env_name)
        return QuotaTableRef(
            name, Stack.of(ctx.scope).format_arn(service="dynamodb", resource="table", resource_name=name)
        )

    def ref(self, built: QuotaTableRef) -> FeatureRef:
        return FeatureRef(id=built.name, arn=built.arn)  # the name is a literal

    def planned_ref(self, review: ReviewContext) -> FeatureRef:
        name = quota_table_name(review.scope.env_name)
        return FeatureRef(id=name, arn=review.arn("dynamodb", f"table/{name}"))

    def endpoint_settings(self, inputs: EndpointInputs, settings: TenantSettings) -> TenantSettings:
        scope = inputs.scope
        return replace(settings, quota=quota_settings(scope.project, scope.tenant_name))

    def endpoint_values(self, inputs: EndpointInputs, values: FeatureValues) -> FeatureValues:
        ref = inputs.refs.get(self.name)
        return replace(values, quota_table=ref.id) if ref is not None else values

    def endpoint_statements(self, inputs: EndpointInputs) -> RoleStatements:
        ref = inputs.refs.get(self.name)
        if ref is None:
            return RoleStatements()
        return RoleStatements(tuple(quota_statements(QuotaAccess(ref.arn, inputs.scope.tenant_name))))

    def observability(self, ctx: BuildContext, built: QuotaTableRef) -> list[Contribution]:
        from monitoring.quota_row import quota_row

        settings = quota_settings(ctx.tenant.project, ctx.tenant.tenant_name)
        return [quota_row(ctx.tenant.tenant_name, settings.guaranteed_per_minute, settings.burst_per_minute)]

    def review(self, review: ReviewContext) -> dict[str, Any]:
        return {"fair_share": share_review(review.scope)}


def share_review(scope: TenantScope) -> dict[str, Any]:
    """What `akb policy` shows of the tenant's share: the numbers, the table and the items its role may update."""
    settings = quota_settings(scope.project, scope.tenant_name)
    return {
        "table": quota_table_name(scope.env_name),
        "items_the_endpoint_role_updates": [quota_tenant_item(scope.tenant_name), QUOTA_ACCOUNT_ITEM],
        "account_agentic_requests_per_minute": settings.account_per_minute,
        "guaranteed_requests_per_minute": round(settings.guaranteed_per_minute, 3),
        "burst_requests_per_minute": settings.burst_per_minute,
        "docs": "docs/quota.md",
    }
