"""Fair sharing's EMF document per request that needed an agentic call (metric names: metric_names.py).

Written by `finish` beside request_metrics.py's, under exactly the [Tenant] dimension set like every
other endpoint metric, only while fair sharing is on. A refused request (429) has no upstream and no
such document: it is `Errors` with ErrorCode `tenant_quota_exceeded`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from contract import metric_names as names
from lambdas.endpoint import request_metrics
from lambdas.endpoint.run_stats import QuotaUse


def document(tenant: str, correlation_id: str, use: QuotaUse, degraded: str | None) -> Any:
    metrics = request_metrics.MetricSet({names.TENANT_DIMENSION: tenant})
    for name, value in (
        (names.QUOTA_ADMITTED, use.path in ("guaranteed", "borrowed")),
        (names.QUOTA_BORROWED, use.path == "borrowed"),
        (names.QUOTA_DEGRADED, degraded == "quota"),
        (names.QUOTA_FALLBACK, use.fallback),
    ):
        metrics.add_metric(name=name, unit="Count", value=int(value))
    metrics.add_metric(name=names.QUOTA_ROUND_TRIPS, unit="Count", value=use.round_trips)
    metrics.add_metric(name=names.QUOTA_CHECK_MS, unit="Milliseconds", value=use.check_ms)
    metrics.add_metadata(key="correlation_id", value=correlation_id)
    return metrics.document()


def emit(tenant: str, correlation_id: str, use: QuotaUse, degraded: str | None, write: Callable[[str], None]) -> None:
    write(json.dumps(document(tenant, correlation_id, use, degraded), separators=(",", ":")))
