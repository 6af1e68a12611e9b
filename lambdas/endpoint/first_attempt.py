"""A wrapper's once-per-request decision (upstream_chain.py): the result cache's lookup, the fair share's token."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class FirstAttempt(Generic[T]):
    """A wrapper's decision for one request, taken on the first `open()` only.

    The relay calls `open()` again on a retry (Bedrock's throttling, a dropped connection): the retry
    re-opens the inner source, but a decision that costs or counts something (a cache lookup, a
    fair-share token) and its log record must not happen twice. Thread-safe: `open()` runs on the
    relay's worker thread while the pipeline may read the decision.
    """

    def __init__(self, decide: Callable[[], T]) -> None:
        self._decide = decide
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._decide()
            return self._value
