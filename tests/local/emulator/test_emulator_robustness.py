"""The emulator under abuse: bursts of connections, deep nesting, chunked bodies, clients that leave."""

from __future__ import annotations

import json
import select
import socket
import time

import httpx
import pytest
from botocore.exceptions import ClientError, ConnectionClosedError, ReadTimeoutError

from local.emulator import kb_id_for
from local.emulator.corpus import DEFAULT_CORPUS, load_corpus
from local.emulator.server import EmulatorServer, EmulatorState
from tests.local.emulator_helpers import request, run


def _connected_within(sockets: list[socket.socket], seconds: float) -> int:
    """How many non-blocking connects completed (writable, no error) within `seconds`."""
    pending, done = set(sockets), 0
    deadline = time.monotonic() + seconds
    while pending and time.monotonic() < deadline:
        _, writable, _ = select.select([], list(pending), [], max(0.0, deadline - time.monotonic()))
        for sock in writable:
            pending.discard(sock)
            done += sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
    return done


def test_a_burst_of_connections_queues_in_the_listen_backlog_instead_of_being_dropped():
    # The server is bound and listening but not accepting yet: only the kernel's backlog holds them.
    server = EmulatorServer(0, EmulatorState(load_corpus(DEFAULT_CORPUS), 0))
    sockets = [socket.socket() for _ in range(200)]
    try:
        for sock in sockets:
            sock.setblocking(False)
            sock.connect_ex(server.server_address)
        assert _connected_within(sockets, 0.5) == 200  # with socketserver's backlog of 5: about 6
    finally:
        for sock in sockets:
            sock.close()
        server.server_close()


def _nested_filter(depth: int) -> dict:
    node: dict = {"equals": {"key": "a", "value": 1}}
    for _ in range(depth):
        node = {"andAll": [node, {"equals": {"key": "b", "value": 2}}]}
    return node


def test_a_deeply_nested_filter_is_a_validation_error_not_a_500(emulator):
    body = request("API key", folders=("docs",))
    body["retrievers"][0]["configuration"]["knowledgeBase"]["retrievalOverrides"] = {"filter": _nested_filter(400)}
    response = httpx.post(f"{emulator.url}/agenticRetrieveStream", content=json.dumps(body))
    assert response.status_code == 400
    assert response.headers["x-amzn-ErrorType"] == "ValidationException"
    assert "nests too deeply" in response.json()["message"]


def test_deeply_nested_fault_specs_are_rejected_with_400(emulator):
    response = httpx.post(f"{emulator.url}/_emulator/faults", content=b"[" * 50_000)
    assert response.status_code == 400 and "Traceback" not in response.text


def test_a_chunked_request_body_is_read_whole_and_the_connection_stays_usable(emulator):
    raw = json.dumps(request("exports", folders=("docs",))).encode()
    with httpx.Client() as client:
        # A generator body makes httpx send `Transfer-Encoding: chunked` (one chunk per piece).
        response = client.post(f"{emulator.url}/agenticRetrieveStream", content=iter([raw[:40], raw[40:]]))
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/vnd.amazon.eventstream"
        assert client.get(f"{emulator.url}/_emulator/health").json() == {"status": "ok"}  # same connection
    (entry,) = emulator.requests()
    assert entry["body"]["messages"][0]["content"]["text"] == "exports"


def test_a_malformed_chunked_body_is_rejected_and_the_connection_closed(emulator):
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=5) as sock:
        sock.sendall(b"POST /agenticRetrieveStream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 400") and b"ValidationException" in reply


def test_delay_first_ms_stops_as_soon_as_the_client_has_left(emulator):
    impatient = emulator.client(retries={"mode": "standard", "total_max_attempts": 1}, read_timeout=0.2)
    emulator.set_faults(delay_first_ms=5000)
    started = time.monotonic()
    with pytest.raises(ReadTimeoutError):
        impatient.agentic_retrieve_stream(**request("exports"))
    while time.monotonic() - started < 4 and not emulator.streams()[-1]["finished"]:
        time.sleep(0.02)
    record = emulator.streams()[-1]
    assert record["finished"] and time.monotonic() - started < 1.5  # not after the 5 s hold
    assert (record["outcome"], record["events_sent"]) == ("client_closed", 0)


def test_disconnect_before_closes_the_connection_without_an_answer(bedrock, emulator):
    emulator.set_faults(disconnect_before=1)
    with pytest.raises(ConnectionClosedError):
        bedrock.agentic_retrieve_stream(**request("exports"))
    assert "result" in run(bedrock, **request("exports"))[-1]  # consumed: the next request is served


def test_failing_knowledge_bases_fail_every_retrieve_on_them_until_reset(bedrock, emulator):
    emulator.set_faults(failing_knowledge_bases={kb_id_for("tickets"): "throttlingException"})
    query = {"retrievalQuery": {"text": "API key"}}
    for _ in range(2):
        with pytest.raises(ClientError) as caught:
            bedrock.retrieve(knowledgeBaseId=kb_id_for("tickets"), **query)
        assert caught.value.response["Error"]["Code"] == "ThrottlingException"
    assert bedrock.retrieve(knowledgeBaseId=kb_id_for("docs"), **query)["retrievalResults"]
    emulator.reset()
    assert "retrievalResults" in bedrock.retrieve(knowledgeBaseId=kb_id_for("tickets"), **query)


def test_failing_knowledge_bases_must_name_known_error_types(emulator):
    response = httpx.post(f"{emulator.url}/_emulator/faults", json={"failing_knowledge_bases": {"x": "Nope"}})
    assert response.status_code == 400
    assert emulator.set_faults()["failing_knowledge_bases"] == {}
