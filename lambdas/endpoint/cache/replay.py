"""Serving a hit: the same event contract as a run, from the stored entry, with no upstream call.

A hit streams a first `trace` (step `CacheHit`, with the entry's age in seconds and the version
key it was made for), then the stored `text` and `result` events as they were, then `done` with
`cache: "hit"`, the original stop reason (an `iteration_limit` answer stays labelled as possibly
incomplete), zero iterations and zero estimated cost (nothing was called upstream). Logs and
metrics are those of any request, plus the cache's own document.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable

from contract import log_fields as lf
from contract.events import DoneEvent, ResultEvent, TraceEvent, event_from_dict
from lambdas.endpoint import request_metrics as metrics
from lambdas.endpoint.cache import cache_metrics
from lambdas.endpoint.cache.entry import CachedEntry
from lambdas.endpoint.cache.result_cache import Decision
from lambdas.endpoint.encoding import Encoder
from lambdas.endpoint.logs import RequestLog

CACHE_HIT_STEP = "CacheHit"


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


def _entry_of(decision: Decision) -> CachedEntry:
    """A hit's entry (a decision is a hit only with one)."""
    if decision.entry is None:
        raise ValueError("a cache hit without an entry")
    return decision.entry


def hit_trace(decision: Decision, elapsed_ms: int, now: float) -> TraceEvent:
    entry = _entry_of(decision)
    age = max(0, int(now - entry.created_at))
    checked = f"; access re-checked for {decision.acl_checked} documents" if decision.acl_checked else ""
    return TraceEvent(
        step=CACHE_HIT_STEP,
        status="SUCCEEDED",
        elapsedMs=elapsed_ms,
        message=f"Served from the result cache: made {age} s ago for the current content versions{checked}",
        ageSeconds=age,
        keyVersion=decision.version_key,
    )


async def hit_events(
    tenant: str,
    write_metrics: Callable[[str], None],
    decision: Decision,
    log: RequestLog,
    cid: str,
    started: float,
    encoder: Encoder,
) -> AsyncIterator[bytes]:
    entry = _entry_of(decision)
    stop_reason, first_event_ms, results = "client_closed", None, 0
    try:
        trace = hit_trace(decision, _ms(started), time.time())
        first_event_ms = _ms(started)
        log.info(lf.EVENT_TRACE, **{lf.EVENT: lf.EVENT_TRACE, lf.STEP: trace.step, lf.STATUS: trace.status})
        yield encoder.encode(trace)
        for stored in entry.events:
            event = event_from_dict(stored["type"], stored["data"])
            results = len(event.results) if isinstance(event, ResultEvent) else results
            yield encoder.encode(event)
        stop_reason = entry.stop_reason
        yield encoder.encode(
            DoneEvent(
                requestId=cid,
                stopReason=stop_reason,  # type: ignore[arg-type]
                partial=True if stop_reason != "complete" else None,  # as the original's `done` said
                iterations=0,
                durationMs=_ms(started),
                timeToFirstEventMs=first_event_ms,
                mode=entry.mode,
                estimatedCostUsd=0.0,
                cache="hit",
            )
        )
    finally:
        _finish(tenant, write_metrics, decision, log, cid, _ms(started), stop_reason, first_event_ms, results)


def _finish(
    tenant: str,
    write_metrics: Callable[[str], None],
    decision: Decision,
    log: RequestLog,
    cid: str,
    duration: int,
    stop_reason: str,
    first_event_ms: int | None,
    results: int,
) -> None:
    """The hit's `done` log record and its metrics (the request's own and the cache's)."""
    entry = _entry_of(decision)
    log.info(
        lf.EVENT_DONE,
        **{
            lf.EVENT: lf.EVENT_DONE,
            lf.STOP_REASON: stop_reason,
            lf.ITERATIONS: 0,
            lf.DURATION_MS: duration,
            lf.TIME_TO_FIRST_EVENT_MS: first_event_ms,
        },
        mode=entry.mode,
        cache="hit",
        result_count=results,
        estimated_cost_usd=0.0,
    )
    outcome = metrics.RequestOutcome(
        correlation_id=cid,
        duration_ms=duration,
        stop_reason=stop_reason,
        streamed=True,
        time_to_first_event_ms=first_event_ms,
        results=results,
        estimated_cost_usd=0.0,
    )
    metrics.emit(tenant, outcome, write_metrics)
    cache_metrics.emit(tenant, cid, decision, duration, write_metrics)
