"""Per-tenant metrics in CloudWatch's embedded metric format, written per request.

Under the Web Adapter the process outlives requests, so nothing waits for a Lambda shutdown hook:
each request's EMF documents are written (one JSON line each) when it ends. Dimension sets are
exactly metric_names.DIMENSION_SETS: the request's numbers per Tenant (Errors included, 0 or 1),
and for a failed request a second document with `Errors` per Tenant and ErrorCode.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from contract import metric_names as names


@dataclass(frozen=True)
class RequestOutcome:
    correlation_id: str
    duration_ms: int
    error_code: str | None = None
    stop_reason: str | None = None  # complete | error | deadline | client_closed
    # Only for requests that streamed:
    streamed: bool = False
    time_to_first_event_ms: int | None = None
    iterations: int = 0
    sub_queries: int = 0
    results: int = 0
    distinct_documents: int = 0
    cited_results: int = 0
    guardrail_interventions: int = 0
    estimated_cost_usd: float | None = None


class MetricSet:
    """One EMF document: a namespace, one dimension set, metrics and metadata.

    The document's shape is the embedded metric format's (docs/facts-and-decisions.md: `_aws.Timestamp`
    in epoch milliseconds, `CloudWatchMetrics[]` with the namespace, the dimension set and each
    metric's name and unit, then the dimension values, the metric values and any other key at the
    top level, where CloudWatch keeps them as log fields). Written here instead of by Powertools'
    EphemeralMetrics, which built the same documents: its import cost the cold start more than
    these few lines (bench/RESULTS.md). No implicit `service` dimension: dashboards read exactly
    metric_names.DIMENSION_SETS.
    """

    def __init__(self, dimensions: dict[str, str]) -> None:
        self.dimensions = dimensions
        self.units: dict[str, str] = {}
        self.values: dict[str, list[float]] = {}
        self.metadata: dict[str, Any] = {}

    def add_metric(self, name: str, unit: str, value: float) -> None:
        self.units[name] = unit
        self.values.setdefault(name, []).append(float(value))

    def add_metadata(self, key: str, value: Any) -> None:
        self.metadata[key] = value

    def document(self) -> dict[str, Any]:
        directive = {
            "Namespace": names.NAMESPACE,
            "Dimensions": [list(self.dimensions)],
            "Metrics": [{"Name": name, "Unit": unit} for name, unit in self.units.items()],
        }
        aws = {"Timestamp": int(time.time() * 1000), "CloudWatchMetrics": [directive]}
        return {"_aws": aws, **self.dimensions, **self.values, **self.metadata}


def documents(tenant: str, outcome: RequestOutcome) -> list[dict[str, Any]]:
    """The EMF documents of one request."""
    metrics = MetricSet({names.TENANT_DIMENSION: tenant})
    metrics.add_metric(name=names.REQUESTS, unit="Count", value=1)
    metrics.add_metric(name=names.DURATION_MS, unit="Milliseconds", value=outcome.duration_ms)
    # Errors under [Tenant] on every request (0 or 1): the error-rate alarm divides it by Requests.
    metrics.add_metric(name=names.ERRORS, unit="Count", value=int(outcome.error_code is not None))
    # Every request (0 or 1): a deadline passing before the first event counts as much as one mid-stream.
    metrics.add_metric(name=names.DEADLINE_STOPS, unit="Count", value=int(outcome.stop_reason == "deadline"))
    if outcome.streamed:
        for name, value in (
            (names.ITERATIONS, outcome.iterations),
            (names.SUB_QUERIES, outcome.sub_queries),
            (names.RESULTS, outcome.results),
            (names.DISTINCT_DOCUMENTS, outcome.distinct_documents),
            (names.CITED_RESULTS, outcome.cited_results),
            (names.GUARDRAIL_INTERVENTIONS, outcome.guardrail_interventions),
        ):
            metrics.add_metric(name=name, unit="Count", value=value)
        if outcome.time_to_first_event_ms is not None:
            metrics.add_metric(
                name=names.TIME_TO_FIRST_EVENT_MS, unit="Milliseconds", value=outcome.time_to_first_event_ms
            )
        if outcome.estimated_cost_usd is not None:
            metrics.add_metric(name=names.ESTIMATED_COST_USD, unit="None", value=outcome.estimated_cost_usd)
    metrics.add_metadata(key="correlation_id", value=outcome.correlation_id)
    out = [metrics.document()]
    if outcome.error_code:
        errors = MetricSet({names.TENANT_DIMENSION: tenant, names.ERROR_CODE_DIMENSION: outcome.error_code})
        errors.add_metric(name=names.ERRORS, unit="Count", value=1)
        errors.add_metadata(key="correlation_id", value=outcome.correlation_id)
        out.append(errors.document())
    return out


def write_stdout(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def emit(tenant: str, outcome: RequestOutcome, write: Callable[[str], None] = write_stdout) -> None:
    for document in documents(tenant, outcome):
        write(json.dumps(document, separators=(",", ":")))
