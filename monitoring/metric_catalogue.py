"""CloudWatch metrics of the endpoint (EMF, per tenant) and of Amazon Bedrock (per account), by name.

Dashboards and alarms never write a namespace, metric name or dimension themselves: they ask
`EndpointMetrics` / `BedrockMetrics`, which read `contract/metric_names.py` — the module the
service emits with. A metric asked for with a dimension set the service does not emit is a synth
error, not an empty graph in production.

Endpoint metrics: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
Bedrock metrics: https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-observability.html
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from contract import metric_names as names

DEFAULT_PERIOD = Duration.minutes(5)
# The account's AgenticRetrieveStream quota is counted per minute.
QUOTA_PERIOD = Duration.minutes(1)
# RawDataSize is published once per ingestion job; AWS's metrics notebook reads Maximum over 1 hour.
RAW_DATA_SIZE_PERIOD = Duration.hours(1)
# CloudWatch: a metric-math alarm references at most 10 metrics, a hard limit (alarm-limits page).
MAX_ALARM_METRICS = 10


class EndpointMetrics:
    """One tenant's endpoint metrics (namespace AgenticRetrieval, dimension Tenant)."""

    def __init__(self, tenant: str, *, period: Duration = DEFAULT_PERIOD):
        self.tenant = tenant
        self.period = period

    def metric(
        self,
        metric_name: str,
        *,
        statistic: str = "Sum",
        label: str | None = None,
        period: Duration | None = None,
        error_code: str | None = None,
    ) -> cloudwatch.Metric:
        dimensions = {names.TENANT_DIMENSION: self.tenant}
        if error_code is not None:
            dimensions[names.ERROR_CODE_DIMENSION] = error_code
        emitted = names.DIMENSION_SETS.get(metric_name)
        if emitted is None:
            raise ValueError(
                f"{metric_name!r} is not an endpoint metric; use one of contract/metric_names.py: "
                + ", ".join(sorted(names.DIMENSION_SETS))
            )
        if tuple(dimensions) not in emitted:
            raise ValueError(
                f"{metric_name} is not emitted with dimensions {tuple(dimensions)}; it is emitted with "
                f"{list(emitted)} (metric_names.DIMENSION_SETS)"
            )
        return cloudwatch.Metric(
            namespace=names.NAMESPACE,
            metric_name=metric_name,
            dimensions_map=dimensions,
            statistic=statistic,
            label=label,
            period=period or self.period,
        )

    def metric_requests(self, **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.REQUESTS, statistic="Sum", label="requests", **kwargs)

    def metric_errors(self, **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.ERRORS, statistic="Sum", label="errors", **kwargs)

    def metric_iterations(self, statistic: str = "Average", **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.ITERATIONS, statistic=statistic, label=f"iterations {statistic}", **kwargs)

    def metric_time_to_first_event(self, statistic: str = "p95", **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.TIME_TO_FIRST_EVENT_MS, statistic=statistic, label=f"TTFE {statistic}", **kwargs)

    def metric_deadline_stops(self, **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.DEADLINE_STOPS, statistic="Sum", label="deadline stops", **kwargs)

    def metric_estimated_cost(self, *, period: Duration, label: str) -> cloudwatch.Metric:
        return self.metric(names.ESTIMATED_COST_USD, statistic="Sum", label=label, period=period)

    def metric_error_rate(self, *, period: Duration | None = None) -> cloudwatch.MathExpression:
        """Errors / Requests in percent. No requests -> no data point (idle is not an error)."""
        period = period or self.period
        return cloudwatch.MathExpression(
            # FILL: Errors has no data point in a period without errors; that period's rate is 0.
            expression="100 * FILL(errors, 0) / requests",
            using_metrics={
                "errors": self.metric_errors(period=period),
                "requests": self.metric_requests(period=period),
            },
            label="error rate %",
            period=period,
        )

    def metric_cache_hit_rate(self, *, period: Duration | None = None) -> cloudwatch.MathExpression:
        """CacheHits / (CacheHits + CacheMisses) in percent; bypassed and `off` requests are not lookups."""
        period = period or self.period
        return cloudwatch.MathExpression(
            expression="100 * hits / (hits + misses)",
            using_metrics={
                "hits": self.metric(names.CACHE_HITS, statistic="Sum", period=period),
                "misses": self.metric(names.CACHE_MISSES, statistic="Sum", period=period),
            },
            label="hit rate %",
            period=period,
        )

    def metric_errors_by_code(self, *, period: Duration | None = None) -> cloudwatch.MathExpression:
        """One line per error code the service has emitted (a SEARCH over the Tenant+ErrorCode set)."""
        period = period or self.period
        schema = f"{{{names.NAMESPACE},{names.TENANT_DIMENSION},{names.ERROR_CODE_DIMENSION}}}"
        query = f'{schema} MetricName="{names.ERRORS}" {names.TENANT_DIMENSION}="{self.tenant}"'
        return cloudwatch.MathExpression(
            expression=f"SEARCH('{query}', 'Sum', {int(period.to_seconds())})",
            label="",
            period=period,
        )


class BedrockMetrics:
    """Amazon Bedrock's knowledge-base metrics (namespace AWS/Bedrock/KnowledgeBases), only as published.

    Retrieve's counters exist per knowledge base (Operation=Retrieve AND KnowledgeBaseId=
    `knowledge-base/<id>`): read them per knowledge base (`metric_retrieve`) or, where the ids are not
    known (the environment dashboard), with a SEARCH over every knowledge base (`search_retrieve`).
    AgenticRetrieveStream's counters and TotalIterationCount carry Operation only. RawDataSize
    (gigabytes) carries KnowledgeBaseId only. Asking for any other dimension set is a synth error.
    """

    AGENTIC = names.BEDROCK_AGENTIC
    RETRIEVE = names.BEDROCK_RETRIEVE

    def __init__(self, *, period: Duration = DEFAULT_PERIOD):
        self.period = period

    def metric(
        self,
        metric_name: str,
        operation: str | None,
        *,
        knowledge_base_id: str | None = None,
        statistic: str = "Sum",
        period: Duration | None = None,
        label: str | None = None,
    ) -> cloudwatch.Metric:
        dimensions: dict[str, str] = {}
        if operation is not None:
            dimensions[names.BEDROCK_OPERATION_DIMENSION] = operation
        if knowledge_base_id is not None:
            dimensions[names.BEDROCK_KNOWLEDGE_BASE_DIMENSION] = (
                names.BEDROCK_KNOWLEDGE_BASE_VALUE_PREFIX + knowledge_base_id
            )
        published = names.BEDROCK_SERIES.get((metric_name, operation))
        if published is None:
            raise ValueError(
                f"Bedrock publishes no {metric_name!r} series for Operation={operation}; published: "
                + ", ".join(f"{m} ({op or 'no Operation'})" for m, op in names.BEDROCK_SERIES)
            )
        if set(dimensions) != set(published):
            raise ValueError(
                f"Bedrock publishes {metric_name} (Operation={operation}) with dimensions {list(published)}, "
                f"not {list(dimensions)}: pass knowledge_base_id exactly when the series carries "
                f"{names.BEDROCK_KNOWLEDGE_BASE_DIMENSION} (contract/metric_names.py BEDROCK_SERIES)"
            )
        return cloudwatch.Metric(
            namespace=names.BEDROCK_KB_NAMESPACE,
            metric_name=metric_name,
            dimensions_map=dimensions,
            statistic=statistic,
            period=period or self.period,
            label=label or f"{operation or metric_name} {statistic}",
        )

    def metric_total_iteration_count(self, statistic: str = "Average", **kwargs: Any) -> cloudwatch.Metric:
        return self.metric(names.BEDROCK_TOTAL_ITERATION_COUNT, self.AGENTIC, statistic=statistic, **kwargs)

    def candidates(
        self,
        metric_name: str,
        *,
        statistic: str,
        label: str,
        absent_is_zero: bool = False,
        also: Sequence[cloudwatch.IMetric] = (),
    ) -> cloudwatch.MathExpression:
        """`metric_name` under every Operation it may be published with, account-wide, read together (MAX),
        so an alarm or graph has data whichever dimension set Bedrock uses (fact 6). Unlike `metric`, this
        asks for series no source confirms, on purpose. `also`: more series read with them (the endpoints'
        own, the authoritative ones); at most MAX_ALARM_METRICS in all."""
        tag = f"{metric_name}_{statistic}".lower()  # ids stay unique when one graph shows several statistics
        using: dict[str, cloudwatch.IMetric] = {
            f"{tag}_op{index}": cloudwatch.Metric(
                namespace=names.BEDROCK_KB_NAMESPACE,
                metric_name=metric_name,
                dimensions_map={names.BEDROCK_OPERATION_DIMENSION: operation},
                statistic=statistic,
                period=self.period,
                label=f"Operation={operation} {statistic}",
            )
            for index, operation in enumerate(names.BEDROCK_CANDIDATE_OPERATIONS)
        }
        using.update({f"{tag}_own{index}": metric for index, metric in enumerate(also)})
        if len(using) > MAX_ALARM_METRICS:
            raise ValueError(f"candidates reads at most {MAX_ALARM_METRICS} series (an alarm's limit)")
        terms = [f"FILL({key}, 0)" if absent_is_zero else key for key in using]
        return cloudwatch.MathExpression(
            expression=f"MAX([{', '.join(terms)}])", using_metrics=using, label=label, period=self.period
        )

    def search_every_dimension_set(
        self, metric_name: str, statistic: str, *, period: Duration | None = None
    ) -> cloudwatch.MathExpression:
        """One line per dimension set `metric_name` is published with in the account (dashboards only)."""
        period = period or self.period
        query = f'{{{names.BEDROCK_KB_NAMESPACE}}} MetricName="{metric_name}"'
        return cloudwatch.MathExpression(
            expression=f"SEARCH('{query}', '{statistic}', {int(period.to_seconds())})", label="", period=period
        )

    def metric_agentic(self, metric_name: str, **kwargs: Any) -> cloudwatch.Metric:
        """An AgenticRetrieveStream counter (account and region; no per-knowledge-base series)."""
        return self.metric(metric_name, self.AGENTIC, **kwargs)

    def metric_retrieve(self, metric_name: str, knowledge_base_id: str, **kwargs: Any) -> cloudwatch.Metric:
        """A Retrieve counter of one knowledge base (`knowledge_base_id`: the bare id, may be a token)."""
        return self.metric(metric_name, self.RETRIEVE, knowledge_base_id=knowledge_base_id, **kwargs)

    def metric_raw_data_size(self, knowledge_base_id: str, *, label: str) -> cloudwatch.Metric:
        """Indexed size in GB, published after each completed ingestion job: Maximum over 1 hour,
        as AWS's metrics notebook reads it (a sparse series; the latest point is the current size)."""
        return self.metric(
            names.BEDROCK_RAW_DATA_SIZE,
            None,
            knowledge_base_id=knowledge_base_id,
            statistic="Maximum",
            period=RAW_DATA_SIZE_PERIOD,
            label=label,
        )

    def metric_retrieve_sum(
        self, metric_name: str, knowledge_base_ids: Sequence[str], *, label: str, period: Duration | None = None
    ) -> cloudwatch.MathExpression:
        """One Retrieve counter summed over the given knowledge bases (alarms cannot use SEARCH).

        FILL(…, 0): Bedrock publishes ClientErrors/ServerErrors/Throttles only when they happen.
        """
        if not knowledge_base_ids or len(knowledge_base_ids) > MAX_ALARM_METRICS:
            raise ValueError(f"metric_retrieve_sum takes 1 to {MAX_ALARM_METRICS} knowledge bases")
        period = period or self.period
        using = {
            f"kb{i}": self.metric_retrieve(metric_name, kb_id, period=period)
            for i, kb_id in enumerate(knowledge_base_ids)
        }
        return cloudwatch.MathExpression(
            expression="SUM([" + ", ".join(f"FILL({key}, 0)" for key in using) + "])",
            using_metrics=using,
            label=label,
            period=period,
        )

    def search_retrieve(
        self, metric_name: str, *, label: str, period: Duration | None = None
    ) -> cloudwatch.MathExpression:
        """A Retrieve counter summed over every knowledge base in the account (dashboards only)."""
        period = period or self.period
        dimensions = f"{names.BEDROCK_KNOWLEDGE_BASE_DIMENSION},{names.BEDROCK_OPERATION_DIMENSION}"
        schema = f"{{{names.BEDROCK_KB_NAMESPACE},{dimensions}}}"
        query = f'{schema} MetricName="{metric_name}" {names.BEDROCK_OPERATION_DIMENSION}="{self.RETRIEVE}"'
        return cloudwatch.MathExpression(
            expression=f"SUM(SEARCH('{query}', 'Sum', {int(period.to_seconds())}))",
            label=label,
            period=period,
        )

    def search_raw_data_size(self) -> cloudwatch.MathExpression:
        """RawDataSize of every knowledge base in the account, one line each (dashboards only)."""
        schema = f"{{{names.BEDROCK_KB_NAMESPACE},{names.BEDROCK_KNOWLEDGE_BASE_DIMENSION}}}"
        query = f'{schema} MetricName="{names.BEDROCK_RAW_DATA_SIZE}"'
        return cloudwatch.MathExpression(
            expression=f"SEARCH('{query}', 'Maximum', {int(RAW_DATA_SIZE_PERIOD.to_seconds())})",
            label="",
            period=RAW_DATA_SIZE_PERIOD,
        )

    def metric_agentic_calls_per_minute(self) -> cloudwatch.Metric:
        """Bedrock's own count of AgenticRetrieveStream calls, per minute (the quota's unit)."""
        return self.metric_agentic(
            names.BEDROCK_INVOCATIONS,
            statistic="Sum",
            period=QUOTA_PERIOD,
            label="Bedrock: AgenticRetrieveStream calls / minute",
        )


def endpoint_requests_per_minute(tenants: Sequence[str]) -> cloudwatch.IMetric:
    """Every tenant's endpoint requests per minute, summed (the endpoints' own EMF count).

    Metric math over each tenant's `Requests` while the alarm stays within CloudWatch's 10 metrics
    per metric-math alarm (one slot is Bedrock's series); beyond that a Metrics Insights query over
    the same namespace, the remedy CloudWatch's alarm limits page names.
    """
    return tenants_sum_per_minute(tenants, names.REQUESTS, "endpoints: requests / minute (all tenants)")


def tenants_sum_per_minute(tenants: Sequence[str], metric_name: str, label: str) -> cloudwatch.IMetric:
    """One endpoint metric (dimension Tenant) summed over `tenants` per minute: metric math over each
    tenant's series below MAX_ALARM_METRICS (leaving one slot for another series), else a Metrics Insights
    query over the namespace."""
    if not tenants:
        raise ValueError("a sum over tenants needs at least one tenant")
    if len(tenants) < MAX_ALARM_METRICS:
        using = {f"t{i}": EndpointMetrics(t).metric(metric_name, period=QUOTA_PERIOD) for i, t in enumerate(tenants)}
        return cloudwatch.MathExpression(
            expression="SUM([" + ", ".join(f"FILL({key}, 0)" for key in using) + "])",
            using_metrics=using,
            label=label,
            period=QUOTA_PERIOD,
        )
    EndpointMetrics(tenants[0]).metric(metric_name)  # refuses a name the endpoint does not emit per Tenant
    # A Metrics Insights query built from this module's own constants (no outside input): not an injection.
    query = f'SELECT SUM({metric_name}) FROM SCHEMA("{names.NAMESPACE}", {names.TENANT_DIMENSION})'  # noqa: S608
    return cloudwatch.MathExpression(expression=query, label=label, period=QUOTA_PERIOD)


def agentic_calls_per_minute(tenants: Sequence[str]) -> cloudwatch.MathExpression:
    """What the account's AgenticRetrieveStream quota alarm reads: the larger of the endpoints' own
    request count and Bedrock's Invocations series, per minute.

    The endpoints' count exists whether or not Bedrock publishes its agentic series (AWS's sample saw
    only Operation=Retrieve live, utils/kb_cost.py); Bedrock's series, when present, also counts
    callers outside these endpoints. MAX, not +: each endpoint request is itself one of Bedrock's calls.
    """
    return cloudwatch.MathExpression(
        expression="MAX([endpoints, FILL(bedrock, 0)])",
        using_metrics={
            "endpoints": endpoint_requests_per_minute(tenants),
            "bedrock": BedrockMetrics().metric_agentic_calls_per_minute(),
        },
        label="AgenticRetrieveStream calls / minute (max of endpoints and Bedrock)",
        period=QUOTA_PERIOD,
    )


class GatewayMetrics:
    """A tenant's MCP gateway metrics, published by AgentCore (namespace AWS/Bedrock-AgentCore).

    AgentCore's pages name the invocation metrics' dimensions differently (an older list: Operation =
    the MCP method, Resource, Name; the newer: Operation = InvokeGateway, Protocol, Method, Resource =
    the gateway ARN, Name = the tool), and aws-cdk-lib's gateway metrics read a third, gateway-level
    set (Operation = InvokeGateway, Protocol, Resource). Alarms cannot SEARCH, so `metric_total`
    takes the larger of the per-tool sum (newer set) and the gateway-level series: it sees data
    whichever of the two AgentCore publishes, without counting a call twice. Dashboards use SEARCH on
    the gateway ARN (`search`), which shows every set that exists (docs/facts-and-decisions.md).
    https://docs.aws.amazon.com/bedrock-agentcore/latest/devguide/observability-gateway-metrics.html
    """

    NAMESPACE = "AWS/Bedrock-AgentCore"
    INVOCATIONS, THROTTLES, SYSTEM_ERRORS, USER_ERRORS, LATENCY = (
        "Invocations",
        "Throttles",
        "SystemErrors",
        "UserErrors",
        "Latency",
    )
    METRICS = (INVOCATIONS, THROTTLES, SYSTEM_ERRORS, USER_ERRORS, LATENCY)

    def __init__(self, gateway_arn: str, tools: list[str], *, period: Duration = DEFAULT_PERIOD):
        self.gateway_arn = gateway_arn
        self.tools = tools
        self.period = period

    def _check(self, metric_name: str) -> None:
        if metric_name not in self.METRICS:
            raise ValueError(f"{metric_name!r} is not a gateway metric ({', '.join(self.METRICS)})")

    def metric_tool(self, metric_name: str, tool: str, *, statistic: str = "Sum") -> cloudwatch.Metric:
        """One tool's `tools/call` metric, by the newer documented dimension set."""
        self._check(metric_name)
        if tool not in self.tools:
            raise ValueError(f"{tool!r} is not a tool of this gateway ({', '.join(self.tools)})")
        return cloudwatch.Metric(
            namespace=self.NAMESPACE,
            metric_name=metric_name,
            dimensions_map={
                "Operation": "InvokeGateway",
                "Protocol": "MCP",
                "Method": "tools/call",
                "Resource": self.gateway_arn,
                "Name": tool,
            },
            statistic=statistic,
            period=self.period,
            label=f"{tool} {metric_name}",
        )

    def metric_gateway(self, metric_name: str, *, statistic: str = "Sum") -> cloudwatch.Metric:
        """The gateway-level series, by aws-cdk-lib's dimension set (GatewayBase.metric)."""
        self._check(metric_name)
        return cloudwatch.Metric(
            namespace=self.NAMESPACE,
            metric_name=metric_name,
            dimensions_map={"Operation": "InvokeGateway", "Protocol": "MCP", "Resource": self.gateway_arn},
            statistic=statistic,
            period=self.period,
            label=f"gateway {metric_name}",
        )

    def metric_total(self, metric_name: str) -> cloudwatch.MathExpression:
        """All the gateway's calls, for alarms (plain metric math, no SEARCH): the larger of the sum
        over its tools and the gateway-level series, whichever dimension set AgentCore publishes."""
        metrics: dict[str, cloudwatch.IMetric] = {
            f"t{i}": self.metric_tool(metric_name, tool) for i, tool in enumerate(self.tools)
        }
        metrics["g"] = self.metric_gateway(metric_name)
        tools = " + ".join(f"FILL(t{i}, 0)" for i in range(len(self.tools)))
        return cloudwatch.MathExpression(
            expression=f"MAX([{tools}, FILL(g, 0)])",
            using_metrics=metrics,
            label=f"gateway {metric_name}",
            period=self.period,
        )

    def search(self, metric_name: str, statistic: str = "Sum") -> cloudwatch.MathExpression:
        """Every series of `metric_name` for this gateway, whatever its dimensions (dashboards only)."""
        self._check(metric_name)
        query = f'Namespace="{self.NAMESPACE}" MetricName="{metric_name}" "{self.gateway_arn}"'
        return cloudwatch.MathExpression(
            expression=f"SEARCH('{query}', '{statistic}', {int(self.period.to_seconds())})",
            label="",
            period=self.period,
        )
