"""Who may use the playground's server: the page it served, in the browser it was opened in. Nobody else.

The server signs requests with the developer's AWS credentials, so a web page elsewhere must not be
able to make it ask anything. Four checks, on every request before the routes see it:

- **Host**: exactly `127.0.0.1:<port>`, once. A DNS-rebinding page reaches 127.0.0.1 under its own
  name (`evil.example:<port>`), so any other Host is refused (403 `forbidden_host`).
- **Origin**: when present (browsers send it on every POST and on cross-origin requests), exactly
  `http://127.0.0.1:<port>`; a POST must carry it (403 `forbidden_origin`).
- **Sec-Fetch-Site**: when present, `same-origin` (or `none`, a typed address) — a cross-site
  request is refused even if it forged nothing else (403 `forbidden_site`).
- **Token**: a random value made at start-up. The page is served only at `/?token=<token>` (the
  address the command prints and opens), and embeds it; every `/api/` call sends it back in
  `X-Playground-Token`. Compared in constant time (403 `bad_token`). Another user of the machine can
  reach 127.0.0.1 too, but has no token.

Every response also carries a strict Content-Security-Policy (scripts, styles and connections from
this origin only: nothing is fetched from the internet), no framing, no referrer, no caching of the
page (it holds the token).
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_HEADER = "x-playground-token"  # noqa: S105 - a header name, not a secret
API_PREFIX = "/api/"
PAGE_PATHS = frozenset({"/"})
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)


@dataclass(frozen=True)
class Refusal:
    status: int
    code: str
    message: str


def same_token(given: str | None, token: str) -> bool:
    """Constant-time comparison (hmac.compare_digest), so timing says nothing about the token."""
    return given is not None and hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))


def _values(scope: Scope, name: bytes) -> list[str]:
    """Every value of a header, as sent: a duplicated Host or Origin is seen, not collapsed to the first."""
    return [value.decode("latin-1") for key, value in scope.get("headers", []) if key.lower() == name]


def check_request(scope: Scope, origin: str, token: str) -> Refusal | None:
    """None when the request may go on; otherwise why not (the response says it)."""
    host = origin.removeprefix("http://")
    hosts = _values(scope, b"host")
    if hosts != [host]:
        return Refusal(403, "forbidden_host", f"this playground answers only to Host {host}, not {hosts or 'none'}")
    origins = _values(scope, b"origin")
    if origins and origins != [origin]:
        return Refusal(403, "forbidden_origin", f"requests from {origins[0]} are refused; only {origin} may call")
    if scope.get("method") not in ("GET", "HEAD") and not origins:
        return Refusal(403, "forbidden_origin", f"a {scope.get('method')} must carry Origin {origin}")
    sites = _values(scope, b"sec-fetch-site")
    if sites and sites[0] not in ("same-origin", "none"):
        return Refusal(403, "forbidden_site", f"a {sites[0]} request is refused; use the page at {origin}/")
    path = str(scope.get("path", ""))
    if path.startswith(API_PREFIX):
        given = _values(scope, TOKEN_HEADER.encode())
        if len(given) != 1 or not same_token(given[0], token):
            return Refusal(403, "bad_token", "missing or wrong playground token: reload the page akb playground opened")
    elif path in PAGE_PATHS:
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if not same_token((query.get("token") or [None])[0], token):
            return Refusal(403, "bad_token", "open the address `akb playground` printed: it carries this run's token")
    return None


class LoopbackGuard:
    """ASGI middleware: refuses what `check_request` refuses, and adds the security headers to every answer."""

    def __init__(self, app: ASGIApp, origin: str, token: str) -> None:
        self.app, self.origin, self.token = app, origin, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        refusal = check_request(scope, self.origin, self.token)
        if refusal is None:
            await self.app(scope, receive, send_secured)
            return
        await _refuse(refusal, str(scope.get("path", "")).startswith(API_PREFIX), send_secured)


async def _refuse(refusal: Refusal, as_json: bool, send: Send) -> None:
    if as_json:
        body = json.dumps({"error": {"code": refusal.code, "message": refusal.message}}).encode()
        content_type = b"application/json"
    else:
        body = f"{refusal.status} {refusal.code}: {refusal.message}\n".encode()
        content_type = b"text/plain; charset=utf-8"
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": refusal.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
