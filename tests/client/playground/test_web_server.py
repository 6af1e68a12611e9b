"""client/playground/web_server.py: when `akb playground` says it runs, Ctrl-C stops it cleanly."""

from __future__ import annotations

import signal
from typing import Any

import pytest
import uvicorn

from client.endpoint_client import Client
from client.playground.endpoint_target import Target
from client.playground.web_server import bind_loopback, serve


def test_the_address_is_announced_once_uvicorn_owns_ctrl_c() -> None:
    """Announced earlier, a Ctrl-C after the banner could land while the event loop was being built
    and end in a traceback (a docs test saw it once); announced from the running server, Ctrl-C goes
    to uvicorn's handler, which drains the server and re-raises the interrupt for the command."""
    seen: dict[str, Any] = {}

    def announce(page: str) -> None:
        seen["page"] = page
        seen["handler"] = signal.getsignal(signal.SIGINT)
        signal.raise_signal(signal.SIGINT)  # the user's Ctrl-C right after reading the address

    sock = bind_loopback(0)
    port = sock.getsockname()[1]
    target = Target("http://127.0.0.1:9", None, False, "--url")
    try:
        with Client(target.url) as client, pytest.raises(KeyboardInterrupt):
            serve(target, client, sock, open_browser=False, announce=announce)
    finally:
        sock.close()
    assert seen["page"].startswith(f"http://127.0.0.1:{port}/?token=")
    assert isinstance(getattr(seen["handler"], "__self__", None), uvicorn.Server)
