"""Modes: one class per way of answering a query (docs/routing.md), behind the `QueryMode` protocol.

`MODES` maps each `contract.enums.Mode` literal to a factory that imports its module on first use,
so a mode nobody calls costs no cold-start time; `mode_for(name)` returns the one instance of it.
A mode builds what is sent upstream (`build_request`, pure) and opens it (`open`, blocking: makes
the call and returns an `Upstream`, the events in order plus the run's statistics). Adding a mode
is one module with one class, one literal in contract/enums.py and one line in MODES; the request
parser, the pipeline, the relay and the encoder stay as they are (tests/lambdas/endpoint/modes
checks that MODES and the literal agree).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from contract.enums import Mode
from contract.events import Event
from contract.settings import TenantSettings
from lambdas.endpoint.run_stats import RunStats

if TYPE_CHECKING:
    from lambdas.endpoint.request import Query
    from lambdas.endpoint.retry import RetryPolicy


class Upstream(Protocol):
    """An opened upstream: endpoint events in order (blocking iteration), closable from any thread.

    `stats` is read by `finish` once the request ended (any way it ended); `stats.stop_reason` is
    set only when the iteration ended cleanly with a well-formed, complete response."""

    def __iter__(self) -> Iterator[Event]: ...

    def close(self) -> None: ...

    @property
    def stats(self) -> RunStats: ...


@dataclass(frozen=True)
class CallContext:
    """What the calls of one request share: the tenant, the client, the clock and the retry rules."""

    settings: TenantSettings
    client: Any  # the bedrock-agent-runtime client
    alias_of: Mapping[str, str]  # knowledge-base id -> alias
    started_at: float  # time.monotonic() when the request arrived
    policy: RetryPolicy


class QueryMode(Protocol):
    @property
    def name(self) -> Mode: ...

    def build_request(self, query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
        """What is sent upstream for a validated query (pure: tests compare it whole)."""
        ...

    def open(self, request: dict[str, Any], call: CallContext) -> Upstream:
        """Makes the call (blocking; on the relay's worker thread) and returns its events."""
        ...


def _agentic() -> QueryMode:
    from lambdas.endpoint.modes.agentic import AgenticMode

    return AgenticMode()


def _retrieve() -> QueryMode:
    from lambdas.endpoint.modes.retrieve import RetrieveMode

    return RetrieveMode()


def _auto() -> QueryMode:
    from lambdas.endpoint.modes.auto import AutoMode

    return AutoMode()


MODES: dict[Mode, Callable[[], QueryMode]] = {"agentic": _agentic, "retrieve": _retrieve, "auto": _auto}

_made: dict[str, QueryMode] = {}
_lock = threading.Lock()


def mode_for(name: Mode) -> QueryMode:
    """The mode's one instance (its module is imported on the first call)."""
    made = _made.get(name)
    if made is None:
        with _lock:
            made = _made.get(name) or MODES[name]()
            _made[name] = made
    return made
