"""`akb local` as a user runs it, in its own process, for the end-to-end tests of issue 27: started
with the given options, waited on until its banner ends ("Ctrl-C to stop."), stopped with Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
START_SECONDS = 90  # start-up only: imports are slow on a loaded machine


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def akb_local(*options: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Runs `akb local OPTIONS` until the block ends; yields everything it printed up to its banner's end."""
    child = subprocess.Popen(
        [sys.executable, "-m", "client", "local", *options],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + START_SECONDS
        while not any("Ctrl-C" in line for line in lines):
            line = child.stdout.readline() if child.stdout else ""
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        yield "".join(lines)
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
