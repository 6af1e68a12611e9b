"""The request and responses of one exchange (lambdas/endpoint/http_exchange.py), over raw ASGI messages."""

from __future__ import annotations

import asyncio
import json

import pytest

from lambdas.endpoint.http_exchange import ClientDisconnect, Headers, HttpRequest, HttpResponse, json_response


def _receive_from(*messages):
    queue = list(messages)

    async def receive():
        return queue.pop(0)

    return receive


async def _body_of(request: HttpRequest) -> list[bytes]:
    return [chunk async for chunk in request.stream()]


async def _sent_by(response) -> list[dict]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    await response({"type": "http"}, _receive_from(), send)
    return sent


def test_a_header_is_found_by_any_case_and_a_repeated_one_answers_with_its_first_copy():
    headers = Headers(
        [
            (b"Content-Type", b"application/json"),
            (b"x-amzn-request-context", b"first"),
            (b"x-amzn-request-context", b"second"),
        ]
    )
    assert headers.get("content-type") == "application/json"
    assert headers.get("X-Amzn-Request-Context") == "first"
    assert headers.get("accept") is None and headers.get("accept", "") == ""


def test_the_body_arrives_chunk_by_chunk_and_a_hang_up_is_a_client_disconnect():
    scope = {"type": "http", "method": "POST", "path": "/v1/query", "headers": []}
    whole = HttpRequest(
        scope,
        _receive_from(
            {"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.request", "body": b"c"}
        ),
    )
    assert asyncio.run(_body_of(whole)) == [b"ab", b"c"]
    assert (whole.method, whole.path) == ("POST", "/v1/query")
    cut = HttpRequest(
        scope, _receive_from({"type": "http.request", "body": b"ab", "more_body": True}, {"type": "http.disconnect"})
    )
    with pytest.raises(ClientDisconnect):
        asyncio.run(_body_of(cut))


def test_a_json_response_is_compact_utf8_with_its_length_and_type():
    sent = asyncio.run(_sent_by(json_response({"message": "Grüße", "n": [1, 2]}, 403, {"X-Request-Id": "r-1"})))
    start, body = sent
    assert start["status"] == 403
    assert start["headers"] == [
        (b"x-request-id", b"r-1"),
        (b"content-length", b"31"),
        (b"content-type", b"application/json"),
    ]
    assert body["body"] == '{"message":"Grüße","n":[1,2]}'.encode() and len(body["body"]) == 31
    assert json.loads(body["body"]) == {"message": "Grüße", "n": [1, 2]}


def test_json_has_no_nan_and_an_empty_response_still_says_its_length():
    with pytest.raises(ValueError):
        json_response({"score": float("nan")})
    start, body = asyncio.run(_sent_by(HttpResponse(400)))
    assert start == {"type": "http.response.start", "status": 400, "headers": [(b"content-length", b"0")]}
    assert body == {"type": "http.response.body", "body": b""}
