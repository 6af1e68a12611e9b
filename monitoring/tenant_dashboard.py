"""A tenant's CloudWatch dashboard: the endpoint's own metrics, its function, its guardrail, its alarms.

Each row starts with a text widget saying what the row shows and what to do when it turns red, so
an on-call engineer who has never seen the tenant can act on it.
https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Dashboards.html
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from contract import metric_names as names
from monitoring.dashboard_widgets import GRAPH_WIDTH, ROW_HEIGHT, explained_row, graph, titled_dashboard
from monitoring.metric_catalogue import RAW_DATA_SIZE_PERIOD, BedrockMetrics, EndpointMetrics
from monitoring.observability_parts import DashboardRow, RowPlacement
from schema.alarm_config import TenantThresholds

TRAFFIC = """### Traffic and errors
Requests and the requests that ended with an **error**, by code (codes: the endpoint's
`lambdas/endpoint/api_errors.py`).

**Red** (error rate alarm): open *errors by code*. `throttled` or a quota code -> the environment
dashboard's Bedrock and quota rows; `upstream_access_denied`/`upstream_not_found` -> a role, knowledge
base or guardrail changed outside CDK (`cdk diff`); 4xx codes -> a caller sends bad requests.
Then run the saved query *errors-by-code*."""

LATENCY = """### Latency
**Time to first event** (what a caller waits before anything streams) and total **duration**;
**deadline stops** are requests cut off at the configured deadline.

**Red**: compare with Bedrock's Invocations/Throttles on the environment dashboard (retries before
the first byte add latency); run *slowest-requests*; check the function's duration below."""

PLANNER = """### Planner work (cost drivers)
**Iterations** per request (p50/p90/max), **sub-queries**, distinct **documents** retrieved and
results **cited** in the answer.

**Red** (iterations alarm): the planner keeps searching. Check that ingestion ran (empty or stale
knowledge bases), the knowledge-base descriptions, and *frequent-sub-queries*; lower
`retrieval.max_agent_iteration` to cap the cost."""

COST = """### Estimated cost
`EstimatedCostUSD`, the endpoint's estimate from the environment's `pricing` (agentic calls +
underlying Retrieve calls). An estimate, not the bill: Cost Explorer has the truth.

**Rising**: look at requests (more traffic) and iterations/sub-queries (more work per request)."""

FUNCTION = """### Endpoint function
Lambda invocations, **errors** (crashes, timeouts), **throttles**, concurrency against the
**reserved concurrency** line, and duration.

**Red**: throttles -> reserved concurrency exhausted: raise `reserved_concurrency` or find the
caller that bursts; errors -> the function's log group (timeouts: raise `endpoint.timeout_seconds`)."""

KNOWLEDGE = """### Knowledge bases (Bedrock, per knowledge base)
Bedrock's own **Retrieve** counters for each of this tenant's knowledge bases (Operation=Retrieve,
KnowledgeBaseId=`knowledge-base/<id>`: the only Retrieve series Bedrock publishes), and each
knowledge base's indexed size (**RawDataSize**, GB, Maximum per hour, published after each ingestion).
AgenticRetrieveStream calls have no per-knowledge-base series: see the environment dashboard.

**Red** (throttles): Retrieve's quota is per knowledge base; spread load or request an increase.
**Size flat at zero**: ingestion never completed (`akb ingest`, the data source's last job)."""

GUARDRAIL = """### Guardrail and alarms
Requests in which the guardrail **intervened** (zero if the tenant has no guardrail), and the
state of this tenant's alarms.

**Spike**: someone probes denied topics, or the guardrail is too strict for normal questions:
read the matching `trace` records (saved query *request-trace*)."""


class TenantDashboard(Construct):
    """One CloudWatch dashboard per tenant.

    Props:
    - function: the endpoint function (any `IFunction`).
    - tenant: the tenant name (the `Tenant` dimension).
    - dashboard_name: e.g. `akb-dev-acme`.
    - thresholds: drawn as horizontal lines where an alarm watches the same metric.
    - reserved_concurrency: drawn on the concurrency graph; default none (no line).
    - alarms: shown in an alarm status widget; default none.
    - rows: the tenant features' rows (monitoring/observability_parts.py), each where its `placement`
      says: `usage` after the function row, `end` after the guardrail and alarms row; default none.
    - knowledge_bases: alias -> knowledge-base id (tokens are fine); adds the knowledge-base row;
      default none (no row).
    - index_storage_price_per_gb_month: USD per GB-month of index storage, for the storage estimate;
      default 5.0 (environment `pricing`).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        function: lambda_.IFunction,
        tenant: str,
        dashboard_name: str,
        thresholds: TenantThresholds,
        reserved_concurrency: int | None = None,
        alarms: Sequence[cloudwatch.IAlarm] = (),
        rows: Sequence[DashboardRow] = (),
        knowledge_bases: Mapping[str, str] | None = None,
        index_storage_price_per_gb_month: float = 5.0,
    ):
        super().__init__(scope, construct_id)
        m = EndpointMetrics(tenant)
        self.dashboard = titled_dashboard(
            self,
            dashboard_name,
            f"# Tenant `{tenant}`\nEndpoint metrics are the service's own (namespace "
            f"`{names.NAMESPACE}`, dimension `{names.TENANT_DIMENSION}={tenant}`).",
        )
        self._endpoint_rows(m, thresholds)
        self._function_row(function, reserved_concurrency)
        self._feature_rows(rows, "usage", thresholds)
        if knowledge_bases:
            self._row(
                KNOWLEDGE,
                knowledge_base_widgets(knowledge_bases, thresholds.bedrock_throttles, index_storage_price_per_gb_month),
            )
        self._row(
            GUARDRAIL,
            [
                graph(
                    "Guardrail interventions",
                    [m.metric(names.GUARDRAIL_INTERVENTIONS, statistic="Sum", label="interventions")],
                ),
                cloudwatch.AlarmStatusWidget(title="Alarms", alarms=list(alarms), width=12, height=ROW_HEIGHT),
            ],
        )
        self._feature_rows(rows, "end", thresholds)

    def _feature_rows(self, rows: Sequence[DashboardRow], placement: RowPlacement, t: TenantThresholds) -> None:
        for row in rows:
            if row.placement == placement:
                self._row(row.text, list(row.widgets(t)))

    def _endpoint_rows(self, m: EndpointMetrics, thresholds: TenantThresholds) -> None:
        """Traffic, latency, planner work and cost: the endpoint's own EMF metrics."""
        self._traffic_and_latency_rows(m, thresholds)
        self._planner_and_cost_rows(m, thresholds)

    def _traffic_and_latency_rows(self, m: EndpointMetrics, thresholds: TenantThresholds) -> None:
        self._row(
            TRAFFIC,
            [
                graph("Requests and errors", [m.metric_requests(), m.metric_errors()]),
                graph(
                    "Error rate %", [m.metric_error_rate()], lines=[("error rate alarm", thresholds.error_rate_percent)]
                ),
                graph("Errors by code", [m.metric_errors_by_code()]),
            ],
        )
        self._row(
            LATENCY,
            [
                graph(
                    "Time to first event (ms)",
                    [m.metric_time_to_first_event(s) for s in ("p50", "p95", "p99")],
                    lines=[("p95 alarm", thresholds.time_to_first_event_p95_ms)],
                ),
                graph(
                    "Duration (ms)",
                    [m.metric(names.DURATION_MS, statistic=s, label=f"duration {s}") for s in ("p50", "p95", "p99")],
                ),
                graph("Deadline stops", [m.metric_deadline_stops()], lines=[("alarm", thresholds.deadline_stops)]),
            ],
        )

    def _planner_and_cost_rows(self, m: EndpointMetrics, thresholds: TenantThresholds) -> None:
        self._row(
            PLANNER,
            [
                graph(
                    "Iterations per request",
                    [m.metric_iterations(s) for s in ("p50", "p90", "Maximum")] + [m.metric_iterations("Average")],
                    lines=[("average alarm", thresholds.iterations_average)],
                ),
                graph(
                    "Sub-queries per request",
                    [
                        m.metric(names.SUB_QUERIES, statistic=s, label=f"sub-queries {s}")
                        for s in ("Average", "p90", "Maximum")
                    ],
                ),
                graph(
                    "Documents and citations per request",
                    [
                        m.metric(names.DISTINCT_DOCUMENTS, statistic="Average", label="distinct documents"),
                        m.metric(names.CITED_RESULTS, statistic="Average", label="cited results"),
                        m.metric(names.RESULTS, statistic="Average", label="results"),
                    ],
                ),
            ],
        )
        self._row(
            COST,
            [
                graph(
                    "Estimated cost per hour (USD)",
                    [m.metric_estimated_cost(period=Duration.hours(1), label="USD / hour")],
                    period=Duration.hours(1),
                ),
                graph(
                    "Estimated cost per day (USD)",
                    [m.metric_estimated_cost(period=Duration.days(1), label="USD / day")],
                    period=Duration.days(1),
                ),
                cloudwatch.SingleValueWidget(
                    title="Estimated cost in the time range (USD)",
                    metrics=[m.metric_estimated_cost(period=Duration.days(1), label="USD")],
                    set_period_to_time_range=True,
                    width=GRAPH_WIDTH,
                    height=ROW_HEIGHT,
                ),
            ],
        )

    def _function_row(self, function: lambda_.IFunction, reserved_concurrency: int | None) -> None:
        """The function's own Lambda metrics, with the reserved concurrency drawn as a line."""
        concurrency_lines = [("reserved concurrency", reserved_concurrency)] if reserved_concurrency else []
        self._row(
            FUNCTION,
            [
                graph(
                    "Invocations, errors, throttles",
                    [
                        function.metric_invocations(statistic="Sum", label="invocations"),
                        function.metric_errors(statistic="Sum", label="errors"),
                        function.metric_throttles(statistic="Sum", label="throttles"),
                    ],
                ),
                graph(
                    "Concurrency",
                    [function.metric("ConcurrentExecutions", statistic="Maximum", label="concurrent executions (max)")],
                    lines=concurrency_lines,
                ),
                graph(
                    "Function duration (ms)",
                    [function.metric_duration(statistic=s, label=f"duration {s}") for s in ("p50", "p95", "Maximum")],
                ),
            ],
        )

    def _row(self, text: str, widgets: list[cloudwatch.IWidget]) -> None:
        self.dashboard.add_widgets(explained_row(text, widgets))


def knowledge_base_widgets(
    knowledge_bases: Mapping[str, str], throttles_alarm: float, price_per_gb_month: float
) -> list[cloudwatch.IWidget]:
    """Per knowledge base: Retrieve calls; Retrieve errors and throttles; RawDataSize and what it costs."""
    bedrock = BedrockMetrics()
    counters = names.BEDROCK_CLIENT_ERRORS, names.BEDROCK_SERVER_ERRORS, names.BEDROCK_THROTTLES
    sizes = {
        f"size{i}": bedrock.metric_raw_data_size(kb_id, label=f"{alias} GB")
        for i, (alias, kb_id) in enumerate(knowledge_bases.items())
    }
    storage = cloudwatch.MathExpression(
        # The index storage estimate: indexed GB x the environment's price per GB-month.
        expression=f"{price_per_gb_month:g} * SUM([" + ", ".join(f"FILL({key}, 0)" for key in sizes) + "])",
        using_metrics=sizes,
        label=f"index storage, USD per month at ${price_per_gb_month:g}/GB-month",
        period=RAW_DATA_SIZE_PERIOD,
    )
    return [
        graph(
            "Retrieve calls per knowledge base",
            [
                bedrock.metric_retrieve(names.BEDROCK_INVOCATIONS, kb_id, label=alias)
                for alias, kb_id in knowledge_bases.items()
            ],
        ),
        graph(
            "Retrieve errors and throttles per knowledge base",
            [
                bedrock.metric_retrieve(counter, kb_id, label=f"{alias} {counter}")
                for alias, kb_id in knowledge_bases.items()
                for counter in counters
            ],
            lines=[("throttles alarm (sum)", throttles_alarm)],
        ),
        cloudwatch.GraphWidget(
            title="Index size (RawDataSize, GB; right: storage USD / month)",
            left=list(sizes.values()),
            right=[storage],
            width=GRAPH_WIDTH,
            height=ROW_HEIGHT,
            period=RAW_DATA_SIZE_PERIOD,
        ),
    ]
