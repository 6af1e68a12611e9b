"""A tenant's REST API (the `api_gateway` front door) on its dashboard and in its composite alarm.

API Gateway publishes per stage in namespace `AWS/ApiGateway` with dimensions ApiName + Stage (the
API's name, not its id: REST APIs have no ApiId dimension; that one is HTTP/WebSocket APIs'). The
stage-level set is what aws-cdk-lib's `Stage.metric_*` read, so the metrics here match it. Requests
the function never saw show up only here: IAM signature refusals (403), stage throttling (429: there
is no separate throttle metric, a 429 is one 4XXError) and integration failures (5XX).
https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-metrics-and-dimensions.html

The alarms have no actions of their own: they join the tenant's composite (monitoring/alarms.py
`extra_specs`), so an API incident pages once per tenant like every other tenant alarm.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch

from monitoring.alarms import GT, IDLE_IS_FINE, AlarmSpec
from monitoring.dashboard_widgets import graph
from monitoring.observability_parts import AlarmSpecs, Contribution, DashboardRow
from schema.alarm_config import TenantThresholds

NAMESPACE = "AWS/ApiGateway"
COUNT, CLIENT_ERRORS, SERVER_ERRORS, LATENCY, INTEGRATION_LATENCY = (
    "Count",
    "4XXError",
    "5XXError",
    "Latency",
    "IntegrationLatency",
)

API_ROW = """### API Gateway (front door)
The tenant's REST API stage: **requests**, **4XX** (IAM signature refused = 403, stage throttling =
429; both never reach the function) and **5XX** (integration failed), **latency** p99 and
**integration latency** p99 (the function's part; the rest is API Gateway's).

**Red**: 5XX -> the function row below and its log group; 4XX rate -> the access log group
`/akb/<env>/<tenant>/api-access` (`status`, `caller`): 429s mean raise `api_gateway.throttling`,
403s a caller without `execute-api:Invoke` or a wrong signature (docs/front-door.md)."""


@dataclass(frozen=True)
class ApiMetrics:
    """One REST API stage's metrics. `api_name` is the API's name (`RestApi.rest_api_name`), `stage`
    the stage name (cdk_constructs/api_front_door.STAGE)."""

    api_name: str
    stage: str
    period_minutes: int = 5

    def metric(self, metric_name: str, statistic: str, *, label: str | None = None) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace=NAMESPACE,
            metric_name=metric_name,
            dimensions_map={"ApiName": self.api_name, "Stage": self.stage},
            statistic=statistic,
            period=Duration.minutes(self.period_minutes),
            label=label,
        )

    def requests(self) -> cloudwatch.Metric:
        # The page: "The SampleCount statistic represents this metric" (aws-cdk-lib's metricCount agrees).
        return self.metric(COUNT, "SampleCount", label="requests")

    def client_errors(self) -> cloudwatch.Metric:
        return self.metric(CLIENT_ERRORS, "Sum", label="4XX")

    def client_error_rate(self) -> cloudwatch.Metric:
        """4XXError's Average is the rate (4XX / Count) as a fraction, per the page."""
        return self.metric(CLIENT_ERRORS, "Average", label="4XX rate (fraction)")

    def server_errors(self) -> cloudwatch.Metric:
        return self.metric(SERVER_ERRORS, "Sum", label="5XX")

    def latency_p99(self) -> cloudwatch.Metric:
        return self.metric(LATENCY, "p99", label="latency p99")

    def integration_latency_p99(self) -> cloudwatch.Metric:
        return self.metric(INTEGRATION_LATENCY, "p99", label="integration latency p99")


def api_alarm_specs(metrics: ApiMetrics, thresholds: TenantThresholds) -> list[AlarmSpec]:
    """5XX above the tenant's `function_errors`; the 4XX rate above its `error_rate_percent`.

    The thresholds are the ones the same failures already use one layer down (the function's errors,
    the endpoint's error rate), so an API tenant needs no new configuration."""
    t = thresholds
    api = replace(metrics, period_minutes=t.period_minutes)
    return [
        AlarmSpec(
            "api-5xx-errors",
            api.server_errors(),
            t.function_errors,
            GT,
            f"The tenant's REST API answered more than {t.function_errors} requests per period with a 5XX "
            "(integration failure, function error or timeout).",
            IDLE_IS_FINE,
        ),
        AlarmSpec(
            "api-4xx-rate",
            api.client_error_rate(),
            t.error_rate_percent / 100,
            GT,
            f"More than {t.error_rate_percent:g}% of the REST API's requests got a 4XX: stage throttling "
            "(429), refused signatures (403) or bad requests; the first two never reach the function.",
            IDLE_IS_FINE,
        ),
    ]


def api_widgets(metrics: ApiMetrics, thresholds: TenantThresholds) -> list[cloudwatch.IWidget]:
    """Requests; 4XX and 5XX counts (with the 5XX alarm line); latency and integration latency p99."""
    return [
        graph("API requests", [metrics.requests()]),
        graph(
            "API 4XX / 5XX",
            [metrics.client_errors(), metrics.server_errors()],
            lines=[("5XX alarm", thresholds.function_errors)],
        ),
        graph("API latency p99 (ms)", [metrics.latency_p99(), metrics.integration_latency_p99()]),
    ]


def api_observability(metrics: ApiMetrics) -> list[Contribution]:
    """The front door feature's contribution for an `api_gateway` tenant: the API's alarms (into the
    composite) and its row at the end of the tenant dashboard."""
    return [
        AlarmSpecs(lambda thresholds: api_alarm_specs(metrics, thresholds)),
        DashboardRow(API_ROW, lambda thresholds: api_widgets(metrics, thresholds)),
    ]
