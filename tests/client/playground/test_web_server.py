"""client/playground/web_server.py: when `akb playground` says it runs, Ctrl-C stops it cleanly."""

from __future__ import annotations

import signal

import uvicorn

from client.endpoint_client import Client
from client.playground.endpoint_target import Target
from client.playground.web_server import bind_loopback, serve


def test_the_address_is_announced_once_uvicorn_owns_ctrl_c() -> None:
    """Announced earlier, a Ctrl-C after the banner could land while the event loop was being built
    and end in a traceback (a docs test saw it once); announced from the running server, Ctrl-C goes
    to uvicorn's handler, which drains the server and re-raises the interrupt for the command.

    No real signal is raised here: uvicorn's handler, once called in a process, also sets
    sse-starlette's process-wide exit flag, which would end every later SSE response of this worker
    (the MCP SDK's among them). The handler's server is stopped as that handler would stop it."""
    announced: list[str] = []

    def announce(page: str) -> None:
        announced.append(page)
        handler = signal.getsignal(signal.SIGINT)
        server = getattr(handler, "__self__", None)
        assert isinstance(server, uvicorn.Server), f"Ctrl-C would reach {handler!r}, not uvicorn"
        assert server.started
        server.should_exit = True

    sock = bind_loopback(0)
    port = sock.getsockname()[1]
    target = Target("http://127.0.0.1:9", None, False, "--url")
    try:
        with Client(target.url) as client:
            serve(target, client, sock, open_browser=False, announce=announce)
    finally:
        sock.close()
    assert len(announced) == 1
    assert announced[0].startswith(f"http://127.0.0.1:{port}/?token=")
