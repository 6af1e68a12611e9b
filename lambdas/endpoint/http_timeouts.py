"""uvicorn's h11 protocol with bounds on the request head: its time and its size (run.sh: `--http`).

Time. uvicorn closes idle keep-alive connections (`--timeout-keep-alive`) but has no read timeout: a
client that connects and sends nothing, or sends half a request line and stalls, holds its
connection (a descriptor, a slot in the backlog) forever, and any byte it trickles in cancels the
keep-alive timer. This protocol closes a connection that has not delivered a complete request head
within HEAD_TIMEOUT_SECONDS of connecting or of its previous response. The body has its own bound
in the app (intake.py with `Service.body_timeout_seconds`, answered 408).

Size. A request head (request line, header lines, the blank line) is at most MAX_HEAD_BYTES (16 KiB,
docs/endpoint.md); a bigger one is answered 431 and the connection closed. h11's
`max_incomplete_event_size` (run.sh passes the same 16384) only bounds a head that is still
incomplete: a 60 KB head arriving in one read, or queued behind another request on the same
connection, was parsed whole and accepted. The connection class here measures every head h11
parses (the bytes it consumed, through h11's public `trailing_data`) and refuses the ones over.

Behind the Lambda Web Adapter the client is the adapter on 127.0.0.1, which adds its own
`x-amzn-request-context` header (about 1 KB) to what the front door forwards, so both limits only
ever fire for a broken or hostile client (`akb local` serves the same run.sh on a developer's machine).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_SECONDS = 10.0
MAX_HEAD_BYTES = 16384  # docs/endpoint.md; run.sh's --h11-max-incomplete-event-size is the same number
HEAD_TOO_LARGE = f"request head larger than {MAX_HEAD_BYTES} bytes (request line and headers); send fewer headers"


class HeadBoundConnection(h11.Connection):
    """h11's server connection that refuses any request head over `max_head_bytes`, complete or not."""

    def __init__(self, max_head_bytes: int = MAX_HEAD_BYTES) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=max_head_bytes)
        self.max_head_bytes = max_head_bytes
        self.head_too_large = False

    def next_event(self) -> Any:
        if self.their_state is not h11.IDLE:  # a body, or the end of one: not a head
            return super().next_event()
        waiting = len(self.trailing_data[0])
        try:
            event = super().next_event()
        except h11.RemoteProtocolError as error:
            self.head_too_large = error.error_status_hint == 431  # h11's own bound on an incomplete head
            raise
        if isinstance(event, h11.Request) and waiting - len(self.trailing_data[0]) > self.max_head_bytes:
            self.head_too_large = True
            raise h11.RemoteProtocolError(HEAD_TOO_LARGE, error_status_hint=431)
        return event


class H11ReadTimeoutProtocol(H11Protocol):
    _head_timer: asyncio.TimerHandle | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bounded = HeadBoundConnection()
        self.conn = self.bounded  # uvicorn reads and writes through `conn`

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm_head_timer()

    def send_400_response(self, msg: str) -> None:
        """uvicorn answers every protocol error 400; a head over the bound gets 431 saying so."""
        if not self.bounded.head_too_large:
            super().send_400_response(msg)
            return
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        response = h11.Response(status_code=431, headers=headers, reason=b"Request Header Fields Too Large")
        for event in (response, h11.Data(data=HEAD_TOO_LARGE.encode()), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()

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
