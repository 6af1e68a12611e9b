"""The ASGI response that streams a request's events: headers with the first frame, each frame as it exists.

It notices a client that goes away with two asyncio tasks (one sends, one waits for
`http.disconnect`), not a task group of another library, which keeps a cold start's first request and
the first event's path short (bench/RESULTS.md). It waits for the first frame before it
sends the status line, so headers and first frame leave back to back. Whatever ends the stream
— its last frame, a client that hangs up, a server shutting down — the frames' generator is closed
before the response returns, so its cleanup (the upstream call ends; `finish` writes `done`) runs at
once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Mapping

from lambdas.endpoint.http_exchange import Receive, Scope, Send, raw_headers

_NO_MORE = {"type": "http.response.body", "body": b"", "more_body": False}


async def disconnected(receive: Receive) -> None:
    """Returns once the client hangs up (the body has been read: nothing else can arrive)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class EventStreamResponse:
    """200 with the frames as its body, each sent as it exists (no content-length: its end is the stream's)."""

    def __init__(self, frames: AsyncGenerator[bytes, None], media_type: str, headers: Mapping[str, str]) -> None:
        self.frames = frames
        content_type = f"{media_type}; charset=utf-8" if media_type.startswith("text/") else media_type
        self.raw_headers = raw_headers(headers)
        self.raw_headers.append((b"content-type", content_type.encode("latin-1")))

    async def _send_all(self, send: Send) -> None:
        first = await anext(self.frames, None)
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        if first is not None:
            await send({"type": "http.response.body", "body": first, "more_body": True})
            async for frame in self.frames:
                await send({"type": "http.response.body", "body": frame, "more_body": True})
        await send(_NO_MORE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sending = asyncio.ensure_future(self._send_all(send))
        watching = asyncio.ensure_future(disconnected(receive))
        try:
            await asyncio.wait({sending, watching}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watching.cancel()
            if not sending.done():
                sending.cancel()
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await sending
            await self.frames.aclose()
