"""`mode: auto` — the router (routing.py) picks `retrieve` or `agentic` for this question.

The decision and every reason for it are the first event (a `trace` with step `Routing`); the
rest of the stream is the picked mode's, and `done.mode` names the path taken. The router reads
only the last user message and how many knowledge bases the request searches.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, Final

from contract.events import Event, TraceEvent
from contract.settings import TenantSettings
from lambdas.endpoint.modes import CallContext, Upstream, mode_for
from lambdas.endpoint.request import Query
from lambdas.endpoint.routing import route, routing_trace
from lambdas.endpoint.run_stats import RunStats

NAME: Final = "auto"


def build_request(query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
    """The decision and the picked mode's request (pure: the same question always routes the same way)."""
    decision = route(query.question, len(query.knowledge_bases), settings.routing)
    return {
        "route": decision.mode,
        "routing": decision.message,
        "request": mode_for(decision.mode).build_request(query, settings, user_id),
    }


class RoutedUpstream:
    """The Routing trace, then the picked mode's events; its statistics name the path taken."""

    def __init__(self, route_taken: str, first: TraceEvent, inner: Upstream) -> None:
        self._route = route_taken
        self._first = first
        self._inner = inner

    def __iter__(self) -> Iterator[Event]:
        yield self._first
        yield from self._inner

    def close(self) -> None:
        self._inner.close()

    @property
    def stats(self) -> RunStats:
        return replace(self._inner.stats, mode=self._route)


class AutoMode:
    name: Final = NAME

    def build_request(self, query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
        return build_request(query, settings, user_id)

    def open(self, request: dict[str, Any], call: CallContext) -> RoutedUpstream:
        elapsed = int((time.monotonic() - call.started_at) * 1000)
        inner = mode_for(request["route"]).open(request["request"], call)
        return RoutedUpstream(request["route"], routing_trace(request["routing"], elapsed), inner)
