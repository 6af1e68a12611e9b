"""Fair sharing as a wrapper around the upstream (upstream_chain.py): the pipeline only sees an upstream.

A request that needs an agentic call (mode `agentic`, or `auto` routed to agentic) asks the tenant's
FairShare once, on its first `open()` (a retry after Bedrock's own throttling re-opens the inner source
and takes no second token; Bedrock's throttling is retried as always). Then:
- admitted: the inner upstream; its stats say how (`RunStats.quota`);
- refused, mode `auto`: single-shot retrieval instead (`plan.source("retrieve")`: Retrieve has its own
  per-knowledge-base quota), after a Routing trace that says why; `done.mode: retrieve`,
  `done.degraded: quota`: never presented as an agentic answer;
- refused, mode `agentic`: HTTP 429 `tenant_quota_exceeded` with Retry-After, before any event.
Requests that need no agentic call (mode `retrieve`, `auto` routed to retrieve) pass untouched.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from contract.events import TraceEvent
from lambdas.endpoint.amended_upstream import AmendedUpstream
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.first_attempt import FirstAttempt
from lambdas.endpoint.quota.fair_share import Admission, FairShare
from lambdas.endpoint.routing import ROUTING_STEP, route
from lambdas.endpoint.run_stats import QuotaUse

if TYPE_CHECKING:
    from lambdas.endpoint.modes import Upstream
    from lambdas.endpoint.retry import RetryPolicy
    from lambdas.endpoint.upstream_chain import Plan, UpstreamSource

QUOTA_ERROR = "tenant_quota_exceeded"


def needs_agentic(plan: Plan) -> bool:
    """Whether the request would call AgenticRetrieveStream (`auto`: what the router picks)."""
    query = plan.query
    if query.mode == "auto":
        return route(query.question, len(query.knowledge_bases), plan.settings.routing).mode == "agentic"
    return query.mode == "agentic"


class FairShareWrapper:
    def __init__(self, fair_share: FairShare) -> None:
        self.fair_share = fair_share

    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        return FairShareSource(self.fair_share, inner, plan) if needs_agentic(plan) else inner


class FairShareSource:
    def __init__(self, fair_share: FairShare, inner: UpstreamSource, plan: Plan) -> None:
        self._fair_share = fair_share
        self._inner = inner
        self._plan = plan
        self._admission = FirstAttempt(self._decide)

    def _decide(self) -> Admission:
        """The fair share's decision and its log record (once per request: FirstAttempt)."""
        admission = self._fair_share.admit()
        self._plan.log.info(
            "quota",
            quota_path=admission.path,
            round_trips=admission.round_trips,
            check_ms=admission.check_ms,
            retry_after=admission.retry_after_seconds or None,
            fallback=admission.fallback,
        )
        return admission

    def open(self, policy: RetryPolicy) -> Upstream:
        admission = self._admission.get()
        use = QuotaUse(admission.path, admission.round_trips, admission.check_ms, admission.fallback is not None)
        if admission.admitted:
            return AmendedUpstream(self._inner.open(policy), quota=use)
        plan = self._plan
        if plan.query.mode == "auto":
            from lambdas.endpoint.modes.auto import RoutedUpstream  # the Routing trace, then the path taken

            routed = RoutedUpstream("retrieve", _degraded_trace(plan, admission), plan.source("retrieve").open(policy))
            return AmendedUpstream(routed, quota=use, degraded="quota")
        raise _refusal(plan, admission)


def _degraded_trace(plan: Plan, admission: Admission) -> TraceEvent:
    elapsed = int((time.monotonic() - plan.started) * 1000)
    return TraceEvent(
        step=ROUTING_STEP,
        status="SUCCEEDED",
        elapsedMs=elapsed,
        message=(
            "auto picked agentic retrieval, but this tenant's share of the account's agentic quota is used up: "
            "answered with single-shot retrieval instead (done.degraded: quota, done.mode: retrieve); an agentic "
            f"answer is possible again in about {admission.retry_after_seconds} s"
        ),
    )


def _refusal(plan: Plan, admission: Admission) -> ApiError:
    quota = plan.settings.quota
    share = (
        f" (guaranteed {quota.guaranteed_per_minute:g} and at most {quota.burst_per_minute:g} agentic requests "
        "per minute)"
        if quota is not None
        else ""
    )
    seconds = admission.retry_after_seconds
    return ApiError(
        429,
        QUOTA_ERROR,
        f"tenant '{plan.settings.tenant}' has used its share of the account's agentic retrieval quota{share}: "
        f"retry after {seconds} s, or ask with mode `auto` (single-shot retrieval while the share is used up) "
        "or `retrieve`",
        {"Retry-After": str(seconds)},
        detail=f"fair share refused: round_trips={admission.round_trips} fallback={admission.fallback}",
    )
