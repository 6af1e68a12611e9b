"""The inner upstream as is, its statistics amended: how a wrapper (upstream_chain.py) says it took part.

The cache's wrapper adds `cache=CacheUse(...)`, fair sharing `quota=QuotaUse(...)` and, when a lesser
path answered, `degraded=...`; the events pass untouched and `finish` reads the amended snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from contract.events import Event
from lambdas.endpoint.run_stats import RunStats

if TYPE_CHECKING:
    from lambdas.endpoint.modes import Upstream


class AmendedUpstream:
    def __init__(self, inner: Upstream, **changes: Any) -> None:
        self._inner = inner
        self._changes = changes  # RunStats fields: a wrong name fails on the first `stats` read, in every test

    def __iter__(self) -> Iterator[Event]:
        return iter(self._inner)

    def close(self) -> None:
        self._inner.close()

    @property
    def stats(self) -> RunStats:
        return replace(self._inner.stats, **self._changes)
