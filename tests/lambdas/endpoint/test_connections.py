"""The HTTP edge under misbehaving clients (real uvicorn): no redirect built from request headers,
a client that leaves mid-upload leaves one structured log record, and stalled clients are cut off."""

from __future__ import annotations

import asyncio
import socket
import threading
import time

import httpx
import pytest
import uvicorn

from contract import log_fields as lf
from lambdas.endpoint import http_timeouts
from lambdas.endpoint.asgi_app import create_app
from tests.children import wait_until
from tests.endpoint_server import build_service, start_endpoint
from tests.lambdas.endpoint.test_observability import log_records  # noqa: F401 - fixture


def test_a_trailing_slash_is_a_404_never_a_redirect_built_from_the_host_header(endpoint):
    response = httpx.post(
        f"{endpoint.url}/v1/query/", json={"question": "q"}, headers={"host": "evil.example"}, follow_redirects=False
    )
    assert response.status_code == 404 and "location" not in response.headers
    assert response.json()["error"]["code"] == "not_found"


def _raw(url: str, head: bytes, body: bytes = b"") -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(head + body)
    return sock


def test_a_client_leaving_mid_upload_leaves_one_structured_record_and_no_traceback(endpoint, log_records, capfd):  # noqa: F811
    head = (
        b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"X-Request-Id: upload-1\r\nContent-Length: 1000\r\n\r\n"
    )
    _raw(endpoint.url, head, b'{"question": "wh').close()  # 16 of 1000 bytes, then gone
    wait_until(lambda: [r for r in log_records if r.get(lf.CORRELATION_ID) == "upload-1"], "the request's record")
    endpoint.wait_idle()  # the request is over: anything else it would log (a traceback) is written
    mine = [r for r in log_records if r.get(lf.CORRELATION_ID) == "upload-1"]
    assert len(mine) == 1 and mine[0][lf.STOP_REASON] == "client_closed"
    assert not any("exception" in r or "unhandled" in str(r.get("message")) for r in log_records)
    output = capfd.readouterr()
    assert "Traceback" not in output.out + output.err


def test_a_body_that_stalls_is_answered_408_body_timeout(emulator):
    with start_endpoint(emulator, body_timeout_seconds=0.3) as short:
        head = b"POST /v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        with _raw(short.url, head, b'{"question"') as sock:
            reply = b""
            while b"}}" not in reply and (chunk := sock.recv(65536)):
                reply += chunk
    assert reply.startswith(b"HTTP/1.1 408") and b'"body_timeout"' in reply


@pytest.fixture
def head_timeout_server(emulator, monkeypatch):
    """uvicorn with run.sh's protocol class and a 0.3 s head timeout."""
    monkeypatch.setattr(http_timeouts, "HEAD_TIMEOUT_SECONDS", 0.3)
    app = create_app(build_service(emulator, write_metrics=lambda line: None))
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, http=http_timeouts.H11ReadTimeoutProtocol, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    wait_until(lambda: server.started, "uvicorn to start")
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=5)


@pytest.mark.parametrize("sent", [b"", b"POST /v1/query HTTP/1.1\r\nHost: x\r\n"], ids=["nothing", "half-a-head"])
def test_a_connection_that_sends_no_complete_request_head_is_closed(head_timeout_server, sent):
    with _raw(head_timeout_server, sent) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""  # closed by the server, without an answer
    assert time.monotonic() - started < 3


def test_a_slow_but_complete_request_is_not_cut_off(head_timeout_server):
    assert httpx.get(f"{head_timeout_server}/healthz").status_code == 200
    with httpx.Client() as client:  # the same connection, twice: the timer re-arms per request
        assert client.get(f"{head_timeout_server}/healthz").status_code == 200
        time.sleep(0.1)  # the client dawdles between its requests: what is tested (0.1 s < the 0.3 s head timeout)
        assert client.get(f"{head_timeout_server}/healthz").status_code == 200


def test_run_sh_serves_with_the_read_timeout_protocol_and_connection_limits():
    from tests.lambdas.test_run_sh import RUN_SH

    text = RUN_SH.read_text()
    assert "--http lambdas.endpoint.http_timeouts:H11ReadTimeoutProtocol" in text
    assert "--backlog 2048" in text and "--timeout-keep-alive 5" in text
