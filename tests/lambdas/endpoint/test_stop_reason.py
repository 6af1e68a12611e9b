"""`done.stopReason` tells an exhausted iteration budget apart from a planner that judged the evidence enough."""

from __future__ import annotations

import httpx
import pytest

from contract.events import SubQuery, TraceEvent
from lambdas.endpoint.stop_reason import StopReasonObserver
from tests.endpoint_server import iter_frames


def plan(sub_queries: int) -> TraceEvent:
    return TraceEvent("Planning", "SUCCEEDED", 0, subQueries=[SubQuery(f"q{n}", ["docs"]) for n in range(sub_queries)])


@pytest.mark.parametrize(
    "cap, plans, mode, expected",
    [
        (3, [2, 1, 1], "agentic", "iteration_limit"),  # every iteration used, the last one still searching
        (3, [2, 1, 0], "agentic", "complete"),  # the last allowed plan said: enough
        (3, [2, 0], "agentic", "complete"),  # stopped early
        (1, [1], "agentic", "iteration_limit"),
        (0, [], "agentic", "complete"),  # no iteration allowed: speculative retrieval only, as asked
        (3, [], "retrieve", "complete"),  # no planner
    ],
)
def test_the_stop_reason_follows_the_planning_steps(cap, plans, mode, expected):
    observer = StopReasonObserver(cap)
    for sub_queries in plans:
        observer.observe(TraceEvent("Planning", "IN_PROGRESS", 0))
        observer.observe(plan(sub_queries))
    assert observer.reason(mode) == expected


def ask(endpoint, body):
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, timeout=30) as response:
        return list(iter_frames(response))


def test_a_question_the_planner_finishes_is_complete_and_one_that_runs_out_is_not(endpoint):
    finished = ask(endpoint, {"question": "How do I rotate an API key without downtime?"})[-1].data
    assert finished["stopReason"] == "complete" and finished["iterations"] < endpoint.settings.max_agent_iteration
    hops = "Which team owns the runbook for the error Contoso Analytics hit in TCK-1240?"
    exhausted = ask(endpoint, {"question": hops, "maxAgentIteration": 1})  # two hops, one iteration
    plans = [
        f.data
        for f in exhausted
        if f.type == "trace" and f.data["step"] == "Planning" and f.data["status"] == "SUCCEEDED"
    ]
    assert exhausted[-1].data["stopReason"] == "iteration_limit"
    assert len(plans) == exhausted[-1].data["iterations"] == 1
    assert plans[-1].get("subQueries")  # the last allowed plan still wanted more evidence
