"""SSE and NDJSON framing of the shared event types."""

from __future__ import annotations

import json

from contract.events import SubQuery, TextEvent, TraceEvent, event_from_dict
from lambdas.endpoint.encoding import NDJSON, SSE, encoder_for


def test_sse_frames_one_event_per_block_with_single_line_json():
    event = TraceEvent(
        step="Planning",
        status="SUCCEEDED",
        elapsedMs=5,
        message="line1\nline2",
        subQueries=[SubQuery("q", ["docs"])],
    )
    frame = encoder_for(None).encode(event).decode()
    assert frame.endswith("\n\n") and frame.count("\n") == 3
    kind, data = frame.splitlines()[:2]
    assert kind == "event: trace"
    assert event_from_dict("trace", json.loads(data.removeprefix("data: "))) == event


def test_ndjson_is_one_typed_object_per_line():
    line = encoder_for("application/x-ndjson").encode(TextEvent("héllo")).decode()
    assert line.endswith("\n") and json.loads(line) == {"type": "text", "delta": "héllo"}


def test_accept_negotiation_prefers_the_first_supported_type():
    assert encoder_for("application/x-ndjson, text/event-stream").media_type == NDJSON
    assert encoder_for("text/event-stream;q=1, application/x-ndjson").media_type == SSE
    assert encoder_for("*/*").media_type == SSE
    assert encoder_for("text/html").media_type == SSE
