"""The result cache's row on the tenant dashboard (docs/cache.md): hit rate, outcomes, refusals, hit latency.

A contribution of the cache feature (features/cache_feature.py), placed right after the endpoint
function's row: the cache is part of what the endpoint itself does.
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch

from contract import metric_names as names
from monitoring.dashboard_widgets import GRAPH_WIDTH, ROW_HEIGHT, graph
from monitoring.metric_catalogue import EndpointMetrics
from monitoring.observability_parts import DashboardRow

CACHE = """### Result cache
**Hit rate** (hits / lookups), lookups by outcome (**bypass**: asked by the request, or a content
version could not be read), entries refused because the content changed (**stale**) or the
caller's access re-check did not pass (**ACL denied**), and the latency of hits (docs/cache.md).

**Spike** in misses or **Red** hit rate: ingestion ran (a new version invalidates every entry of
that knowledge base) or the strategy changed (a deploy). **Rising** bypass: the role cannot read
ingestion jobs, or throttling. Rising ACL denied: permissions changed (expected after a revocation)."""


def cache_row(tenant: str) -> DashboardRow:
    """The row for `tenant`'s endpoint metrics (dimension Tenant)."""
    return DashboardRow(CACHE, lambda _thresholds: cache_widgets(EndpointMetrics(tenant)), placement="usage")


def cache_widgets(m: EndpointMetrics) -> list[cloudwatch.IWidget]:
    return [
        graph("Cache hit rate %", [m.metric_cache_hit_rate()]),
        graph(
            "Cache lookups by outcome",
            [
                m.metric(names.CACHE_HITS, statistic="Sum", label="hits"),
                m.metric(names.CACHE_MISSES, statistic="Sum", label="misses"),
                m.metric(names.CACHE_BYPASS, statistic="Sum", label="bypass"),
            ],
        ),
        cloudwatch.GraphWidget(
            title="Entries refused, and hit latency",
            left=[
                m.metric(names.STALE_REJECTED, statistic="Sum", label="stale (content changed)"),
                m.metric(names.ACL_RECHECK_DENIED, statistic="Sum", label="ACL re-check denied"),
            ],
            right=[m.metric(names.CACHE_HIT_LATENCY_MS, statistic="p95", label="hit latency p95 (ms)")],
            width=GRAPH_WIDTH,
            height=ROW_HEIGHT,
        ),
    ]
