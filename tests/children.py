"""Child processes of tests, and bounded waits on what can be observed — never a sleep.

`Child` starts a command with its output (stdout and stderr together) read line by line on a
thread as it comes, so a chatty child never blocks on a full pipe and a failure message can show
what it printed; a test waits for a line it prints (`wait_for_line`), for its URL to answer
(`wait_for_url`) or its port to accept (`wait_for_port`), each with a deadline. `stop()` ends it
as a user would (Ctrl-C, SIGKILL after a grace period); `close()` (leaving the `with` block) also
ends anything it left running in its process group.

`wait_until` polls any check (a log record, a journal entry, a counter, a file) until it holds or
its deadline passes, and then fails naming what it waited for.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TypeVar

import httpx

REPO = Path(__file__).resolve().parent.parent
# How long a child may take to be ready: its imports alone take seconds on a loaded 2-core machine.
# Below the per-test timeout (pyproject.toml), so the message with the child's output wins.
READY_SECONDS = 45.0
STOP_GRACE_SECONDS = 15.0
POLL_SECONDS = 0.02

T = TypeVar("T")


def free_port() -> int:
    """A port free on 127.0.0.1 now, for a child that cannot be told port 0 (its parent must know it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(
    check: Callable[[], T],
    what: str,
    timeout: float = 10.0,
    ignore: tuple[type[BaseException], ...] = (),
) -> T:
    """`check()`'s first truthy value, polled until `timeout` seconds have passed; then an
    AssertionError naming `what`. Exceptions of the `ignore` types count as "not yet"."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except ignore:
            value = None  # type: ignore[assignment]
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}, in vain")
        time.sleep(POLL_SECONDS)  # the poll interval, not a wait for something to have happened


def python_env(**extra: str) -> dict[str, str]:
    """This environment with the repository importable, for `python -m client ...` children."""
    return {**os.environ, "PYTHONPATH": str(REPO), **extra}


class Child:
    """A process started for a test; its merged output is kept in `lines` as it arrives."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None, cwd: Path = REPO) -> None:
        self.command = list(command)
        self.lines: list[str] = []
        self._arrived = threading.Condition()
        self._closed = False
        self.process = subprocess.Popen(
            self.command,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group: close() can end what it started, too
        )
        self._reader = threading.Thread(target=self._read, name=f"drain {self.command[-1]}", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            with self._arrived:
                self.lines.append(line)
                self._arrived.notify_all()
        with self._arrived:
            self._closed = True
            self._arrived.notify_all()

    @property
    def output(self) -> str:
        with self._arrived:
            return "".join(self.lines)

    def _failure(self, waited_for: str, timeout: float) -> AssertionError:
        status = self.process.poll()
        ended = f"it exited with status {status}" if status is not None else f"{timeout:g} s passed"
        tail = self.output[-4000:]
        return AssertionError(f"{' '.join(self.command)}: waited for {waited_for}, but {ended}. Its output:\n{tail}")

    def wait_for_line(self, text: str, timeout: float = READY_SECONDS) -> str:
        """Everything the child printed up to and including its first line containing `text`."""

        def found() -> int | None:
            return next((i for i, line in enumerate(self.lines) if text in line), None)

        with self._arrived:
            self._arrived.wait_for(lambda: found() is not None or self._closed, timeout)
            index = found()
            if index is not None:
                return "".join(self.lines[: index + 1])
        raise self._failure(f"a line with {text!r}", timeout)

    def wait_for_url(self, url: str, timeout: float = READY_SECONDS) -> None:
        """Until GET `url` answers 200 (the endpoint's /healthz), while the child runs."""
        self._wait(lambda: httpx.get(url, timeout=1).status_code == 200, f"{url} to answer 200", timeout)

    def wait_for_port(self, port: int, timeout: float = READY_SECONDS) -> None:
        """Until 127.0.0.1:`port` accepts a connection, while the child runs."""

        def accepts() -> bool:
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        self._wait(accepts, f"127.0.0.1:{port} to accept connections", timeout)

    def _wait(self, ready: Callable[[], bool], what: str, timeout: float) -> None:
        try:
            wait_until(lambda: self.process.poll() is not None or ready(), what, timeout, (httpx.HTTPError, OSError))
        except AssertionError:
            raise self._failure(what, timeout) from None
        if self.process.poll() is not None:
            raise self._failure(what, timeout)

    def stop(self, how: signal.Signals = signal.SIGINT, grace: float = STOP_GRACE_SECONDS) -> int:
        """Sends `how` (Ctrl-C by default) to the child, waits `grace` seconds, then kills it; returns
        its exit status. What the child started is left to the child, as a test of it wants."""
        if self.process.poll() is None:
            self.process.send_signal(how)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def close(self) -> None:
        """stop(), then SIGKILL whatever of its process group is left (a grandchild it failed to stop),
        so no test leaves a process behind; its output is then complete."""
        self.stop()
        with contextlib.suppress(ProcessLookupError):  # the group outlives its leader only through leftovers
            os.killpg(self.process.pid, signal.SIGKILL)
        self._reader.join(timeout=5)

    def __enter__(self) -> Child:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
