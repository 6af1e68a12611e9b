"""The endpoint's router (lambdas/endpoint/http_router.py): exact paths, JSON 404/405, a 500 without the
traceback before anything was sent, the exception to the server after, and lifespan acknowledged."""

from __future__ import annotations

import asyncio

import pytest

from lambdas.endpoint.http_exchange import HttpResponse, json_response
from lambdas.endpoint.http_router import Router

ERROR_BODY = {"error": {"code": "internal", "message": "internal error"}}


def _router() -> Router:
    async def health(request):
        return json_response({"status": "ok"})

    async def broken(request):
        raise RuntimeError("arn:aws:iam::123456789012:role/secret")  # an internal detail

    async def half_sent(request):
        async def respond(scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": []})
            raise RuntimeError("after the status line")

        return respond

    router = Router(on_error=lambda request: json_response(ERROR_BODY, 500))
    router.add_route("/healthz", health, methods=["GET"])
    router.add_route("/broken", broken, methods=["POST"])
    router.add_route("/half", half_sent, methods=["POST"])
    return router


def _call(router: Router, method: str, path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b""}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "headers": []}
    asyncio.run(router(scope, receive, send))
    return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])


def test_a_known_path_answers_with_its_handler_and_get_also_serves_head():
    assert _call(_router(), "GET", "/healthz")[::2] == (200, b'{"status":"ok"}')
    assert _call(_router(), "HEAD", "/healthz")[0] == 200


def test_unknown_paths_are_404_and_other_methods_405_with_allow_both_in_the_apis_error_body():
    status, headers, body = _call(_router(), "POST", "/healthz/")  # exact paths: no redirect, no prefix
    assert status == 404 and b"location" not in headers
    assert body == b'{"error":{"code":"not_found","message":"POST /healthz/: Not Found"}}'
    status, headers, body = _call(_router(), "DELETE", "/healthz")
    assert status == 405 and headers[b"allow"] == b"GET, HEAD"
    assert body == b'{"error":{"code":"method_not_allowed","message":"DELETE /healthz: Method Not Allowed"}}'


def test_a_handler_that_raises_before_sending_gets_the_error_response_and_no_detail_leaks():
    status, _, body = _call(_router(), "POST", "/broken")
    assert status == 500 and body == b'{"error":{"code":"internal","message":"internal error"}}'
    assert b"123456789012" not in body and b"Traceback" not in body


def test_an_exception_after_the_status_line_goes_to_the_server():
    with pytest.raises(RuntimeError, match="after the status line"):
        _call(_router(), "POST", "/half")


def test_lifespan_is_acknowledged_and_other_scopes_get_nothing():
    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent: list[dict] = []

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message)

    asyncio.run(_router()({"type": "lifespan"}, receive, send))
    assert sent == [{"type": "lifespan.startup.complete"}, {"type": "lifespan.shutdown.complete"}]
    asyncio.run(_router()({"type": "websocket", "path": "/healthz"}, receive, send))
    assert len(sent) == 2


def test_a_route_added_later_joins_the_others():
    router = _router()

    async def hook(request):
        return HttpResponse(204)

    router.add_route("/hook", hook, methods=["post"])
    assert sorted(router.routes["/hook"]) == ["POST"] and _call(router, "POST", "/hook")[0] == 204
