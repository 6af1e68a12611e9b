"""Serving a hit: an upstream whose events come from the stored entry, with no upstream call.

A hit streams a first `trace` (step `CacheHit`, with the entry's age in seconds and the version
key it was made for), then the stored `text` and `result` events as they were; the pipeline adds
`done` as for any upstream. Its statistics: `cache: "hit"`, the original stop reason (an
`iteration_limit` answer stays labelled as possibly incomplete), the path the original took, zero
iterations and zero estimated cost (nothing was called upstream).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from contract.events import Event, ResultEvent, TraceEvent, event_from_dict
from lambdas.endpoint.cache.entry import CachedEntry
from lambdas.endpoint.cache.result_cache import Decision
from lambdas.endpoint.run_stats import CacheUse, RunStats

CACHE_HIT_STEP = "CacheHit"


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


class ReplayUpstream:
    def __init__(self, decision: Decision, started: float, use: CacheUse) -> None:
        self._decision = decision
        self._entry = _entry_of(decision)
        self._started = started
        self._use = use
        self._results = 0
        self._ended = False

    def __iter__(self) -> Iterator[Event]:
        yield hit_trace(self._decision, int((time.monotonic() - self._started) * 1000), time.time())
        for stored in self._entry.events:
            event = event_from_dict(stored["type"], stored["data"])
            if isinstance(event, ResultEvent):
                self._results = len(event.results)
            yield event
        self._ended = True

    def close(self) -> None:
        """Nothing to release: the entry is in memory."""

    @property
    def stats(self) -> RunStats:
        return RunStats(
            results=self._results,
            mode=self._entry.mode,
            stop_reason=self._entry.stop_reason if self._ended else None,  # type: ignore[arg-type]
            estimated_cost_usd=0.0,
            cache=self._use,
        )
