"""What one request's upstream added up to: owned by the upstream, read once by `finish` (finish.py).

Each upstream (a mode's, the cache's replay, a wrapper around either) returns a `RunStats` snapshot
from its `stats` property; nothing outside the upstream changes one (the dataclass is frozen). The
`done` event, the `done` log record and the metrics all read the same snapshot, so they cannot
disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from contract.enums import CacheOutcome, StopReason


@dataclass(frozen=True)
class CacheUse:
    """How the result cache took part in one request (cache/cache_wrapper.py), for `done` and its metrics."""

    outcome: CacheOutcome
    reason: str | None = None
    stale: bool = False  # an entry was found but made for other content versions
    acl_denied: bool = False  # an entry was found but the access re-check refused it


@dataclass(frozen=True)
class QuotaUse:
    """How fair sharing decided one agentic request (quota/quota_wrapper.py), for `done` and its metrics."""

    path: str  # guaranteed | borrowed | refused (a refused `auto` request was degraded)
    round_trips: int  # calls to the quota table
    check_ms: float
    fallback: bool = False  # decided by the in-process bucket (the table was unavailable or contended)


@dataclass(frozen=True)
class RunStats:
    iterations: int = 0  # distinct Planning steps
    sub_queries: int = 0  # retrieve actions run (each one underlying Retrieve call)
    results: int = 0
    distinct_documents: int = 0
    cited_results: int = 0
    guardrail_interventions: int = 0
    upstream_request_id: str | None = None
    mode: str | None = None  # the path taken when it differs from the request's (auto -> retrieve | agentic)
    failed_knowledge_bases: tuple[str, ...] = ()  # aliases whose retrieval failed
    sources_failed: bool = False  # a retrieval failed (even one that named no knowledge base)
    next_token: str | None = None  # the result's nextToken: there is another page
    # How the stream ended, set only once it ended cleanly with everything AWS documents for a
    # complete response (complete | iteration_limit | partial); None while running or after a failure.
    stop_reason: StopReason | None = None
    estimated_cost_usd: float | None = None  # None: nothing was priced (no upstream call was opened)
    cost_excludes_planner_model: bool = False  # a CUSTOM planner's token cost is not in the estimate
    cache: CacheUse | None = None  # None: the tenant has no cache (`done.cache: off`)
    quota: QuotaUse | None = None  # None: no fair-share decision was needed (or fair sharing is off)
    degraded: str | None = None  # why a lesser path answered (contract.enums.DEGRADATIONS): `done.degraded`
