"""The tenant's MCP gateway on its dashboard and in its composite alarm (docs/agents.md).

AgentCore's own metrics for the gateway (monitoring/metric_catalogue.py `GatewayMetrics`) and the
interceptor function's Lambda errors. Contributions of the gateway feature (features/gateway_feature.py):
the alarms join the tenant's composite, the row goes after the guardrail and alarms row.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_

from monitoring.alarms import ABSENT_MEANS_ZERO, GT, IDLE_IS_FINE, AlarmSpec
from monitoring.dashboard_widgets import graph
from monitoring.metric_catalogue import GatewayMetrics
from monitoring.observability_parts import AlarmSpecs, Contribution, DashboardRow
from schema.alarm_config import TenantThresholds

GATEWAY = """### MCP gateway
Tool calls through the tenant's AgentCore Gateway (AgentCore's metrics for this gateway, every
dimension set it publishes): invocations, **user errors** (4xx: includes calls the interceptor
refused), **system errors** (5xx), **throttles** (the per-caller rate limit) and **latency** by tool.

**Red** (gateway alarms): system errors -> AgentCore or the target (check the gateway's target status);
throttles -> a caller over its rate limit; interceptor errors -> its log group (every call is refused
while it fails)."""


def gateway_observability(metrics: GatewayMetrics, interceptor: lambda_.IFunction) -> list[Contribution]:
    """The gateway's alarms (into the composite) and its dashboard row."""
    return [
        AlarmSpecs(lambda thresholds: gateway_alarm_specs(metrics, interceptor, thresholds)),
        DashboardRow(GATEWAY, lambda _thresholds: gateway_widgets(metrics)),
    ]


def gateway_widgets(g: GatewayMetrics) -> list[cloudwatch.IWidget]:
    return [
        graph("Tool calls", [g.search(GatewayMetrics.INVOCATIONS)]),
        graph("User errors / system errors", [g.search(g.USER_ERRORS), g.search(g.SYSTEM_ERRORS)]),
        graph("Throttles", [g.search(GatewayMetrics.THROTTLES)]),
        graph("Latency p95 (ms)", [g.search(GatewayMetrics.LATENCY, "p95")]),
    ]


def gateway_alarm_specs(
    metrics: GatewayMetrics, interceptor: lambda_.IFunction, thresholds: TenantThresholds
) -> list[AlarmSpec]:
    """The tenant's MCP gateway: AgentCore's own error and throttle counts, and its interceptor's failures."""
    t, period = thresholds, Duration.minutes(thresholds.period_minutes)
    return [
        AlarmSpec(
            "gateway-system-errors",
            metrics.metric_total(GatewayMetrics.SYSTEM_ERRORS),
            t.function_errors,
            GT,
            f"The MCP gateway answered more than {t.function_errors} tool calls per period with a 5xx.",
            ABSENT_MEANS_ZERO,
        ),
        AlarmSpec(
            "gateway-throttles",
            metrics.metric_total(GatewayMetrics.THROTTLES),
            t.function_throttles,
            GT,
            f"The MCP gateway throttled more than {t.function_throttles} tool calls per period (the "
            "per-caller rate limit or AgentCore's quota).",
            ABSENT_MEANS_ZERO,
        ),
        AlarmSpec(
            "gateway-interceptor-errors",
            interceptor.metric_errors(period=period, statistic="Sum"),
            t.function_errors,
            GT,
            f"The gateway's interceptor failed more than {t.function_errors} times per period: tool calls "
            "are refused (it fails closed).",
            IDLE_IS_FINE,
        ),
    ]
