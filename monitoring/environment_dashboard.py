"""The environment's CloudWatch dashboard: Bedrock's account-level metrics, the quota, one row per tenant.

Bedrock's knowledge-base metrics exist per account and region only (dimension Operation), so the
per-tenant rows read the endpoints' own EMF metrics (dimension Tenant) instead.
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-observability.html
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from lambdas.endpoint import metric_names as names
from monitoring.dashboard_widgets import (
    GRAPH_WIDTH,
    ROW_HEIGHT,
    TEXT_WIDTH,
    explained_row,
    graph,
    row_widget,
    titled_dashboard,
)
from monitoring.metric_catalogue import BedrockMetrics, EndpointMetrics
from schema.alarm_config import AccountThresholds

BEDROCK = """### Bedrock (whole account)
Calls, client errors (4xx), server errors (5xx) and **throttles** (429s, not counted as errors) for
AgenticRetrieveStream and Retrieve, from every caller in this account and region.

**Throttles red**: the account hit a Bedrock quota; see the quota row, then raise the quota
(docs/operations.md) or find the tenant whose requests jumped."""

ITERATIONS = """### Iterations (whole account)
Bedrock's `TotalIterationCount` per AgenticRetrieveStream call, published only for calls that
**succeeded**.

**Red**: an iteration blow-up is a cost blow-up. Find the tenant in the rows below (its own
iterations graph), then check its knowledge bases were ingested."""

QUOTA = """### Quota
AgenticRetrieveStream calls per minute against the account's quota (`bedrock_quota_per_minute`)
and the alarm line (`alarms.quota_utilization_percent`).

**Near the line**: request a quota increase before callers see throttling (docs/operations.md)."""


class EnvironmentDashboard(Construct):
    """One CloudWatch dashboard per environment.

    Props:
    - dashboard_name: e.g. `akb-dev`.
    - tenants: the tenant names deployed in the environment (one summary row each).
    - thresholds: the account-level thresholds, drawn as lines.
    - tenant_dashboard_names: tenant -> its dashboard's name, linked from its row; default none.
    - alarms: shown in an alarm status widget; default none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        dashboard_name: str,
        tenants: Sequence[str],
        thresholds: AccountThresholds,
        tenant_dashboard_names: dict[str, str] | None = None,
        alarms: Sequence[cloudwatch.IAlarm] = (),
    ):
        super().__init__(scope, construct_id)
        bedrock = BedrockMetrics()
        self.dashboard = titled_dashboard(
            self,
            dashboard_name,
            f"# Environment `{dashboard_name}`\nBedrock's account-level metrics, the "
            "AgenticRetrieveStream quota, and one row per tenant.",
        )
        self.dashboard.add_widgets(explained_row(BEDROCK, _bedrock_widgets(bedrock, thresholds)))
        self.dashboard.add_widgets(explained_row(ITERATIONS, _iteration_widgets(bedrock, thresholds)))
        self.dashboard.add_widgets(explained_row(QUOTA, _quota_widgets(bedrock, thresholds)))
        for tenant in tenants:
            self.dashboard.add_widgets(self._tenant_row(tenant, (tenant_dashboard_names or {}).get(tenant)))
        if alarms:
            self.dashboard.add_widgets(
                cloudwatch.AlarmStatusWidget(
                    title="Account alarms",
                    alarms=list(alarms),
                    width=24,
                    height=ROW_HEIGHT // 2,
                )
            )

    @staticmethod
    def _tenant_row(tenant: str, dashboard: str | None) -> cloudwatch.IWidget:
        m = EndpointMetrics(tenant)
        link = f"\n\nDetails: dashboard `{dashboard}`." if dashboard else ""
        return row_widget(
            cloudwatch.Row(
                cloudwatch.TextWidget(
                    markdown=f"### Tenant `{tenant}`{link}", width=TEXT_WIDTH, height=ROW_HEIGHT // 2
                ),
                cloudwatch.SingleValueWidget(
                    title=f"{tenant}: requests, errors, TTFE p95, cost in the time range",
                    metrics=[
                        m.metric_requests(),
                        m.metric_errors(),
                        m.metric_time_to_first_event("p95"),
                        m.metric_estimated_cost(period=Duration.days(1), label="estimated USD"),
                    ],
                    set_period_to_time_range=True,
                    width=24 - TEXT_WIDTH,
                    height=ROW_HEIGHT // 2,
                ),
            )
        )


def _bedrock_widgets(bedrock: BedrockMetrics, thresholds: AccountThresholds) -> list[cloudwatch.IWidget]:
    each_operation = names.BEDROCK_OPERATIONS
    return [
        graph("Invocations", [bedrock.metric(names.BEDROCK_INVOCATIONS, op) for op in each_operation]),
        graph(
            "Client and server errors",
            [
                bedrock.metric(metric_name, op, label=f"{op} {kind}")
                for metric_name, kind in (
                    (names.BEDROCK_CLIENT_ERRORS, "4xx"),
                    (names.BEDROCK_SERVER_ERRORS, "5xx"),
                )
                for op in each_operation
            ],
        ),
        graph(
            "Throttles",
            [bedrock.metric_throttles(op) for op in each_operation],
            lines=[("alarm", thresholds.bedrock_throttles)],
        ),
    ]


def _iteration_widgets(bedrock: BedrockMetrics, thresholds: AccountThresholds) -> list[cloudwatch.IWidget]:
    return [
        graph(
            "TotalIterationCount (AgenticRetrieveStream)",
            [bedrock.metric_total_iteration_count(s) for s in ("Average", "p50", "p90", "Maximum")],
            lines=[
                ("average alarm", thresholds.iterations_average),
                ("p90 alarm", thresholds.iterations_p90),
            ],
            width=GRAPH_WIDTH * 3,
        ),
    ]


def _quota_widgets(bedrock: BedrockMetrics, thresholds: AccountThresholds) -> list[cloudwatch.IWidget]:
    per_minute = bedrock.metric_agentic_calls_per_minute()
    alarm_line = (f"alarm ({thresholds.quota_utilization_percent:g}%)", thresholds.quota_alarm_calls_per_minute)
    return [
        graph(
            "AgenticRetrieveStream calls per minute",
            [per_minute],
            lines=[("quota", thresholds.quota_per_minute), alarm_line],
            period=Duration.minutes(1),
            width=GRAPH_WIDTH * 2,
        ),
        graph(
            "Quota used %",
            [
                cloudwatch.MathExpression(
                    expression=f"100 * calls / {thresholds.quota_per_minute}",
                    using_metrics={"calls": per_minute},
                    label="% of quota",
                    period=Duration.minutes(1),
                )
            ],
            period=Duration.minutes(1),
            width=GRAPH_WIDTH,
        ),
    ]
