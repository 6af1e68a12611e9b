"""One HTTP exchange in plain ASGI: the request the handlers read, the responses they return.

The endpoint serves two fixed paths and streams its own responses (event_response.py), so it needs
a request's method, path, headers and body, and a JSON or empty response — no forms, cookies, URL
building or middleware stack. Starlette provided these and cost about a tenth of the function's init
(its import, measured in instructions: bench/RESULTS.md, "Endpoint init in instructions"); these few
classes keep its behaviour where clients can see it: header lookup returns the first copy of a
header, JSON bodies are compact UTF-8 without NaN, and every response carries content-length and,
with a body, content-type. https://asgi.readthedocs.io/en/latest/specs/www.html
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from typing import Any, overload

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class ClientDisconnect(Exception):
    """The client hung up before sending the whole body."""


class Headers:
    """A request's headers by lower-case name; a repeated header answers with its first copy."""

    def __init__(self, raw: list[tuple[bytes, bytes]]) -> None:
        self.raw = raw

    @overload
    def get(self, name: str) -> str | None: ...
    @overload
    def get(self, name: str, default: str) -> str: ...

    def get(self, name: str, default: str | None = None) -> str | None:
        wanted = name.lower().encode("latin-1")
        for key, value in self.raw:
            if key.lower() == wanted:
                return value.decode("latin-1")
        return default


class HttpRequest:
    """The request a handler reads: its ASGI scope, headers and body stream (read once)."""

    def __init__(self, scope: Scope, receive: Receive) -> None:
        self.scope = scope
        self.receive = receive
        self.headers = Headers(scope.get("headers", []))

    @property
    def method(self) -> str:
        return str(self.scope["method"])

    @property
    def path(self) -> str:
        return str(self.scope["path"])

    async def stream(self) -> AsyncIterator[bytes]:
        """The body's chunks as they arrive; ClientDisconnect if the client leaves first."""
        while True:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect
            chunk = message.get("body", b"")
            if chunk:
                yield chunk
            if not message.get("more_body", False):
                return


def raw_headers(headers: Mapping[str, str]) -> list[tuple[bytes, bytes]]:
    """ASGI's header list: lower-case latin-1 names and latin-1 values."""
    return [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


class HttpResponse:
    """A whole response: status, headers and a body sent in one message (content-length always set)."""

    def __init__(
        self,
        status_code: int,
        body: bytes = b"",
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
    ) -> None:
        self.status_code = status_code
        self.body = body
        self.raw_headers = raw_headers(headers or {})
        names = {name for name, _ in self.raw_headers}
        if b"content-length" not in names:
            self.raw_headers.append((b"content-length", str(len(body)).encode("latin-1")))
        if media_type is not None and b"content-type" not in names:
            self.raw_headers.append((b"content-type", media_type.encode("latin-1")))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        await send({"type": "http.response.body", "body": self.body})


def json_response(content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None) -> HttpResponse:
    """`content` as compact UTF-8 JSON (NaN refused: JSON has none)."""
    body = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return HttpResponse(status_code, body, headers, media_type="application/json")
