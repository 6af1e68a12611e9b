"""Per-tenant metrics in CloudWatch's embedded metric format (Powertools), written per request.

Under the Web Adapter the process outlives requests, so nothing waits for a Lambda shutdown hook:
each request's EMF documents are written (one JSON line each) when it ends. Dimension sets are
exactly metric_names.DIMENSION_SETS: the request's numbers per Tenant (Errors included, 0 or 1),
and for a failed request a second document with `Errors` per Tenant and ErrorCode.
"""

from __future__ import annotations

import json
import sys
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


def _provider(dimensions: dict[str, str]) -> Any:
    from aws_lambda_powertools.metrics import EphemeralMetrics  # instance-local: safe per request

    metrics = EphemeralMetrics(namespace=names.NAMESPACE)
    # No implicit `service` dimension (powertools adds one only when `service` is truthy): dashboards
    # read exactly these dimensions.
    metrics.service = ""
    for name, value in dimensions.items():
        metrics.add_dimension(name=name, value=value)
    return metrics


def documents(tenant: str, outcome: RequestOutcome) -> list[dict[str, Any]]:
    """The EMF documents of one request."""
    metrics = _provider({names.TENANT_DIMENSION: tenant})
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
    out = [metrics.serialize_metric_set()]
    if outcome.error_code:
        errors = _provider({names.TENANT_DIMENSION: tenant, names.ERROR_CODE_DIMENSION: outcome.error_code})
        errors.add_metric(name=names.ERRORS, unit="Count", value=1)
        errors.add_metadata(key="correlation_id", value=outcome.correlation_id)
        out.append(errors.serialize_metric_set())
    return out


def write_stdout(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def emit(tenant: str, outcome: RequestOutcome, write: Callable[[str], None] = write_stdout) -> None:
    for document in documents(tenant, outcome):
        write(json.dumps(document, separators=(",", ":")))
