"""The one end of every request: its `done` event, its `done` log record and its metrics, written here only.

Every path ends by calling `finish` once — a streamed answer (from the source or the cache, however
it stopped: complete, partial, error, deadline, client gone), a request refused before its first
event (a 4xx/5xx answer), a client that hung up before its first event or in the middle of sending
its body. The run's numbers come from one `RunStats` snapshot, returned by the upstream that
produced the events (run_stats.py), so the event, the record and the metrics cannot disagree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contract import log_fields as lf
from contract.enums import StopReason
from contract.events import DoneEvent, MemoryUse
from lambdas.endpoint import request_metrics as metrics
from lambdas.endpoint.logs import RequestLog
from lambdas.endpoint.run_stats import RunStats

if TYPE_CHECKING:
    from lambdas.endpoint.conversation import MemoryOutcome
    from lambdas.endpoint.request import Query
    from lambdas.endpoint.service import Service


def ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


@dataclass
class RequestRecord:
    """One request as `finish` needs it: filled in step by step as the pipeline gets further."""

    correlation_id: str
    log: RequestLog
    started: float  # time.monotonic() when it arrived
    query: Query | None = None  # once the body was accepted
    memory: MemoryOutcome | None = None  # with a sessionId: how the turn was bound
    first_event_ms: int | None = None  # when the first event went out


@dataclass(frozen=True)
class Ending:
    """How the request ended. `stats` is None when no upstream was opened; `streamed` when the
    request was accepted and its upstream call started (its numbers are then reported, zero or not)."""

    stop_reason: StopReason
    error_code: str | None = None
    stats: RunStats | None = None
    streamed: bool = True
    detail: str | None = None  # for the log record only


def finish(service: Service, record: RequestRecord, ending: Ending) -> DoneEvent:
    """Writes the `done` log record and the metrics; returns the `done` event (sent when streaming)."""
    duration = ms_since(record.started)
    stats = ending.stats or RunStats()
    mode = stats.mode or (record.query.mode if record.query is not None else None)
    cache = stats.cache
    record.log.info(lf.EVENT_DONE, **_done_fields(record, ending, stats, duration, mode))
    tenant = service.settings.tenant
    metrics.emit(tenant, _outcome(record, ending, stats, duration), service.write_metrics)
    if cache is not None and cache.outcome != "off" and ending.streamed:
        from lambdas.endpoint.cache import cache_metrics  # only tenants with a cache get here

        cache_metrics.emit(tenant, record.correlation_id, cache, duration, service.write_metrics)
    if stats.quota is not None and ending.streamed:
        from lambdas.endpoint.quota import quota_metrics  # only tenants with fair sharing get here

        quota_metrics.emit(tenant, record.correlation_id, stats.quota, stats.degraded, service.write_metrics)
    return DoneEvent(
        requestId=record.correlation_id,
        stopReason=ending.stop_reason,
        # Anything short of the whole answer says so: never a partial answer that looks complete.
        partial=True if ending.stop_reason != "complete" else None,
        failedKnowledgeBases=list(stats.failed_knowledge_bases),
        iterations=stats.iterations,
        durationMs=duration,
        timeToFirstEventMs=record.first_event_ms,
        mode=mode or "agentic",
        estimatedCostUsd=stats.estimated_cost_usd,
        estimatedCostExcludesPlannerModel=stats.cost_excludes_planner_model or None,
        cache=cache.outcome if cache is not None else "off",
        nextToken=_sealed_next_token(service, record.query, stats.next_token),
        cacheReason=cache.reason if cache is not None and cache.outcome == "bypass" else None,
        memory=_memory_use(record.memory),
        degraded=stats.degraded,
    )


def _sealed_next_token(service: Service, query: Query | None, token: str | None) -> str | None:
    """Bedrock's page token sealed to the request it continues (page_tokens.py); never handed out bare."""
    if token is None or query is None or query.page_binding is None:
        return None
    return service.page_tokens.seal(token, query.page_binding)


def _done_fields(record: RequestRecord, ending: Ending, stats: RunStats, duration: int, mode: str | None) -> Any:
    fields: dict[str, Any] = {
        lf.EVENT: lf.EVENT_DONE,
        lf.STOP_REASON: ending.stop_reason,
        lf.ITERATIONS: stats.iterations,
        lf.DURATION_MS: duration,
        "error_code": ending.error_code,
        "detail": ending.detail,
    }
    if not ending.streamed:  # refused or abandoned before any upstream call: nothing else to report
        return fields
    return fields | {
        lf.TIME_TO_FIRST_EVENT_MS: record.first_event_ms,
        "mode": mode,  # auto: the path it took
        "sub_query_count": stats.sub_queries,
        "result_count": stats.results,
        "distinct_documents": stats.distinct_documents,
        "cited_results": stats.cited_results,
        "guardrail_interventions": stats.guardrail_interventions,
        "estimated_cost_usd": stats.estimated_cost_usd,
        "estimated_cost_excludes_planner_model": stats.cost_excludes_planner_model,
        "upstream_request_id": stats.upstream_request_id,
        "failed_knowledge_bases": list(stats.failed_knowledge_bases) or None,
        "cache": "hit" if stats.cache is not None and stats.cache.outcome == "hit" else None,
        "degraded": stats.degraded,
    }


def _outcome(record: RequestRecord, ending: Ending, stats: RunStats, duration: int) -> metrics.RequestOutcome:
    if not ending.streamed:
        return metrics.RequestOutcome(
            correlation_id=record.correlation_id,
            duration_ms=duration,
            error_code=ending.error_code,
            stop_reason=ending.stop_reason,
        )
    return metrics.RequestOutcome(
        correlation_id=record.correlation_id,
        duration_ms=duration,
        error_code=ending.error_code,
        streamed=True,
        stop_reason=ending.stop_reason,
        time_to_first_event_ms=record.first_event_ms,
        iterations=stats.iterations,
        sub_queries=stats.sub_queries,
        results=stats.results,
        distinct_documents=stats.distinct_documents,
        cited_results=stats.cited_results,
        guardrail_interventions=stats.guardrail_interventions,
        estimated_cost_usd=stats.estimated_cost_usd,
    )


def _memory_use(memory: MemoryOutcome | None) -> MemoryUse | None:
    """`done.memory`: the session this turn was bound to, or why it was not (None: no sessionId sent)."""
    if memory is None:
        return None
    binding = memory.binding
    if binding is None:
        return MemoryUse(unbound=memory.unbound_reason)
    return MemoryUse(sessionId=binding.session_id, persistence=binding.persistence.lower())
