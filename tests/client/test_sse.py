"""The SSE and NDJSON decoders turn the endpoint's framings into the same typed events, splitting lines
only where the specs do (CR, LF, CRLF for SSE; LF for NDJSON)."""

from __future__ import annotations

import json

import pytest

from client.sse import StreamDecodeError, decode_ndjson, decode_sse, ndjson_lines
from contract.events import ResultEvent, ResultItem, TextEvent
from lambdas.endpoint.encoding import NDJSON, SSE, Encoder
from tests.client.stub_endpoint import ndjson, sample_events, sse

# Every character Python's str.splitlines() (and so httpx's iter_lines()) treats as a line end,
# but neither SSE nor NDJSON does (with CR alone, which SSE does treat as one: it is always escaped
# inside JSON, so it can only appear between frames).
LINE_SEPARATORS = "\u2028\u2029\u0085\u000b\u000c\u001c\u001d\u001e"


def _bytes(lines: list[str]) -> list[bytes]:
    return ["\n".join(lines).encode()]


def _one_byte_at_a_time(raw: bytes) -> list[bytes]:
    return [raw[index : index + 1] for index in range(len(raw))]


def test_sse_and_ndjson_decode_to_the_same_typed_events():
    events = sample_events()
    assert list(decode_sse([sse(*events)])) == events
    assert list(decode_ndjson([ndjson(*events)])) == events


def test_frames_split_across_chunks_anywhere_decode_the_same():
    events = sample_events()
    assert list(decode_sse(_one_byte_at_a_time(sse(*events)))) == events
    assert list(decode_ndjson(_one_byte_at_a_time(ndjson(*events)))) == events


def test_unicode_line_separators_inside_json_strings_stay_in_the_text():
    text = f"a{LINE_SEPARATORS}b"
    item = ResultItem(knowledgeBase="docs", text=f"passage{LINE_SEPARATORS}end")
    events = [TextEvent(text), ResultEvent(results=[item], answer=text)]
    for media_type, decode in ((SSE, decode_sse), (NDJSON, decode_ndjson)):
        raw = b"".join(Encoder(media_type).encode(event) for event in events)  # the endpoint's own encoder
        assert "\u2028\u2029\u0085".encode() in raw  # written raw: the endpoint does not escape non-ASCII
        assert list(decode([raw])) == events
        assert list(decode(_one_byte_at_a_time(raw))) == events


def test_sse_splits_on_cr_lf_and_crlf_alike():
    body = json.dumps({"delta": "x"})
    for newline in ("\n", "\r", "\r\n"):
        raw = newline.join(["event: text", f"data: {body}", "", ""]).encode()
        assert list(decode_sse([raw])) == [TextEvent("x")], repr(newline)


def test_ndjson_splits_on_lf_and_drops_a_cr_before_it():
    assert list(ndjson_lines([b'{"a": 1}\r\n{"b": "\xe2\x80\xa8"}\n'])) == ['{"a": 1}', '{"b": "\u2028"}']


def test_sse_ignores_comments_and_joins_multi_line_data():
    lines = [": keep-alive", "", "event: text", 'data: {"delta":', 'data:  "a\\nb"}', "retry: 10", "", ""]
    assert list(decode_sse(_bytes(lines))) == [TextEvent("a\nb")]


def test_sse_does_not_dispatch_a_final_frame_missing_its_blank_line():
    """The spec: an event the stream ends in the middle of is not dispatched (the client then reports
    the stream as interrupted, never a truncated frame as whole)."""
    assert list(decode_sse(_bytes(["event: text", 'data: {"delta": "x"}']))) == []


def test_unknown_event_types_are_skipped_for_forward_compatibility():
    lines = ["event: progress", 'data: {"pct": 5}', "", "event: text", 'data: {"delta": "y"}', "", ""]
    assert list(decode_sse(_bytes(lines))) == [TextEvent("y")]
    assert list(decode_ndjson(_bytes(['{"type": "progress"}', '{"type": "text", "delta": "y"}']))) == [TextEvent("y")]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["event: text", "data: {not json", "", ""], "not JSON"),
        (["event: text", "data: [1]", "", ""], "not a JSON object"),
        (["event: done", 'data: {"requestId": "r"}', "", ""], "does not match the contract"),
    ],
)
def test_invalid_sse_frames_raise_decode_errors(lines, message):
    with pytest.raises(StreamDecodeError, match=message):
        list(decode_sse(_bytes(lines)))


def test_ndjson_line_without_type_is_an_error():
    with pytest.raises(StreamDecodeError, match="without a string 'type'"):
        list(decode_ndjson([b'{"delta": "x"}\n']))
