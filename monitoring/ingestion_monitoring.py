"""Watching ingestion: metric filters and alarms on the tenant's ingestion logs, a saved query for the
failed documents, and the dashboard widgets of each job's document counts.

The events and their fields come from `contract/ingestion_events.py`; the log group from
`cdk_constructs/ingestion_logs.py`. The alarms have no actions of their own: the tenant's composite
alarm (monitoring/alarms.py) includes them, so a failed ingestion pages like any tenant alarm.
https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/FilterAndPatternSyntax.html
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_logs as logs
from constructs import Construct

from contract import ingestion_events as events
from monitoring.dashboard_widgets import GRAPH_WIDTH, ROW_HEIGHT
from monitoring.observability_parts import Contribution, DashboardRow, Monitor, MonitorScope, PagedAlarms

FAILED_DOCUMENTS = "FailedDocuments"
FAILED_JOBS = "FailedJobs"
# Ingestion jobs are rare events: one failed document in an hour is worth a look.
PERIOD = Duration.hours(1)

INGESTION_ROW = """### Ingestion
Per job (from the knowledge bases' APPLICATION_LOGS): documents added, modified, deleted, failed.
**Red**: a job failed or documents were not indexed. Run the saved query `ingestion-failed-documents`
(or `akb ingest --status`) for the documents and the reasons; fix the files or the data source and
sync again (docs/operations.md)."""


class IngestionMonitoring(Construct):
    """Props:
    - log_group: the tenant's ingestion log group.
    - namespace: metric namespace of the filters (`resource_names.ingestion_metric_namespace`).
    - name_prefix: prefix of alarm names, e.g. `akb-dev-acme`.
    - query_folder: Logs Insights folder of the saved query, e.g. `akb/dev/acme`.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        log_group: logs.ILogGroup,
        namespace: str,
        name_prefix: str,
        query_folder: str,
    ):
        super().__init__(scope, construct_id)
        self.log_group = log_group
        self.metrics = {
            FAILED_DOCUMENTS: self._filter(
                "FailedDocumentsFilter", namespace, FAILED_DOCUMENTS, events.failed_documents_pattern()
            ),
            FAILED_JOBS: self._filter("FailedJobsFilter", namespace, FAILED_JOBS, events.failed_jobs_pattern()),
        }
        self.alarms = {
            FAILED_DOCUMENTS: self._alarm(
                "FailedDocumentsAlarm",
                f"{name_prefix}-ingestion-failed-documents",
                self.metrics[FAILED_DOCUMENTS],
                "Documents of an ingestion job were not (fully) indexed: they are missing from answers.",
            ),
            FAILED_JOBS: self._alarm(
                "FailedJobsAlarm",
                f"{name_prefix}-ingestion-failed-jobs",
                self.metrics[FAILED_JOBS],
                "An ingestion job failed: the knowledge base still serves the content of the last good sync.",
            ),
        }
        self.failed_documents_query = logs.QueryDefinition(
            self,
            "FailedDocumentsQuery",
            query_definition_name=f"{query_folder}/ingestion-failed-documents",
            query_string=logs.QueryString(
                fields=list(events.FAILED_DOCUMENTS_QUERY_FIELDS),
                filter_statements=[events.FAILED_DOCUMENTS_QUERY_FILTER],
                sort="@timestamp desc",
                limit=200,
            ),
            log_groups=[log_group],
        )

    def _filter(self, construct_id: str, namespace: str, metric_name: str, pattern: str) -> cloudwatch.Metric:
        metric_filter = logs.MetricFilter(
            self,
            construct_id,
            log_group=self.log_group,
            filter_pattern=logs.FilterPattern.literal(pattern),
            metric_namespace=namespace,
            metric_name=metric_name,
            metric_value="1",
            default_value=0,
        )
        return metric_filter.metric(statistic="Sum", period=PERIOD, label=metric_name)

    def _alarm(self, construct_id: str, name: str, metric: cloudwatch.Metric, meaning: str) -> cloudwatch.Alarm:
        return cloudwatch.Alarm(
            self,
            construct_id,
            alarm_name=name,
            alarm_description=f"{meaning} Missing data is OK (notBreaching): no ingestion, no failure. "
            "Runbook: docs/operations.md (Ingestion).",
            metric=metric,
            threshold=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            evaluation_periods=1,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )

    def widgets(self) -> list[cloudwatch.IWidget]:
        """Failed documents and jobs over time, and each recent job's document counts."""
        return [
            cloudwatch.GraphWidget(
                title="Ingestion failures (per hour)",
                left=list(self.metrics.values()),
                width=GRAPH_WIDTH,
                height=ROW_HEIGHT,
            ),
            cloudwatch.LogQueryWidget(
                title="Ingestion jobs: documents added / modified / deleted / failed",
                log_group_names=[self.log_group.log_group_name],
                query_string=events.JOB_STATISTICS_QUERY,
                view=cloudwatch.LogQueryVisualizationType.TABLE,
                width=12,
                height=ROW_HEIGHT,
            ),
        ]


def ingestion_monitor(log_group: logs.ILogGroup, namespace: str) -> Monitor:
    """The ingestion feature's contribution: this construct under the tenant's observability (id
    `Ingestion`), its alarms into the composite and its row on the dashboard."""

    def build(at: MonitorScope) -> list[Contribution]:
        monitoring = IngestionMonitoring(
            at.scope,
            "Ingestion",
            log_group=log_group,
            namespace=namespace,
            name_prefix=at.name,
            query_folder=at.query_folder,
        )
        return [
            PagedAlarms(list(monitoring.alarms.values())),
            DashboardRow(INGESTION_ROW, lambda _thresholds: monitoring.widgets()),
        ]

    return Monitor(build)
