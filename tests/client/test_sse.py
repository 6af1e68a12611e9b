"""The SSE and NDJSON decoders turn the endpoint's framings into the same typed events."""

from __future__ import annotations

import pytest

from client.sse import StreamDecodeError, decode_ndjson, decode_sse
from contract.events import TextEvent
from tests.client.stub_endpoint import ndjson, sample_events, sse


def _lines(raw: bytes) -> list[str]:
    return raw.decode().split("\n")


def test_sse_and_ndjson_decode_to_the_same_typed_events():
    events = sample_events()
    assert list(decode_sse(_lines(sse(*events)))) == events
    assert list(decode_ndjson(_lines(ndjson(*events)))) == events


def test_sse_ignores_comments_and_joins_multi_line_data():
    lines = [": keep-alive", "", "event: text", 'data: {"delta":', 'data:  "a\\nb"}', "retry: 10", ""]
    assert list(decode_sse(lines)) == [TextEvent("a\nb")]


def test_sse_yields_a_final_frame_missing_its_blank_line():
    assert list(decode_sse(["event: text", 'data: {"delta": "x"}'])) == [TextEvent("x")]


def test_unknown_event_types_are_skipped_for_forward_compatibility():
    lines = ["event: progress", 'data: {"pct": 5}', "", "event: text", 'data: {"delta": "y"}', ""]
    assert list(decode_sse(lines)) == [TextEvent("y")]
    assert list(decode_ndjson(['{"type": "progress"}', '{"type": "text", "delta": "y"}'])) == [TextEvent("y")]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["event: text", "data: {not json", ""], "not JSON"),
        (["event: text", "data: [1]", ""], "not a JSON object"),
        (["event: done", 'data: {"requestId": "r"}', ""], "does not match the contract"),
    ],
)
def test_invalid_sse_frames_raise_decode_errors(lines, message):
    with pytest.raises(StreamDecodeError, match=message):
        list(decode_sse(lines))


def test_ndjson_line_without_type_is_an_error():
    with pytest.raises(StreamDecodeError, match="without a string 'type'"):
        list(decode_ndjson(['{"delta": "x"}']))
