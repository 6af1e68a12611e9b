"""The pipeline's extension point: a wrapper added to the service changes a request without the
orchestrator knowing it (upstream_chain.py). The wrappers here are small real ones, written for the
test: one degrades `auto` to single-shot retrieval, one refuses with 429, one counts what passed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.modes import Upstream
from lambdas.endpoint.retry import RetryPolicy
from lambdas.endpoint.upstream_chain import Plan, UpstreamSource
from tests.endpoint_server import start_endpoint
from tests.lambdas.endpoint.conftest import sent_bodies
from tests.lambdas.endpoint.test_streaming import ask

COMPARE = {"question": "Compare exports and webhooks", "mode": "auto"}  # auto routes it to agentic


class DegradeAuto:
    """Answers `auto` with single-shot retrieval (what a tenant over its soft quota would get)."""

    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        return plan.source("retrieve") if plan.query.mode == "auto" else inner


@dataclass
class Refuse:
    status: int = 429

    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        status = self.status

        class Refusing:
            def open(self, policy: RetryPolicy) -> Upstream:
                raise ApiError(status, "throttled", "this tenant's share of the quota is used up", {"Retry-After": "7"})

        return Refusing()


@dataclass
class Count:
    opened: list[str] = field(default_factory=list)

    def wrap(self, inner: UpstreamSource, plan: Plan) -> UpstreamSource:
        opened = self.opened

        class Counting:
            def open(self, policy: RetryPolicy) -> Upstream:
                opened.append(plan.query.mode)
                return inner.open(policy)

        return Counting()


def test_a_wrapper_can_degrade_auto_to_single_shot_retrieval(emulator):
    with start_endpoint(emulator, wrappers=[DegradeAuto()]) as endpoint:
        response, frames = ask(endpoint, COMPARE)
    assert response.status_code == 200 and frames[-1].data["mode"] == "retrieve"
    assert frames[-1].data["stopReason"] == "complete" and not sent_bodies(emulator)  # no agentic call


def test_a_wrapper_can_refuse_with_429_before_any_upstream_call(emulator):
    with start_endpoint(emulator, wrappers=[Refuse()]) as endpoint:
        response, body = ask(endpoint, COMPARE)
        lines = [json.loads(line) for line in endpoint.metric_lines]
    assert response.status_code == 429 and body["error"]["code"] == "throttled"
    assert response.headers["retry-after"] == "7" and not sent_bodies(emulator)
    assert any(line.get("ErrorCode") == "throttled" for line in lines)  # counted by the one finish


def test_wrappers_run_in_order_the_first_outermost(emulator):
    outer, inner = Count(), Count()
    with start_endpoint(emulator, wrappers=[outer, DegradeAuto(), inner]) as endpoint:
        ask(endpoint, COMPARE)
    assert outer.opened == ["auto"] and inner.opened == []  # DegradeAuto replaced what was inside it
