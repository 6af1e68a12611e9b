"""Moves events from a blocking upstream to the event loop as each one arrives. Knows nothing of HTTP.

boto3's event stream blocks while it waits for the next event, so it is read on a worker thread
(one per request) and every event is handed to the loop through an asyncio queue the moment it
exists (an async generator that iterated it directly would stall the loop and deliver
everything at the end). The worker also opens the stream, with retries (retry.py), so the first
event marks the point after which nothing is retried. `cancel()` closes the upstream from the
loop's thread at once — a client that went away, or the deadline — also while the call is still
waiting for Bedrock's response headers (upstream.CallScope), so neither the thread nor the socket
outlives the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from contract.events import Event
from lambdas.endpoint.modes import Upstream
from lambdas.endpoint.retry import Backoff, RetryPolicy
from lambdas.endpoint.run_stats import RunStats
from lambdas.endpoint.upstream import CallScope, scoped

_END = object()


@dataclass(frozen=True)
class Item:
    kind: Literal["event", "error", "end", "deadline"]
    event: Event | None = None
    error: BaseException | None = None


END = Item("end")
DEADLINE = Item("deadline")


class Relay:
    def __init__(
        self,
        open_upstream: Callable[[RetryPolicy], Upstream],
        *,
        deadline: float,
        max_attempts: int,
        should_retry: Callable[[BaseException], bool],
        backoff: Backoff | None = None,
        on_retry: Callable[[int, BaseException], None] = lambda attempt, error: None,
    ) -> None:
        self._open_upstream = open_upstream
        self.deadline = deadline  # time.monotonic() value
        self.backoff = backoff or Backoff()
        self._cancelled = threading.Event()
        # Shared with the mode: retrieve mode retries each knowledge base's call with it.
        self.policy = RetryPolicy(max_attempts, deadline, self._cancelled, should_retry, self.backoff, on_retry)
        self._scope = CallScope()
        self._queue: asyncio.Queue[Item] = asyncio.Queue()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._upstream: Upstream | None = None
        self.attempts = 0

    # -- loop side ----------------------------------------------------------------------------
    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._work, name="akb-relay", daemon=True).start()

    async def next(self) -> Item:
        """The next item, or DEADLINE once the deadline passes (the caller then cancels)."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            return DEADLINE
        if not self._queue.empty():  # already here: no timer, no task (wait_for makes one per call)
            return self._queue.get_nowait()
        try:
            async with asyncio.timeout(remaining):
                return await self._queue.get()
        except TimeoutError:
            return DEADLINE

    def cancel(self) -> None:
        """Stops the worker and closes the upstream now (safe from any thread, any number of times),
        including a call still waiting for its response headers."""
        self._cancelled.set()
        self._scope.cancel()
        with self._lock:
            upstream = self._upstream
        if upstream is not None:
            upstream.close()

    @property
    def stats(self) -> RunStats | None:
        """The opened upstream's statistics (None: nothing was opened); read by `finish`."""
        with self._lock:
            upstream = self._upstream
        return upstream.stats if upstream is not None else None

    # -- worker side --------------------------------------------------------------------------
    def _put(self, item: Item) -> None:
        if self._loop is None or self._cancelled.is_set():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed (server shutting down)
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _attempt(self) -> tuple[Upstream, Any, Any]:
        self.attempts += 1
        upstream = self._open_upstream(self.policy)
        with self._lock:
            self._upstream = upstream
        if self._cancelled.is_set():
            upstream.close()
        iterator = iter(upstream)
        try:
            first = next(iterator, _END)  # an in-stream throttle at event 0 is still retryable
        except BaseException:
            upstream.close()
            raise
        return upstream, iterator, first

    def _work(self) -> None:
        upstream: Upstream | None = None
        try:
            with scoped(self._scope):
                upstream, iterator, first = self.policy.run(self._attempt)
            if first is not _END:
                self._put(Item("event", first))
                for event in iterator:
                    if self._cancelled.is_set():
                        return
                    self._put(Item("event", event))
            self._put(END)
        except BaseException as error:  # handed to the loop, which decides what the client sees
            self._put(Item("error", error=error))
        finally:
            if upstream is not None:
                upstream.close()
