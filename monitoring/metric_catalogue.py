"""CloudWatch metrics of the endpoint (EMF, per tenant) and of Amazon Bedrock (per account), by name.

Dashboards and alarms never write a namespace, metric name or dimension themselves: they ask
`EndpointMetrics` / `BedrockMetrics`, which read `lambdas/endpoint/metric_names.py` — the module the
service emits with. A metric asked for with a dimension set the service does not emit is a synth
error, not an empty graph in production.

Endpoint metrics: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
Bedrock metrics: https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed-observability.html
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from lambdas.endpoint import metric_names as names

DEFAULT_PERIOD = Duration.minutes(5)


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
                f"{metric_name!r} is not an endpoint metric; use one of lambdas/endpoint/metric_names.py: "
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

    def metric_requests(self, *, period: Duration | None = None) -> cloudwatch.Metric:
        return self.metric(names.REQUESTS, statistic="Sum", label="requests", period=period)

    def metric_errors(self, *, period: Duration | None = None) -> cloudwatch.Metric:
        return self.metric(names.ERRORS, statistic="Sum", label="errors", period=period)

    def metric_iterations(self, statistic: str = "Average", *, period: Duration | None = None) -> cloudwatch.Metric:
        return self.metric(names.ITERATIONS, statistic=statistic, label=f"iterations {statistic}", period=period)

    def metric_time_to_first_event(
        self, statistic: str = "p95", *, period: Duration | None = None
    ) -> cloudwatch.Metric:
        return self.metric(names.TIME_TO_FIRST_EVENT_MS, statistic=statistic, label=f"TTFE {statistic}", period=period)

    def metric_deadline_stops(self, *, period: Duration | None = None) -> cloudwatch.Metric:
        return self.metric(names.DEADLINE_STOPS, statistic="Sum", label="deadline stops", period=period)

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
    """The account's knowledge-base metrics (namespace AWS/Bedrock/KnowledgeBases, dimension Operation)."""

    AGENTIC = "AgenticRetrieveStream"
    RETRIEVE = "Retrieve"

    def __init__(self, *, period: Duration = DEFAULT_PERIOD):
        self.period = period

    def metric(
        self,
        metric_name: str,
        operation: str,
        *,
        statistic: str = "Sum",
        period: Duration | None = None,
        label: str | None = None,
    ) -> cloudwatch.Metric:
        operations = names.BEDROCK_METRIC_OPERATIONS.get(metric_name)
        if operations is None:
            raise ValueError(f"{metric_name!r} is not a Bedrock knowledge-base metric in metric_names.py")
        if operation not in operations:
            raise ValueError(f"Bedrock publishes {metric_name} only for {', '.join(operations)}, not {operation}")
        return cloudwatch.Metric(
            namespace=names.BEDROCK_KB_NAMESPACE,
            metric_name=metric_name,
            dimensions_map={names.BEDROCK_OPERATION_DIMENSION: operation},
            statistic=statistic,
            period=period or self.period,
            label=label or f"{operation} {statistic}",
        )

    def metric_total_iteration_count(
        self, statistic: str = "Average", *, period: Duration | None = None
    ) -> cloudwatch.Metric:
        return self.metric(names.BEDROCK_TOTAL_ITERATION_COUNT, self.AGENTIC, statistic=statistic, period=period)

    def metric_throttles(self, operation: str, *, period: Duration | None = None) -> cloudwatch.Metric:
        return self.metric(names.BEDROCK_THROTTLES, operation, statistic="Sum", period=period)

    def metric_agentic_calls_per_minute(self) -> cloudwatch.Metric:
        """The rate the account's AgenticRetrieveStream quota (requests per minute) is counted in."""
        return self.metric(
            names.BEDROCK_INVOCATIONS,
            self.AGENTIC,
            statistic="Sum",
            period=Duration.minutes(1),
            label="AgenticRetrieveStream calls / minute",
        )
