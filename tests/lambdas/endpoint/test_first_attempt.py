"""FirstAttempt: a wrapper's decision is taken once per request, however many attempts open it."""

from __future__ import annotations

import threading

import pytest

from lambdas.endpoint.first_attempt import FirstAttempt


def test_the_decision_is_taken_once_and_every_attempt_gets_it():
    calls: list[int] = []
    decision = FirstAttempt(lambda: calls.append(1) or f"decided {len(calls)}")
    assert [decision.get() for _ in range(3)] == ["decided 1"] * 3
    assert len(calls) == 1


def test_concurrent_attempts_still_decide_once():
    calls: list[int] = []
    entered = threading.Event()
    release = threading.Event()

    def decide() -> str:
        calls.append(1)
        entered.set()
        release.wait(5)  # holds the first caller inside, so the others must wait for it, not decide
        return "one"

    decision = FirstAttempt(decide)
    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(decision.get())) for _ in range(4)]
    for thread in threads:
        thread.start()
    assert entered.wait(5)
    release.set()
    for thread in threads:
        thread.join(5)
    assert results == ["one"] * 4 and len(calls) == 1


def test_a_decision_that_failed_is_taken_again_by_the_next_attempt():
    outcomes = iter([RuntimeError("store down"), "admitted"])

    def decide() -> str:
        outcome = next(outcomes)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    decision = FirstAttempt(decide)
    with pytest.raises(RuntimeError):
        decision.get()
    assert decision.get() == "admitted"
