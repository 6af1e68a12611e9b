"""The playground's app under a real uvicorn on a background thread, for the server-level tests.

The same `bind_loopback` + `prepare` path `akb playground` runs (client/playground/web_server.py), so
the guard admits exactly this server's origin; only the Client (and so the endpoint) is the test's.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import httpx

from client.endpoint_client import Client
from client.playground.endpoint_target import Target
from client.playground.web_server import Playground, bind_loopback, prepare
from tests.children import wait_until


@contextlib.contextmanager
def serving(target: Target, client: Client) -> Iterator[Playground]:
    sock = bind_loopback(0)
    playground = prepare(target, client, sock)
    thread = threading.Thread(target=playground.server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: playground.server.started or not thread.is_alive(), "the playground to start")
    if not playground.server.started:
        raise RuntimeError("the playground did not start")
    try:
        yield playground
    finally:
        playground.server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def headers(playground: Playground) -> dict[str, str]:
    """What the page sends: its origin and the token it was served with."""
    return {"origin": playground.origin, "x-playground-token": playground.token}


def frames(playground: Playground, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every (type, data) frame /api/query streamed for `body`."""
    from tests.endpoint_server import iter_frames

    with httpx.stream(
        "POST", f"{playground.origin}/api/query", json=body, headers=headers(playground), timeout=30
    ) as response:
        assert response.status_code == 200, response.read()
        return [(frame.type, frame.data) for frame in iter_frames(response)]
