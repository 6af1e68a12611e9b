"""Bounded retries with exponential backoff and full jitter, for opening the upstream stream only.

botocore's own retries are off (`total_max_attempts: 1`, see upstream.py) so that this is the one
place that decides: nothing is retried once the client has received a byte, and no wait runs
past the request's deadline or outlives a cancelled request.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Backoff:
    base_seconds: float = 0.1
    cap_seconds: float = 2.0

    def delay(self, attempt: int) -> float:
        """Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"):
        uniform in [0, min(cap, base * 2^attempt)]."""
        return random.uniform(0, min(self.cap_seconds, self.base_seconds * 2**attempt))

    def retry_after_seconds(self, attempts: int) -> int:
        """What to tell a client that was throttled after `attempts` tries (whole seconds, at least 1)."""
        return max(1, math.ceil(min(self.cap_seconds, self.base_seconds * 2**attempts)))


def with_retries(
    attempt: Callable[[], T],
    should_retry: Callable[[BaseException], bool],
    max_attempts: int,
    deadline: float,
    cancelled: threading.Event,
    backoff: Backoff = Backoff(),
    on_retry: Callable[[int, BaseException], None] = lambda attempt, error: None,
) -> T:
    """Runs `attempt` until it succeeds, fails for good, or runs out of attempts or of time
    (`deadline` is a time.monotonic() value)."""
    for number in range(max(1, max_attempts)):
        try:
            return attempt()
        except Exception as error:
            last = number + 1 >= max_attempts
            if last or cancelled.is_set() or not should_retry(error):
                raise
            wait = backoff.delay(number)
            if time.monotonic() + wait >= deadline:
                raise
            on_retry(number + 1, error)
            if cancelled.wait(wait):
                raise
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


_EXHAUSTED = "akb_retries_exhausted"


def mark_exhausted(error: BaseException) -> BaseException:
    """Flags an error whose call was already retried as far as the policy allows, so an outer
    retry loop (the relay's, around a whole mode) does not multiply the attempts."""
    setattr(error, _EXHAUSTED, True)
    return error


def is_exhausted(error: BaseException) -> bool:
    return bool(getattr(error, _EXHAUSTED, False))


@dataclass
class RetryPolicy:
    """The retry rules of one endpoint request, shared by every upstream call it makes.

    The relay retries opening a stream with it; retrieve mode retries each knowledge base's
    Retrieve with it. `attempts` is the most attempts any one call took (for Retry-After).
    """

    max_attempts: int
    deadline: float  # time.monotonic() value
    cancelled: threading.Event = field(default_factory=threading.Event)
    should_retry: Callable[[BaseException], bool] = lambda error: False
    backoff: Backoff = field(default_factory=Backoff)
    on_retry: Callable[[int, BaseException], None] = lambda attempt, error: None
    attempts: int = 0

    def run(self, attempt: Callable[[], T]) -> T:
        count = 0

        def counted() -> T:
            nonlocal count
            count += 1
            self.attempts = max(self.attempts, count)
            return attempt()

        return with_retries(
            counted,
            lambda error: not is_exhausted(error) and self.should_retry(error),
            self.max_attempts,
            self.deadline,
            self.cancelled,
            self.backoff,
            self.on_retry,
        )

    @classmethod
    def once(cls) -> RetryPolicy:
        """One attempt, no retries (a mode called outside a request, as in unit tests)."""
        return cls(max_attempts=1, deadline=math.inf)
