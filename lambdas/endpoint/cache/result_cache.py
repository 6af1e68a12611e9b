"""Hit, miss, bypass or off: the cache's decisions for one request, and storing what a miss produced.

`decide()` runs before the upstream call (blocking: called on a worker thread), `store()` after the
`done` event went out. Neither ever raises: a cache that fails becomes a bypass, never an error
the caller sees, and never a hit it should not get. Order of a lookup:
1. off: no cache for this tenant, or not for the request's mode; bypass: the request asked, or it
   is bound to a memory session (a conversation turn: its answer depends on the session's history);
2. the content version of every knowledge base of the request (versions.py) — unreadable: bypass;
3. the entry under the lookup key — none or expired: miss; made for other versions: miss,
   counted as StaleRejected (the next store overwrites it);
4. for knowledge bases whose documents carry ACLs and a request with a user id: the access
   re-check (acl.py) — anything but "all allowed": miss, counted as AclRecheckDenied;
5. hit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from contract.settings import TenantSettings
from lambdas.endpoint.cache import keys
from lambdas.endpoint.cache.acl import recheck
from lambdas.endpoint.cache.entry import CachedEntry, EntryRecorder
from lambdas.endpoint.cache.store import CacheStore
from lambdas.endpoint.cache.versions import ContentVersions, VersionUnavailable
from lambdas.endpoint.request import Query

log = logging.getLogger("akb.cache")
MEMORY_BYPASS_REASON = "bound to a conversation session: the answer depends on its history"


@dataclass
class Decision:
    outcome: str  # hit | miss | bypass | off (events.CacheOutcome)
    reason: str | None = None
    entry: CachedEntry | None = None
    lookup_key: str | None = None
    version_key: str | None = None
    stale: bool = False
    acl_denied: bool = False
    acl_checked: int = 0
    lookup_ms: int = 0


class ResultCache:
    def __init__(
        self,
        settings: TenantSettings,
        store: CacheStore,
        versions: ContentVersions,
        runtime_client_factory: Callable[[], Any],
        clock: Callable[[], float] = time.time,
    ) -> None:
        if settings.cache is None:
            raise ValueError("ResultCache needs settings.cache")
        self.settings = settings
        self.config = settings.cache
        self.store = store
        self.versions = versions
        self._runtime_client = runtime_client_factory
        self._clock = clock

    def decide(self, query: Query, user_id: str | None, bypass: bool = False) -> Decision:
        started = time.monotonic()
        decision = self._decide(query, user_id, bypass)
        decision.lookup_ms = int((time.monotonic() - started) * 1000)
        self._count(decision)
        return decision

    def _decide(self, query: Query, user_id: str | None, bypass: bool) -> Decision:
        if query.mode not in self.config.modes:
            return Decision("off", f"mode {query.mode} is not cached for this tenant")
        if bypass:
            return Decision("bypass", "the request asked for cache: bypass")
        if query.memory is not None:  # never served or stored: the answer depends on the session's history
            return Decision("bypass", MEMORY_BYPASS_REASON)
        if query.next_token is not None:  # a later page: its token is the service's, valid for one use
            return Decision("bypass", "pages after the first are not cached")
        ids = {alias: self._kb_id(alias) for alias in query.knowledge_bases}
        strategy = keys.strategy_version(self.settings, query)
        lookup = keys.lookup_key(self.settings, query, user_id, strategy)
        try:
            version_key = keys.version_key(self.versions.versions(list(ids.values())), strategy)
            raw = self.store.get(self.settings.tenant, lookup)
        except VersionUnavailable as error:
            return Decision("bypass", f"content version unavailable ({error})")
        except Exception as error:  # the store is down or throttled: go to the source
            return Decision("bypass", f"cache store unavailable ({type(error).__name__})")
        decision = Decision("miss", None, lookup_key=lookup, version_key=version_key)
        if raw is None:
            decision.reason = "not cached"
            return decision
        try:
            entry = CachedEntry.from_json(raw)
        except (ValueError, TypeError, KeyError):
            decision.reason = "unreadable entry"
            return decision
        if entry.version_key != version_key:
            decision.stale, decision.reason = True, "made for another content or strategy version"
            return decision
        return self._recheck_access(decision, entry, query, user_id, ids)

    def _recheck_access(
        self, decision: Decision, entry: CachedEntry, query: Query, user_id: str | None, ids: dict[str, str]
    ) -> Decision:
        acl_ids = {alias: ids[alias] for alias in query.knowledge_bases if alias in self.config.acl_knowledge_bases}
        if user_id is not None and acl_ids:
            verdict = recheck(self._runtime_client(), entry.documents, user_id, acl_ids)
            decision.acl_checked = verdict.checked
            if not verdict.allowed:
                decision.acl_denied = True
                decision.reason = f"access re-check: {verdict.denied} denied, {verdict.errors} failed"
                return decision
        decision.outcome, decision.entry, decision.reason = "hit", entry, None
        return decision

    def _kb_id(self, alias: str) -> str:
        retriever = self.settings.retriever(alias)
        if retriever is None:  # request.py admits only the tenant's aliases
            raise ValueError(f"knowledge base alias {alias!r} is not the tenant's")
        return retriever.knowledge_base_id

    def _count(self, decision: Decision) -> None:
        names = {"hit": "hits", "miss": "misses", "bypass": "bypass"}
        counters = [names[decision.outcome]] if decision.outcome in names else []
        counters += ["stale_rejected"] * decision.stale + ["acl_denied"] * decision.acl_denied
        for counter in counters:
            try:
                self.store.count(self.settings.tenant, counter)
            except Exception:  # counters are for `akb cache stats`; never worth failing a request
                log.warning("cache counter %s not written", counter, exc_info=True)

    def store_result(
        self, decision: Decision, query: Query, recorder: EntryRecorder, stop_reason: str, mode: str, iterations: int
    ) -> str | None:
        """Stores a miss's outcome when it may be reused; returns why not otherwise (None: stored)."""
        if decision.outcome != "miss" or decision.lookup_key is None or decision.version_key is None:
            return f"cache {decision.outcome}"
        refusal = recorder.refusal(stop_reason)
        if refusal is not None:
            return refusal
        now = self._clock()
        entry = CachedEntry(
            created_at=now,
            expires_at=now + self.config.ttl_seconds,
            version_key=decision.version_key,
            stop_reason=stop_reason,
            mode=mode,
            iterations=iterations,
            events=recorder.events,
            documents=recorder.documents,
        )
        text = entry.to_json()
        if len(text.encode("utf-8")) > self.config.max_entry_bytes:
            return f"entry larger than {self.config.max_entry_bytes} bytes"
        try:
            self.store.put(
                self.settings.tenant, decision.lookup_key, text, entry.expires_at, list(query.knowledge_bases)
            )
            self.store.count(self.settings.tenant, "stored")
        except Exception as error:
            log.warning("cache entry not stored", exc_info=True)
            return f"store failed ({type(error).__name__})"
        return None
