"""`ingestion_logs` each knowledge base's APPLICATION_LOGS, delivered and watched, as a registry feature.

Builds the deliveries into one log group per tenant (cdk_constructs/ingestion_logs.py); its observability
is a monitor built inside the tenant's observability construct (monitoring/ingestion_monitoring.py):
metric filters, two alarms that join the composite, a saved query and a dashboard row. On by default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from contract.resource_names import ingestion_log_group_name, ingestion_metric_namespace
from features.tenant_feature import BuildContext, TenantFeature
from schema import Environment, Tenant

if TYPE_CHECKING:
    from cdk_constructs.ingestion_logs import IngestionLogs
    from monitoring.observability_parts import Contribution


class IngestionLogsFeature(TenantFeature["IngestionLogs"]):
    name = "ingestion_logs"

    def enabled(self, tenant: Tenant, environment: Environment) -> bool:
        return tenant.ingestion_logs

    def build_resources(self, ctx: BuildContext) -> IngestionLogs:
        from cdk_constructs.ingestion_logs import IngestionLogs

        scope = ctx.tenant
        return IngestionLogs(
            ctx.scope,
            "IngestionLogs",
            environment=scope.environment,
            log_group_name=ingestion_log_group_name(scope.env_name, scope.tenant_name),
            name_prefix=scope.prefix,
            knowledge_bases={alias: kb.knowledge_base_arn for alias, kb in ctx.knowledge_bases.items()},
        )

    def observability(self, ctx: BuildContext, built: IngestionLogs) -> list[Contribution]:
        from monitoring.ingestion_monitoring import ingestion_monitor

        namespace = ingestion_metric_namespace(ctx.tenant.env_name, ctx.tenant.tenant_name)
        return [ingestion_monitor(built.log_group, namespace)]
