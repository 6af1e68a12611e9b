"""The result cache as a wrapper around the upstream (upstream_chain.py): the pipeline only sees an upstream.

On the relay's worker thread, the first `open()` asks the cache once (result_cache.decide: hit,
miss, bypass or off, with its `cache` log record and counters), then:
- hit: no upstream call; the entry's events are replayed (replay.py) — a hit is just another upstream;
- miss: the inner upstream, recorded while it streams (entry.EntryRecorder) and stored on a clean
  close: once its stream ended whole (its stats carry a stop reason) and the request was not
  cancelled. The relay closes the upstream after handing on its last event, so the caller's `done`
  never waits for the store;
- bypass: the inner upstream, passed through;
- off: the inner upstream, untouched (`done.cache: off`, no cache metrics).
Each answer's `stats` say how the cache took part (`RunStats.cache`), for `done` and the metrics.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from contract.events import Event
from lambdas.endpoint.amended_upstream import AmendedUpstream
from lambdas.endpoint.cache.entry import EntryRecorder
from lambdas.endpoint.cache.replay import ReplayUpstream
from lambdas.endpoint.cache.result_cache import Decision, ResultCache
from lambdas.endpoint.first_attempt import FirstAttempt
from lambdas.endpoint.run_stats import CacheUse, RunStats

if TYPE_CHECKING:
    from lambdas.endpoint.modes import Upstream
    from lambdas.endpoint.retry import RetryPolicy
    from lambdas.endpoint.upstream_chain import Plan, UpstreamSource


class CacheWrapper:
    def __init__(self, cache: ResultCache) -> None:
        self.cache = cache

    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        return CachedSource(self.cache, inner, plan)


class CachedSource:
    def __init__(self, cache: ResultCache, inner: UpstreamSource, plan: Plan) -> None:
        self._cache = cache
        self._inner = inner
        self._plan = plan
        self._decision = FirstAttempt(self._decide)

    def _decide(self) -> Decision:
        """The cache's decision and its log record (once per request: FirstAttempt)."""
        plan = self._plan
        decision = self._cache.decide(plan.query, plan.user_id, plan.query.cache_bypass)
        plan.log.info(
            "cache",
            cache=decision.outcome,
            reason=decision.reason,
            lookup_ms=decision.lookup_ms,
            stale=decision.stale,
            acl_denied=decision.acl_denied,
        )
        return decision

    def open(self, policy: RetryPolicy) -> Upstream:
        decision = self._decision.get()
        use = CacheUse(decision.outcome, decision.reason, decision.stale, decision.acl_denied)  # type: ignore[arg-type]
        if decision.outcome == "hit":
            return ReplayUpstream(decision, self._plan.started, use)
        inner = self._inner.open(policy)
        if decision.outcome == "miss":
            return RecordingUpstream(inner, use, self._cache, decision, self._plan, policy)
        if decision.outcome == "bypass":
            return AmendedUpstream(inner, cache=use)
        return inner  # off


class RecordingUpstream(AmendedUpstream):
    """A miss: records the inner upstream's events as they pass; stores them on a clean close."""

    def __init__(
        self, inner: Upstream, use: CacheUse, cache: ResultCache, decision: Decision, plan: Plan, policy: RetryPolicy
    ) -> None:
        super().__init__(inner, cache=use)
        self._cache = cache
        self._decision = decision
        self._plan = plan
        self._cancelled = policy.cancelled  # set when the request ended early (deadline, client gone)
        self._recorder = EntryRecorder()
        self._close_lock = threading.Lock()
        self._closed = False

    def __iter__(self) -> Iterator[Event]:
        for event in self._inner:
            self._recorder.observe(event)
            yield event

    def close(self) -> None:
        """Safe from any thread, any number of times: the relay's worker (after the last event) and a
        cancelling request may both call it; the entry is stored at most once."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        self._inner.close()
        stats = self._inner.stats
        if stats.stop_reason is not None and not self._cancelled.is_set():
            self._store(stats)

    def _store(self, stats: RunStats) -> None:
        query = self._plan.query
        recorder = self._recorder
        if stats.next_token:  # a replayed page token would be stale or used: never store a paged answer
            recorder.refused = recorder.refused or "the answer has more pages (nextToken)"
        if stats.degraded:  # a lesser path answered (e.g. quota): later requests must get the path they ask for
            recorder.refused = recorder.refused or f"the answer was degraded ({stats.degraded})"
        stop_reason = stats.stop_reason or "error"
        refusal = self._cache.store_result(
            self._decision, query, recorder, stop_reason, stats.mode or query.mode, stats.iterations
        )
        self._plan.log.info("cache store", stored=refusal is None, reason=refusal)
