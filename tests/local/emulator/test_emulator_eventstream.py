"""The encoder's bytes, decoded by botocore's own event-stream parser."""

from __future__ import annotations

import struct
import zlib

import pytest
from botocore.eventstream import EventStreamBuffer, ParserError

from local.emulator.eventstream import StreamMessage, encode_event, encode_exception, encode_message


def decode(data: bytes) -> list:
    buffer = EventStreamBuffer()
    buffer.add_data(data)
    return list(buffer)


def test_event_message_decodes_with_its_headers_and_json_payload():
    (message,) = decode(encode_event("traceEvent", {"id": "a", "text": "ünïcode"}))
    assert message.headers == {
        ":message-type": "event",
        ":event-type": "traceEvent",
        ":content-type": "application/json",
    }
    assert message.payload.decode() == '{"id":"a","text":"ünïcode"}'


def test_exception_message_names_the_stream_member():
    (message,) = decode(encode_exception("throttlingException", {"message": "slow down"}))
    assert message.headers[":message-type"] == "exception"
    assert message.headers[":exception-type"] == "throttlingException"


def test_prelude_and_message_crcs_follow_the_format():
    data = encode_message({"a": "b"}, b"xyz")
    total, headers_length = struct.unpack(">II", data[:8])
    assert total == len(data)
    assert headers_length == 1 + 1 + 1 + 2 + 1  # name len, name, type, value len, value
    assert struct.unpack(">I", data[8:12])[0] == zlib.crc32(data[:8])
    assert struct.unpack(">I", data[-4:])[0] == zlib.crc32(data[:-4])


def test_messages_split_across_chunks_reassemble():
    data = encode_event("responseEvent", {"text": "one"}) + encode_event("responseEvent", {"text": "two"})
    buffer = EventStreamBuffer()
    decoded = []
    for i in range(0, len(data), 7):
        buffer.add_data(data[i : i + 7])
        decoded += list(buffer)
    assert [m.payload for m in decoded] == [b'{"text":"one"}', b'{"text":"two"}']


def test_a_corrupted_byte_is_caught_by_the_decoder():
    data = bytearray(encode_event("result", {"results": []}))
    data[2] ^= 0xFF
    with pytest.raises(ParserError):
        decode(bytes(data))


def test_stream_message_encodes_by_kind():
    assert StreamMessage("exception", "validationException", {"message": "m"}).encode() == encode_exception(
        "validationException", {"message": "m"}
    )
