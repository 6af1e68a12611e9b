"""The environment's CloudWatch dashboard: Bedrock's account-level metrics, the quota, one row per tenant.

Bedrock's AgenticRetrieveStream metrics exist per account and region only (dimension Operation);
its Retrieve metrics exist per knowledge base only (Operation AND KnowledgeBaseId), so this
dashboard sums them with a SEARCH over every knowledge base (tenant dashboards show each one).
The per-tenant rows read the endpoints' own EMF metrics (dimension Tenant).
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-observability.html
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from contract import metric_names as names
from monitoring.dashboard_widgets import (
    GRAPH_WIDTH,
    ROW_HEIGHT,
    TEXT_WIDTH,
    explained_row,
    graph,
    row_widget,
    titled_dashboard,
)
from monitoring.metric_catalogue import (
    QUOTA_PERIOD,
    RAW_DATA_SIZE_PERIOD,
    BedrockMetrics,
    EndpointMetrics,
    agentic_calls_per_minute,
    endpoint_requests_per_minute,
)
from schema.alarm_config import AccountThresholds

BEDROCK = """### Bedrock (whole account)
Calls, client errors (4xx), server errors (5xx) and **throttles** (429s, not counted as errors) for
AgenticRetrieveStream and Retrieve (summed over every knowledge base), from every caller in this
account and region. An empty AgenticRetrieveStream line with traffic on the endpoints means Bedrock
published no agentic series here: the quota row still counts the endpoints' requests.

**Throttles red**: the account hit a Bedrock quota; see the quota row, then raise the quota
(docs/operations.md) or find the tenant whose requests jumped."""

ITERATIONS = """### Iterations (whole account)
Bedrock's `TotalIterationCount` per AgenticRetrieveStream call, published only for calls that
**succeeded**, under every dimension set it appears with (which one Bedrock uses is not documented:
`akb verify` reports it); the tenants' rows show the endpoints' own iterations, the authoritative count.

**Red**: an iteration blow-up is a cost blow-up. Find the tenant in the rows below (its own
iterations graph), then check its knowledge bases were ingested."""

QUOTA = """### Quota
AgenticRetrieveStream calls per minute against the account's quota (`quota.agentic_requests_per_minute`)
and the alarm line (`alarms.quota_utilization_percent`). The alarm reads the larger of the
endpoints' own requests (all tenants) and Bedrock's Invocations series.

**Near the line**: request a quota increase before callers see throttling (docs/operations.md)."""


STORAGE = """### Index storage (whole account)
**RawDataSize** (GB, Maximum per hour) of every knowledge base in the account, published by Bedrock
after each completed ingestion job, and what it costs at the environment's `pricing`.

**Red** (unexpected growth): a data source syncs more than intended (inclusion prefixes, crawl scope)."""


class EnvironmentDashboard(Construct):
    """One CloudWatch dashboard per environment.

    Props:
    - dashboard_name: e.g. `akb-dev`.
    - tenants: the tenant names deployed in the environment (one summary row each).
    - thresholds: the account-level thresholds, drawn as lines.
    - tenant_dashboard_names: tenant -> its dashboard's name, linked from its row; default none.
    - alarms: shown in an alarm status widget; default none.
    - index_storage_price_per_gb_month: USD per GB-month for the storage estimate; default 5.0.
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
        index_storage_price_per_gb_month: float = 5.0,
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
        self.dashboard.add_widgets(
            explained_row(
                ITERATIONS,
                [
                    graph(
                        "TotalIterationCount (every dimension set)",
                        [
                            *(
                                bedrock.candidates(names.BEDROCK_TOTAL_ITERATION_COUNT, statistic=s, label=s)
                                for s in ("Average", "p50", "p90", "Maximum")
                            ),
                            bedrock.search_every_dimension_set(names.BEDROCK_TOTAL_ITERATION_COUNT, "Average"),
                        ],
                        lines=[
                            ("average alarm", thresholds.iterations_average),
                            ("p90 alarm", thresholds.iterations_p90),
                        ],
                        width=GRAPH_WIDTH * 3,
                    ),
                ],
            )
        )
        self.dashboard.add_widgets(explained_row(QUOTA, _quota_widgets(tenants, thresholds)))
        self.dashboard.add_widgets(explained_row(STORAGE, _storage_widgets(bedrock, index_storage_price_per_gb_month)))
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
    """Each counter twice: AgenticRetrieveStream (Operation only) and Retrieve (SEARCH over all KBs)."""

    def both(metric_name: str, kind: str) -> list[cloudwatch.IMetric]:
        return [
            bedrock.metric_agentic(metric_name, label=f"AgenticRetrieveStream {kind}"),
            bedrock.search_retrieve(metric_name, label=f"Retrieve {kind} (all knowledge bases)"),
        ]

    return [
        graph("Invocations", both(names.BEDROCK_INVOCATIONS, "calls")),
        graph(
            "Client and server errors",
            both(names.BEDROCK_CLIENT_ERRORS, "4xx") + both(names.BEDROCK_SERVER_ERRORS, "5xx"),
        ),
        graph(
            "Throttles",
            [
                *both(names.BEDROCK_THROTTLES, "throttles"),
                bedrock.search_every_dimension_set(names.BEDROCK_THROTTLES, "Sum"),
            ],
            lines=[("alarm", thresholds.bedrock_throttles)],
        ),
    ]


def _quota_widgets(tenants: Sequence[str], thresholds: AccountThresholds) -> list[cloudwatch.IWidget]:
    """What the quota alarm reads, its two inputs, and the share of the quota it is."""
    bedrock_calls = BedrockMetrics().metric_agentic_calls_per_minute()
    calls = agentic_calls_per_minute(tenants) if tenants else bedrock_calls
    inputs = [endpoint_requests_per_minute(tenants), bedrock_calls] if tenants else []
    alarm_line = (f"alarm ({thresholds.quota_utilization_percent:g}%)", thresholds.quota_alarm_calls_per_minute)
    return [
        graph(
            "AgenticRetrieveStream calls per minute",
            [calls, *inputs],
            lines=[("quota", thresholds.quota_per_minute), alarm_line],
            period=QUOTA_PERIOD,
            width=GRAPH_WIDTH * 2,
        ),
        graph(
            "Quota used %",
            [
                cloudwatch.MathExpression(
                    expression=f"100 * calls / {thresholds.quota_per_minute}",
                    using_metrics={"calls": calls},
                    label="% of quota",
                    period=QUOTA_PERIOD,
                )
            ],
            period=QUOTA_PERIOD,
            width=GRAPH_WIDTH,
        ),
    ]


def _storage_widgets(bedrock: BedrockMetrics, price_per_gb_month: float) -> list[cloudwatch.IWidget]:
    """Every knowledge base's RawDataSize (SEARCH), and the account's storage estimate."""
    sizes = bedrock.search_raw_data_size()
    return [
        graph(
            "Index size per knowledge base (RawDataSize, GB)",
            [sizes],
            period=RAW_DATA_SIZE_PERIOD,
            width=GRAPH_WIDTH * 2,
        ),
        graph(
            "Index storage estimate (USD per month)",
            [
                cloudwatch.MathExpression(
                    expression=f"{price_per_gb_month:g} * SUM(sizes)",
                    using_metrics={"sizes": sizes},
                    label=f"USD / month at ${price_per_gb_month:g}/GB-month",
                    period=RAW_DATA_SIZE_PERIOD,
                )
            ],
            period=RAW_DATA_SIZE_PERIOD,
            width=GRAPH_WIDTH,
        ),
    ]
