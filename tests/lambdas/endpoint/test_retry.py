"""Backoff with full jitter, bounded by attempts, the deadline and cancellation."""

from __future__ import annotations

import threading
import time

import pytest

from lambdas.endpoint.retry import Backoff, with_retries


class Flaky(Exception):
    pass


def failing(times: int):
    calls = []

    def attempt():
        calls.append(time.monotonic())
        if len(calls) <= times:
            raise Flaky(len(calls))
        return "ok"

    return attempt, calls


def test_full_jitter_stays_within_the_exponential_cap():
    backoff = Backoff(base_seconds=0.1, cap_seconds=0.5)
    for attempt in range(8):
        delays = [backoff.delay(attempt) for _ in range(200)]
        assert min(delays) >= 0 and max(delays) <= min(0.5, 0.1 * 2**attempt)
    assert backoff.retry_after_seconds(3) == 1 and Backoff(1, 30).retry_after_seconds(3) == 8


def test_retries_until_success_within_the_attempts():
    attempt, calls = failing(2)
    result = with_retries(attempt, lambda e: True, 3, time.monotonic() + 5, threading.Event(), Backoff(0.001, 0.002))
    assert result == "ok" and len(calls) == 3


def test_gives_up_after_the_last_attempt_or_a_non_retryable_error():
    attempt, calls = failing(5)
    with pytest.raises(Flaky):
        with_retries(attempt, lambda e: True, 3, time.monotonic() + 5, threading.Event(), Backoff(0.001, 0.002))
    assert len(calls) == 3
    attempt, calls = failing(5)
    with pytest.raises(Flaky):
        with_retries(attempt, lambda e: False, 3, time.monotonic() + 5, threading.Event(), Backoff(0.001, 0.002))
    assert len(calls) == 1


def test_never_waits_past_the_deadline():
    attempt, calls = failing(5)
    started = time.monotonic()
    with pytest.raises(Flaky):
        with_retries(attempt, lambda e: True, 10, started + 0.05, threading.Event(), Backoff(10, 10))
    assert time.monotonic() - started < 1 and len(calls) <= 2


def test_cancellation_stops_the_wait():
    attempt, calls = failing(5)
    cancelled = threading.Event()
    threading.Timer(0.05, cancelled.set).start()
    started = time.monotonic()
    with pytest.raises(Flaky):
        with_retries(attempt, lambda e: True, 10, started + 60, cancelled, Backoff(5, 5))
    assert time.monotonic() - started < 2 and len(calls) < 10
