"""A tenant's monitoring in one construct: dashboard, alarms (+ composite for paging), saved log queries.

Takes the endpoint function as any `aws_lambda.IFunction` (not the endpoint construct), so it can be
built beside a plain function in tests and reused for any function that emits the same metrics. What
the tenant's features add (their dashboard rows, alarms and monitors) arrives as a list of
contributions (monitoring/observability_parts.py); this construct names no feature.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Stack
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from constructs import Construct

from monitoring.alarms import EndpointAlarms
from monitoring.observability_parts import Contribution, Contributions, MonitorScope
from monitoring.saved_queries import EndpointLogQueries
from monitoring.tenant_dashboard import TenantDashboard
from schema.alarm_config import TenantThresholds

RUNBOOK = "docs/operations.md"


def dashboard_url(scope: Construct, dashboard_name: str) -> str:
    region = Stack.of(scope).region
    return (
        f"https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}#dashboards/dashboard/{dashboard_name}"
    )


class TenantObservability(Construct):
    """Props:
    - function: the endpoint function.
    - log_group: the endpoint's log group (saved queries read it).
    - tenant: the tenant name (the `Tenant` metric dimension).
    - name: physical name of the dashboard and prefix of alarm names, e.g. `akb-dev-acme`.
    - thresholds: `schema.alarm_config.tenant_thresholds(...)`.
    - topic: the environment's alarm topic; default none (no notifications).
    - reserved_concurrency: the function's reserved concurrency, drawn on the dashboard; default none.
    - query_folder: Logs Insights folder of the saved queries; default `name`.
    - knowledge_bases: alias -> knowledge-base id (tokens are fine): per-knowledge-base Bedrock
      graphs and the Retrieve throttles alarm; default none.
    - index_storage_price_per_gb_month: for the dashboard's storage estimate; default 5.0.
    - contributions: the tenant features' alarms, rows and monitors, in registry order
      (features/registry.py `TenantFeatures.observability`); default none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        function: lambda_.IFunction,
        log_group: logs.ILogGroup,
        tenant: str,
        name: str,
        thresholds: TenantThresholds,
        topic: sns.ITopic | None = None,
        reserved_concurrency: int | None = None,
        query_folder: str | None = None,
        knowledge_bases: Mapping[str, str] | None = None,
        index_storage_price_per_gb_month: float = 5.0,
        contributions: Sequence[Contribution] = (),
    ):
        super().__init__(scope, construct_id)
        # Monitors first: their alarms join the composite below.
        parts = Contributions.expand(contributions, MonitorScope(self, name, query_folder or name, thresholds))
        self.alarms = EndpointAlarms(
            self,
            "Alarms",
            function=function,
            tenant=tenant,
            name_prefix=name,
            thresholds=thresholds,
            topic=topic,
            runbook_url=f"{RUNBOOK}; dashboard {dashboard_url(self, name)}",
            knowledge_base_ids=list((knowledge_bases or {}).values()),
            extra_alarms=parts.paged,
            extra_specs=parts.specs,
        )
        self.dashboard = TenantDashboard(
            self,
            "Dashboard",
            function=function,
            tenant=tenant,
            dashboard_name=name,
            thresholds=thresholds,
            reserved_concurrency=reserved_concurrency,
            alarms=[*self.alarms.alarms.values(), *parts.paged, self.alarms.composite],
            rows=parts.rows,
            knowledge_bases=knowledge_bases,
            index_storage_price_per_gb_month=index_storage_price_per_gb_month,
        )
        self.queries = EndpointLogQueries(self, "Queries", log_group=log_group, name_prefix=query_folder or name)
