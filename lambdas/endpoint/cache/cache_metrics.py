"""The cache's EMF document per request (metric names: metric_names.py), beside request_metrics.py's.

Written only while the tenant's cache is on (an `off` request adds nothing), under exactly the
[Tenant] dimension set like every other endpoint metric.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from contract import metric_names as names
from lambdas.endpoint import request_metrics


def document(tenant: str, correlation_id: str, outcome: str, *, stale: bool, acl_denied: bool, duration_ms: int) -> Any:
    metrics = request_metrics.MetricSet({names.TENANT_DIMENSION: tenant})
    for name, value in (
        (names.CACHE_HITS, outcome == "hit"),
        (names.CACHE_MISSES, outcome == "miss"),
        (names.CACHE_BYPASS, outcome == "bypass"),
        (names.STALE_REJECTED, stale),
        (names.ACL_RECHECK_DENIED, acl_denied),
    ):
        metrics.add_metric(name=name, unit="Count", value=int(value))
    if outcome == "hit":
        metrics.add_metric(name=names.CACHE_HIT_LATENCY_MS, unit="Milliseconds", value=duration_ms)
    metrics.add_metadata(key="correlation_id", value=correlation_id)
    return metrics.document()


def emit(tenant: str, correlation_id: str, decision: Any, duration_ms: int, write: Callable[[str], None]) -> None:
    if decision is None or decision.outcome == "off":
        return
    body = document(
        tenant,
        correlation_id,
        decision.outcome,
        stale=decision.stale,
        acl_denied=decision.acl_denied,
        duration_ms=duration_ms,
    )
    write(json.dumps(body, separators=(",", ":")))
