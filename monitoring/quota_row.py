"""Fair sharing's row on the tenant dashboard (docs/quota.md): the tenant's agentic requests against its share.

A contribution of the quota feature (features/quota_feature.py), placed right after the endpoint
function's row: the decision is part of what the endpoint itself does. The environment dashboard shows
every tenant side by side (monitoring/quota_monitoring.py).
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch

from contract import metric_names as names
from monitoring.dashboard_widgets import GRAPH_WIDTH, ROW_HEIGHT, graph
from monitoring.metric_catalogue import QUOTA_PERIOD, EndpointMetrics
from monitoring.observability_parts import DashboardRow

QUOTA = """### Share of the agentic quota
Agentic requests **admitted** per minute against the tenant's guaranteed share and burst limit (above
the guarantee: **borrowed** idle capacity), `auto` requests answered with Retrieve instead
(**degraded**) and agentic requests **refused** (429 `tenant_quota_exceeded`); the quota table's
round trips and latency per decision, and decisions taken without it (**fallback**).

**Red**: degraded or refused while others are idle means the burst limit is low; steadily at the
guarantee means the share is too small; fallbacks mean the quota table is unreachable (docs/quota.md)."""


def quota_row(tenant: str, guaranteed: float, burst: float) -> DashboardRow:
    return DashboardRow(
        QUOTA, lambda _thresholds: quota_widgets(EndpointMetrics(tenant), guaranteed, burst), placement="usage"
    )


def quota_widgets(m: EndpointMetrics, guaranteed: float, burst: float) -> list[cloudwatch.IWidget]:
    def per_minute(name: str, label: str, **kwargs: str) -> cloudwatch.Metric:
        return m.metric(name, statistic="Sum", label=label, period=QUOTA_PERIOD, **kwargs)

    return [
        graph(
            "Agentic requests / minute",
            [per_minute(names.QUOTA_ADMITTED, "admitted"), per_minute(names.QUOTA_BORROWED, "borrowed")],
            lines=[("guaranteed", guaranteed), ("burst limit", burst)],
            period=QUOTA_PERIOD,
        ),
        graph(
            "Over its share / minute",
            [
                per_minute(names.QUOTA_DEGRADED, "degraded to Retrieve"),
                per_minute(names.ERRORS, "refused (429)", error_code="tenant_quota_exceeded"),
                per_minute(names.QUOTA_FALLBACK, "decided without the table"),
            ],
            period=QUOTA_PERIOD,
        ),
        cloudwatch.GraphWidget(
            title="Quota decision: round trips and latency",
            left=[m.metric(names.QUOTA_ROUND_TRIPS, statistic="Average", label="round trips / decision")],
            right=[m.metric(names.QUOTA_CHECK_MS, statistic="p95", label="decision p95 (ms)")],
            width=GRAPH_WIDTH,
            height=ROW_HEIGHT,
        ),
    ]
