"""The extension point of the request pipeline: a source of the upstream, and wrappers around it.

A request's mode becomes an `UpstreamSource` (`ModeSource`: build the request, open the call); each
of the service's `UpstreamWrapper`s then wraps the source, outermost first, like a Starlette or
Powertools middleware around a route. The relay (relay.py) calls `open(policy)` on the outermost
source on its worker thread, retrying per the policy, and iterates the `Upstream` it returns; the
pipeline (request_pipeline.py) never learns which wrappers exist.

A wrapper may, in `open()` (blocking is fine: it runs on the worker thread):
- pass through: `return inner.open(policy)`;
- wrap what the inner source opens: observe its events, add to its `stats` (a new snapshot,
  `dataclasses.replace(inner.stats, ...)`; `amended_upstream.AmendedUpstream` when that is all),
  act on a clean close (the result cache records and
  stores this way: cache/cache_wrapper.py; a quality sampler would too);
- answer without the inner source: an `Upstream` of its own (a cache hit replays its entry);
- take another mode: `plan.source("retrieve").open(policy)` (a quota check degrading `auto`);
- refuse: raise `ApiError` (status, code, message), which reaches the caller as that HTTP answer
  before any event, or as an `error` event after (a quota check's 429).
A decision a retry must not take again (a lookup, a token) goes through `FirstAttempt`
(first_attempt.py). Adding one is its class and one entry in `Service.wrappers` (service.py), nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from contract.enums import Mode
from contract.settings import TenantSettings
from lambdas.endpoint.logs import RequestLog
from lambdas.endpoint.modes import CallContext, QueryMode, Upstream, mode_for
from lambdas.endpoint.request import Query
from lambdas.endpoint.retry import RetryPolicy


class UpstreamSource(Protocol):
    def open(self, policy: RetryPolicy) -> Upstream:
        """Opens the upstream (blocking, on the relay's worker thread; called again on a retry)."""
        ...


@dataclass(frozen=True)
class Plan:
    """One accepted request, as the wrappers see it: the query, its end user and the tenant."""

    query: Query
    user_id: str | None
    settings: TenantSettings
    log: RequestLog
    started: float  # time.monotonic() when the request arrived
    client_factory: Callable[[], Any]
    alias_of: Mapping[str, str]  # knowledge-base id -> alias

    @property
    def mode(self) -> QueryMode:
        return mode_for(self.query.mode)

    def source(self, mode: Mode | None = None) -> ModeSource:
        """The source that answers this plan with its own mode, or with `mode` instead."""
        plan = self if mode is None else replace(self, query=replace(self.query, mode=mode))
        return ModeSource(plan)


class UpstreamWrapper(Protocol):
    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        """A source around `inner` for this request (cheap: called on the event loop)."""
        ...


class ModeSource:
    """The innermost source: the plan's mode builds its request once and opens it on each attempt."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._mode = plan.mode
        self._request = self._mode.build_request(plan.query, plan.settings, plan.user_id)

    def open(self, policy: RetryPolicy) -> Upstream:
        plan = self._plan
        call = CallContext(plan.settings, plan.client_factory(), plan.alias_of, plan.started, policy)
        return self._mode.open(self._request, call)


def chain(plan: Plan, wrappers: Sequence[UpstreamWrapper]) -> UpstreamSource:
    """The plan's mode source inside every wrapper, the first wrapper outermost."""
    source: UpstreamSource = plan.source()
    for wrapper in reversed(wrappers):
        source = wrapper.wrap(source, plan)
    return source
