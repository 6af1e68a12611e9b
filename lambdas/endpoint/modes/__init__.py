"""Modes: one module per way of answering a query (docs/routing.md).

A mode module exposes `NAME`, `build_request(query, settings, user_id) -> dict` (pure: what is sent
upstream), `open(client, request, translator, policy) -> Upstream` (blocking: makes the call,
returns the event source; `policy` is the request's retry.RetryPolicy, for modes that retry each
call themselves) and `estimated_cost_usd(stats, settings) -> float`. Adding a mode is one module and
one line in MODES; the request parser, relay, encoder and handler stay as they are. Modules load
on first use, so a mode nobody calls costs no cold-start time.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Protocol

from contract.events import Event
from lambdas.endpoint.translate import RunStats

# name -> module
MODES: dict[str, str] = {
    "agentic": "lambdas.endpoint.modes.agentic",
    "retrieve": "lambdas.endpoint.modes.retrieve",
    "auto": "lambdas.endpoint.modes.auto",
}


class Upstream(Protocol):
    """An opened upstream call: endpoint events in order (blocking iteration), closable from any thread."""

    stats: RunStats

    def __iter__(self) -> Iterator[Event]: ...

    def close(self) -> None: ...


def load(name: str) -> ModuleType:
    return importlib.import_module(MODES[name])
