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
from dataclasses import dataclass
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
