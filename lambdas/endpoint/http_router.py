"""The endpoint's ASGI application: exact paths to handlers, JSON errors for everything else.

The API has two paths (`GET /healthz`, `POST /v1/query`) and, where the stack configures SnapStart,
two hook paths (snapstart.py). A path is matched exactly: `/v1/query/` is a 404, never a redirect
built from the Host header. An unknown path answers 404 `not_found`, a known path with another
method 405 `method_not_allowed` with an `Allow` header (GET also allows HEAD), both as the API's
error body. A handler that raises gets the `on_error` response (a 500 without the traceback) if
nothing was sent yet; once a response has started, the exception goes to the server, which closes
the connection. Lifespan messages are acknowledged: there is nothing to start or stop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable

from lambdas.endpoint.http_exchange import App, HttpRequest, Message, Receive, Scope, Send, json_response

Handler = Callable[[HttpRequest], Awaitable[App]]
ErrorHandler = Callable[[HttpRequest], App]

_REASONS = {404: ("not_found", "Not Found"), 405: ("method_not_allowed", "Method Not Allowed")}


def http_error(request: HttpRequest, status: int, headers: dict[str, str] | None = None) -> App:
    """404 or 405 as the API's error body, naming the method and path asked for."""
    code, reason = _REASONS[status]
    message = f"{request.method} {request.path}: {reason}"
    return json_response({"error": {"code": code, "message": message}}, status, headers=headers)


class Router:
    """An ASGI app over `{path: {method: handler}}`; `on_error` answers a handler's exception."""

    def __init__(self, on_error: ErrorHandler) -> None:
        self.routes: dict[str, dict[str, Handler]] = {}
        self.on_error = on_error

    def add_route(self, path: str, handler: Handler, methods: Iterable[str]) -> None:
        allowed = {method.upper() for method in methods}
        if "GET" in allowed:
            allowed.add("HEAD")
        self.routes.setdefault(path, {}).update(dict.fromkeys(allowed, handler))

    async def respond(self, request: HttpRequest) -> App:
        """The handler's response, or the 404/405 the request's path and method call for."""
        by_method = self.routes.get(request.path)
        if by_method is None:
            return http_error(request, 404)
        handler = by_method.get(request.method)
        if handler is None:
            return http_error(request, 405, {"Allow": ", ".join(sorted(by_method))})
        return await handler(request)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":  # no websockets here
            return
        request = HttpRequest(scope, receive)
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            response = await self.respond(request)
            await response(scope, receive, tracked)
        except Exception:
            if started:
                raise
            await self.on_error(request)(scope, receive, send)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
