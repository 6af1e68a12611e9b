"""The test-only control API over plain HTTP."""

from __future__ import annotations

import httpx

from local.emulator import kb_id_for
from tests.local.emulator_helpers import request, run


def test_knowledge_bases_are_listed_with_ids_and_counts(emulator):
    listed = {kb["folder"]: kb for kb in httpx.get(f"{emulator.url}/_emulator/knowledgebases").json()}
    assert {k: (v["id"], v["document_count"]) for k, v in listed.items()} == {
        "docs": (kb_id_for("docs"), 21),  # 20 text documents and one image
        "tickets": (kb_id_for("tickets"), 15),
        "handbook": (kb_id_for("handbook"), 5),
        "wiki": (kb_id_for("wiki"), 5),
    }
    assert listed["wiki"]["description"] == "Team wiki pages about services, owners and incidents."


def test_faults_are_set_read_and_reset_over_http(emulator):
    url = f"{emulator.url}/_emulator/faults"
    assert httpx.post(url, json={"delay_ms": 50, "throttle_before": 2}).json()["throttle_before"] == 2
    assert httpx.get(url).json()["delay_ms"] == 50
    state = httpx.post(url, json={"reset": True}).json()
    assert (state["delay_ms"], state["throttle_before"]) == (0, 0)


def test_bad_fault_specs_are_rejected_without_changing_anything(emulator):
    url = f"{emulator.url}/_emulator/faults"
    bad = (
        {"throttle_before": -1},
        {"nonsense": 1},
        {"error_type": "NoSuchException"},
        {"delay_first_ms": -1},
        {"instruction_inactive": "yes"},
        [1],
    )
    for body in bad:
        response = httpx.post(url, json=body)
        assert response.status_code == 400 and response.json()["message"]
    assert httpx.get(url).json()["throttle_before"] == 0


def test_requests_and_streams_are_recorded_newest_last(bedrock, emulator):
    run(bedrock, **request("first"))
    run(bedrock, **request("second"))
    entries = httpx.get(f"{emulator.url}/_emulator/requests").json()
    assert [e["body"]["messages"][0]["content"]["text"] for e in entries] == ["first", "second"]
    streams = httpx.get(f"{emulator.url}/_emulator/streams").json()
    assert [s["outcome"] for s in streams] == ["completed", "completed"]
    assert streams[-1]["request_seq"] == entries[-1]["seq"] and streams[-1]["events_sent"] > 3
    assert httpx.delete(f"{emulator.url}/_emulator/requests").status_code == 200
    assert httpx.get(f"{emulator.url}/_emulator/requests").json() == []


def test_unknown_paths_are_404(emulator):
    response = httpx.post(f"{emulator.url}/nope", json={})
    assert response.status_code == 404 and "message" in response.json()


def test_stream_connections_have_nagle_disabled(bedrock, emulator):
    """Headers and events are separate small writes; with Nagle on, a reused connection would stall
    each first event for the peer's delayed ACK. The server journals what the socket reports."""
    run(bedrock, **request("first"))
    run(bedrock, **request("second"))  # on the connection botocore keeps alive
    assert [s["tcp_nodelay"] for s in emulator.streams()] == [True, True]
