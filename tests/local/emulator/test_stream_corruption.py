"""The `corrupt_stream` fault: each kind rewrites the stream as documented, and a wrong kind is refused."""

from __future__ import annotations

import pytest
from botocore.eventstream import EventStreamBuffer, ParserError

from local.emulator.eventstream import StreamMessage
from local.emulator.faults import Faults
from local.emulator.stream_corruption import KINDS, corrupt


def stream() -> list[StreamMessage]:
    traces = [StreamMessage("event", "traceEvent", {"attributes": {"step": f"s{i}"}}) for i in range(4)]
    return [
        *traces,
        StreamMessage("event", "responseEvent", {"text": "a"}),
        StreamMessage("event", "result", {"results": []}),
    ]


def names(kind: str) -> list[str]:
    return [message.name for message in corrupt(iter(stream()), kind)]


def test_kinds_that_drop_or_repeat_events():
    assert names("end_without_result") == ["traceEvent"] * 4 + ["responseEvent"]
    assert names("traces_only") == ["traceEvent"] * 4
    assert names("duplicate_result")[-2:] == ["result", "result"]
    (result,) = [m for m in corrupt(iter(stream()), "results_not_list") if m.name == "result"]
    assert not isinstance(result.body["results"], list)


@pytest.mark.parametrize("kind", ["bad_crc", "absurd_prelude"])
def test_frame_kinds_are_refused_by_botocores_decoder_at_the_third_event(kind):
    buffer = EventStreamBuffer()
    frames = [message.encode() for message in corrupt(iter(stream()), kind)]
    for frame in frames[:2]:
        buffer.add_data(frame)
    assert len(list(buffer)) == 2
    buffer.add_data(frames[2])
    with pytest.raises(ParserError):
        list(buffer)


def test_the_fault_is_taken_by_one_stream_and_a_wrong_kind_is_refused():
    faults = Faults(delay_ms=0)
    faults.configure({"corrupt_stream": "bad_crc"})
    assert faults.take_stream_faults().corruption == "bad_crc"
    assert faults.take_stream_faults().corruption is None
    with pytest.raises(ValueError, match="corrupt_stream must be one of"):
        faults.configure({"corrupt_stream": "sideways"})
    assert set(KINDS) >= {"end_without_result", "bad_crc"}
