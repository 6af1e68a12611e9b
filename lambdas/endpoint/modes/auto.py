"""`mode: auto` — the router (routing.py) picks `retrieve` or `agentic` for this question.

The decision and every reason for it are the first event (a `trace` with step `Routing`); the
rest of the stream is the picked mode's, and `done.mode` names the path taken. The router reads
only the last user message and how many knowledge bases the request searches.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from contract.events import Event, TraceEvent
from contract.settings import TenantSettings
from lambdas.endpoint import modes
from lambdas.endpoint.modes import Upstream
from lambdas.endpoint.request import Query
from lambdas.endpoint.retry import RetryPolicy
from lambdas.endpoint.routing import route, routing_trace
from lambdas.endpoint.translate import RunStats, Translator

NAME = "auto"


def build_request(query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
    """The decision and the picked mode's request (pure: the same question always routes the same way)."""
    decision = route(query.question, len(query.knowledge_bases), settings.routing)
    return {
        "route": decision.mode,
        "routing": decision.message,
        "request": modes.load(decision.mode).build_request(query, settings, user_id),
    }


class RoutedUpstream:
    def __init__(self, first: TraceEvent, inner: Upstream) -> None:
        self._first = first
        self._inner = inner
        self.stats: RunStats = inner.stats

    def __iter__(self) -> Iterator[Event]:
        yield self._first
        yield from self._inner

    def close(self) -> None:
        self._inner.close()


def open(
    client: Any, request: dict[str, Any], translator: Translator, policy: RetryPolicy | None = None
) -> RoutedUpstream:
    translator.stats.mode = request["route"]
    elapsed = int((time.monotonic() - translator.started_at) * 1000)
    inner = modes.load(request["route"]).open(client, request["request"], translator, policy)
    return RoutedUpstream(routing_trace(request["routing"], elapsed), inner)


def estimated_cost_usd(stats: RunStats, settings: TenantSettings) -> float:
    """The price of the path taken."""
    return modes.load(stats.mode or "agentic").estimated_cost_usd(stats, settings)
