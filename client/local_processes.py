"""Waiting for and stopping a local endpoint child process (`akb local`, `akb eval --local`)."""

from __future__ import annotations

import subprocess
import time
import urllib.request

READY_SECONDS = 30


def wait_ready(url: str, process: subprocess.Popen, timeout: float = READY_SECONDS) -> bool:
    """True once `url`/healthz answers 200; False if `process` exits first or `timeout` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:  # noqa: S310 - our own URL
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def stop(process: subprocess.Popen, grace_seconds: float = 5) -> None:
    """SIGTERM (run.sh and uvicorn shut down cleanly on it), then SIGKILL after `grace_seconds`."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    """Whether binding `host:port` fails the way a server's bind would (SO_REUSEADDR on, as uvicorn's)."""
    import errno
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            return error.errno in (errno.EADDRINUSE, errno.EACCES)
    return False
