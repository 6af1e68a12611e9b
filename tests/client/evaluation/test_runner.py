"""The runner: judging a stream, bounded concurrency, resuming after an interruption.

The query functions here are scripted event sequences (no endpoint): they test the runner's
bookkeeping. tests/client/evaluation/test_eval_end_to_end.py runs it against a real endpoint.
"""

from __future__ import annotations

import json
import threading

import pytest

from client.evaluation.runner import RECORDS_FILE, collect, load_records, run_evaluation
from contract.events import DoneEvent, ErrorEvent, ResultEvent, ResultItem, TextEvent, TraceEvent
from schema.eval_dataset import parse_lines

ITEMS = parse_lines(
    [
        json.dumps({"id": "a", "question": "q a", "type": "single", "documents": ["docs/a.md"]}),
        json.dumps({"id": "b", "question": "q b", "type": "multi-hop", "documents": ["docs/a.md", "wiki/b.md"]}),
        json.dumps({"id": "c", "question": "q c", "type": "unanswerable"}),
    ]
)


def result(*docs: str, answer: str | None = None) -> ResultEvent:
    items = [
        ResultItem(d.split("/")[0], f"text of {d}", {"x-amz-bedrock-kb-document-id": d.split("/", 1)[1]}) for d in docs
    ]
    return ResultEvent(items, answer=answer)


def done(mode: str, cost: float = 0.001) -> DoneEvent:
    return DoneEvent("req", "complete", 1, 12, 3, mode=mode, estimatedCostUsd=cost)


def scripted(item, mode):
    if mode == "auto":
        yield TraceEvent("Routing", "SUCCEEDED", 0, message="auto -> retrieve: short")
    yield TraceEvent("Retrieval", "SUCCEEDED", 1)
    if item.id == "c":
        yield result()
    else:
        yield TextEvent("The ")
        yield TextEvent("answer.")
        yield result("wiki/x.md", "docs/a.md")
    yield done("retrieve" if mode == "auto" else mode)


def throttled_first(refusals: int, retry_after: float | None = 2.0):
    """A query refused with HTTP 429 `refusals` times before it streams (the tenant's fair share)."""
    from client.endpoint_client import EndpointHTTPError

    calls = {"n": 0}

    def query(item, mode):
        calls["n"] += 1
        if calls["n"] <= refusals:
            raise EndpointHTTPError(429, "tenant_quota_exceeded", "over its share", retry_after)
        yield from scripted(item, mode)

    return query


def test_a_question_refused_with_429_is_asked_again_after_retry_after_and_judged():
    waits: list[float] = []
    record = collect(ITEMS[0], "agentic", throttled_first(2), sleep=waits.append)
    assert waits == [2.0, 2.0] and record.throttled == 2
    assert record.error is None and record.stop_reason == "complete" and record.gold_ranks == [2]


def test_throttled_retries_are_bounded_and_the_last_refusal_is_the_records_error():
    from client.evaluation.runner import MAX_RETRY_AFTER_SECONDS, THROTTLED_ATTEMPTS

    waits: list[float] = []
    record = collect(ITEMS[0], "agentic", throttled_first(99, retry_after=600), sleep=waits.append)
    assert waits == [MAX_RETRY_AFTER_SECONDS] * (THROTTLED_ATTEMPTS - 1)
    assert record.error is not None and "429 tenant_quota_exceeded" in record.error


def test_collect_judges_the_ranking_and_keeps_timings_cost_and_routing():
    ticks = iter([0.0, 0.010, 0.050])
    record = collect(ITEMS[1], "auto", scripted, clock=lambda: next(ticks))
    assert record.documents == ["wiki/x.md", "docs/a.md"]
    assert record.gold_ranks == [2, None] and record.relevant == [False, True]
    assert record.answer == "The answer." and not record.abstained
    assert record.routing == "auto -> retrieve: short" and record.routed_mode == "retrieve"
    assert record.time_to_first_event_ms == 10.0 and record.duration_ms == 50.0
    assert record.cost_usd == 0.001 and record.iterations == 1 and record.error is None


def test_an_empty_result_is_an_abstention():
    assert collect(ITEMS[2], "agentic", scripted).abstained


def test_errors_become_records_never_exceptions():
    def failing(item, mode):
        yield TraceEvent("Planning", "IN_PROGRESS", 0)
        raise ConnectionError("reset by peer")

    def error_event(item, mode):
        yield ErrorEvent("ThrottlingException", "slow down", retryable=True)
        yield DoneEvent("r", "error", 0, 5, 1)

    broken = collect(ITEMS[0], "agentic", failing)
    assert broken.error == "ConnectionError: reset by peer"
    assert broken.gold_ranks == [None] and not broken.abstained
    assert collect(ITEMS[0], "agentic", error_event).error == "ThrottlingException: slow down"
    assert collect(ITEMS[0], "agentic", lambda i, m: iter([])).error == "stream ended without a done event"


def test_run_records_every_pair_and_never_exceeds_the_concurrency_limit(tmp_path):
    active, peak, lock = [0], [0], threading.Lock()
    both_running = threading.Barrier(2, timeout=10)  # each call waits for a second one: 2 run at once

    def slow(item, mode):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        both_running.wait()
        with lock:
            active[0] -= 1
        yield from scripted(item, mode)

    seen = []
    records = run_evaluation(ITEMS, ["agentic", "retrieve"], slow, tmp_path, concurrency=2, on_record=seen.append)
    assert [(r.id, r.mode) for r in records] == [(i.id, m) for i in ITEMS for m in ("agentic", "retrieve")]
    assert peak[0] == 2 and len(seen) == 6
    assert len((tmp_path / RECORDS_FILE).read_text().splitlines()) == 6


def test_an_interrupted_run_resumes_without_asking_finished_pairs_again(tmp_path):
    asked = []

    def interrupted(item, mode):
        if item.id == "b":
            raise KeyboardInterrupt
        asked.append((item.id, mode))
        yield from scripted(item, mode)

    with pytest.raises(KeyboardInterrupt):
        run_evaluation(ITEMS, ["agentic"], interrupted, tmp_path, concurrency=1)
    assert set(load_records(tmp_path / RECORDS_FILE)) == {("a", "agentic")}

    def counting(item, mode):
        asked.append((item.id, mode))
        yield from scripted(item, mode)

    asked.clear()
    with (tmp_path / RECORDS_FILE).open("a") as sink:
        sink.write('{"id": "b", "mode": "agen')  # a line cut short by the crash
    records = run_evaluation(ITEMS, ["agentic"], counting, tmp_path, concurrency=1)
    assert asked == [("b", "agentic"), ("c", "agentic")]
    assert [r.id for r in records] == ["a", "b", "c"]


def test_failed_pairs_and_relabelled_questions_are_asked_again(tmp_path):
    def flaky(item, mode):
        if item.id == "a":
            raise TimeoutError("read timed out")
        yield from scripted(item, mode)

    run_evaluation(ITEMS, ["agentic"], flaky, tmp_path)
    asked = []

    def counting(item, mode):
        asked.append(item.id)
        yield from scripted(item, mode)

    relabelled = [*ITEMS[:2], parse_lines([json.dumps({"id": "c", "question": "q c?", "type": "unanswerable"})])[0]]
    records = run_evaluation(relabelled, ["agentic"], counting, tmp_path)
    assert sorted(asked) == ["a", "c"]
    assert all(r.error is None for r in records)
