"""Runs the playground on 127.0.0.1 (uvicorn), on the port given or one the OS picks.

The socket is bound here, before uvicorn starts, so the origin the guard admits
(`http://127.0.0.1:<port>`) is known exactly even for port 0, and the address printed (with this
run's token) is the one that answers. Nothing listens on any other interface.
"""

from __future__ import annotations

import secrets
import socket
import threading
import webbrowser
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import uvicorn

from client.playground.web_routes import create_app

if TYPE_CHECKING:
    from client.endpoint_client import Client
    from client.playground.endpoint_target import Target

LOOPBACK = "127.0.0.1"
BACKLOG = 64
SHUTDOWN_SECONDS = 3  # open streams get this long after Ctrl-C, then they are cut


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port). OSError when the port is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((LOOPBACK, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    return sock


class AnnouncingServer(uvicorn.Server):
    """uvicorn's server, calling `on_started` once it serves and its signal handlers are in place."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.on_started: Callable[[], None] = lambda: None

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.on_started()


@dataclass
class Playground:
    """One run: the page's address (token included), the origin the guard admits, the uvicorn server."""

    page: str
    origin: str
    token: str
    server: AnnouncingServer


def prepare(target: Target, client: Client, sock: socket.socket) -> Playground:
    """The app behind its guard, for the origin `sock` listens on, with a fresh token; not yet serving."""
    port = sock.getsockname()[1]
    origin = f"http://{LOOPBACK}:{port}"
    token = secrets.token_urlsafe(32)
    config = uvicorn.Config(
        create_app(target, client, token, origin),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )
    return Playground(f"{origin}/?token={token}", origin, token, AnnouncingServer(config))


def serve(
    target: Target,
    client: Client,
    sock: socket.socket,
    *,
    open_browser: bool,
    announce: Callable[[str], None],
) -> None:
    """Serves until Ctrl-C (or SIGTERM). `announce` gets the page's address, token included, once the
    server runs: from then on Ctrl-C reaches uvicorn's handler and stops it cleanly (one printed before
    the event loop exists would interrupt the loop's own construction)."""
    playground = prepare(target, client, sock)

    def started() -> None:
        announce(playground.page)
        if open_browser:
            threading.Thread(target=webbrowser.open, args=(playground.page,), daemon=True).start()

    playground.server.on_started = started
    playground.server.run(sockets=[sock])
