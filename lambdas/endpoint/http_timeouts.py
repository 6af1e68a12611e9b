"""uvicorn's h11 protocol with a read timeout on the request head (run.sh: `--http` takes this class).

uvicorn closes idle keep-alive connections (`--timeout-keep-alive`) but has no read timeout: a
client that connects and sends nothing, or sends half a request line and stalls, holds its
connection (a descriptor, a slot in the backlog) forever, and any byte it trickles in cancels the
keep-alive timer. This protocol closes a connection that has not delivered a complete request head
within HEAD_TIMEOUT_SECONDS of connecting or of its previous response. The body has its own bound
in the app (query.py: `Service.body_timeout_seconds`, answered 408). Behind the Lambda Web Adapter
the client is the adapter on 127.0.0.1, so the limit only ever fires for a broken or hostile client
(`akb local`, which serves the same run.sh on a developer's machine).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_SECONDS = 10.0


class H11ReadTimeoutProtocol(H11Protocol):
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # the request head is in: the app takes over
            self._disarm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()  # the next request on this connection gets the same bound

    def _arm_head_timer(self) -> None:
        self._disarm_head_timer()
        self._head_timer = self.loop.call_later(HEAD_TIMEOUT_SECONDS, self._head_timed_out)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
