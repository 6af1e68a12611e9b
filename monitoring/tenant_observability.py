"""A tenant's monitoring in one construct: dashboard, alarms (+ composite for paging), saved log queries.

Takes the endpoint function as any `aws_lambda.IFunction` (not the endpoint construct), so it can be
built beside a plain function in tests and reused for any function that emits the same metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns
from constructs import Construct

from monitoring.alarms import EndpointAlarms, gateway_alarm_specs
from monitoring.api_metrics import API_ROW, ApiMetrics, api_alarm_specs, api_widgets
from monitoring.dashboard_widgets import explained_row
from monitoring.ingestion_monitoring import INGESTION_ROW, IngestionMonitoring
from monitoring.metric_catalogue import GatewayMetrics
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
    - cache: whether the tenant has a result cache (adds the dashboard's cache row); default false.
    - knowledge_bases: alias -> knowledge-base id (tokens are fine): per-knowledge-base Bedrock
      graphs and the Retrieve throttles alarm; default none.
    - index_storage_price_per_gb_month: for the dashboard's storage estimate; default 5.0.
    - ingestion: (log group, metric namespace) of the knowledge bases' ingestion logs: adds their
      alarms (into the composite), saved query and dashboard row; default none.
    - gateway, interceptor: the tenant's MCP gateway metrics and its interceptor function; default none.
    - extra_alarms: more of the tenant's alarms for the composite and the dashboard's alarm widget
      (the Bedrock agent's function: monitoring/agent_observability.py); default none.
    - api: the REST API stage of an `api_gateway` front door: its alarms (into the composite) and
      dashboard row (monitoring/api_metrics.py); default none.
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
        cache: bool = False,
        knowledge_bases: Mapping[str, str] | None = None,
        index_storage_price_per_gb_month: float = 5.0,
        ingestion: tuple[logs.ILogGroup, str] | None = None,
        gateway: GatewayMetrics | None = None,
        interceptor: lambda_.IFunction | None = None,
        extra_alarms: Sequence[cloudwatch.IAlarm] = (),
        api: ApiMetrics | None = None,
    ):
        super().__init__(scope, construct_id)
        self.ingestion = self._build_ingestion(ingestion, name, query_folder or name)
        ingestion_alarms = list(self.ingestion.alarms.values()) if self.ingestion else []
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
            extra_alarms=[*ingestion_alarms, *extra_alarms],
            extra_specs=[
                *(gateway_alarm_specs(gateway, interceptor, thresholds) if gateway and interceptor else ()),
                *(api_alarm_specs(api, thresholds) if api else ()),
            ],
        )
        self.dashboard = TenantDashboard(
            self,
            "Dashboard",
            function=function,
            tenant=tenant,
            dashboard_name=name,
            thresholds=thresholds,
            reserved_concurrency=reserved_concurrency,
            alarms=[*self.alarms.alarms.values(), *ingestion_alarms, *extra_alarms, self.alarms.composite],
            cache=cache,
            knowledge_bases=knowledge_bases,
            index_storage_price_per_gb_month=index_storage_price_per_gb_month,
            gateway=gateway,
        )
        if self.ingestion is not None:
            self.dashboard.dashboard.add_widgets(explained_row(INGESTION_ROW, self.ingestion.widgets()))
        if api is not None:
            self.dashboard.dashboard.add_widgets(explained_row(API_ROW, api_widgets(api, thresholds)))
        self.queries = EndpointLogQueries(self, "Queries", log_group=log_group, name_prefix=query_folder or name)

    def _build_ingestion(
        self, ingestion: tuple[logs.ILogGroup, str] | None, name: str, query_folder: str
    ) -> IngestionMonitoring | None:
        """Alarms, saved query and widgets over the knowledge bases' ingestion logs (when delivered)."""
        if ingestion is None:
            return None
        log_group, namespace = ingestion
        return IngestionMonitoring(
            self, "Ingestion", log_group=log_group, namespace=namespace, name_prefix=name, query_folder=query_folder
        )
