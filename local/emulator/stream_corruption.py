"""Malformed responses on purpose (`corrupt_stream` fault): what a broken service or network can send.

Each kind rewrites the next AgenticRetrieveStream (or, for `results_not_list`, the next response of
either API) so callers can test that they never take it for a complete answer:
- `end_without_result`: the stream ends cleanly (terminating chunk, frame boundary) where its
  `result` event would have been; `traces_only`: only the trace events are sent;
- `duplicate_result`: the `result` event is sent twice;
- `results_not_list`: the result's `results` (Retrieve: `retrievalResults`) is an object, not a list;
- `trace_bad_json`: a trace event's payload is not JSON;
- `bad_crc`: a trace event's message CRC is wrong;
- `absurd_prelude`: a trace event's prelude declares a 32 MiB payload (its prelude CRC valid).
Frame faults hit the first trace event from the third event on: the stream has started, so the
endpoint retries nothing and must say the answer broke off.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from local.emulator.eventstream import StreamMessage, encode_message

KINDS = (
    "end_without_result",
    "traces_only",
    "duplicate_result",
    "results_not_list",
    "trace_bad_json",
    "bad_crc",
    "absurd_prelude",
)
_AT = 2
_JSON_EVENT = {":message-type": "event", ":content-type": "application/json"}


@dataclass(frozen=True)
class RawFrame(StreamMessage):
    """A message whose bytes are given: the pump writes `encode()` as for any message."""

    data: bytes = b""

    def encode(self) -> bytes:
        return self.data


def _raw(message: StreamMessage, data: bytes) -> RawFrame:
    return RawFrame(message.kind, message.name, message.body, data)


def _bad_crc(message: StreamMessage) -> RawFrame:
    data = bytearray(message.encode())
    data[-1] ^= 0x01
    return _raw(message, bytes(data))


def _absurd_prelude(message: StreamMessage) -> RawFrame:
    prelude = struct.pack(">II", 32 * 1024 * 1024, 0)  # above botocore's 24 MiB payload limit
    return _raw(message, prelude + struct.pack(">I", zlib.crc32(prelude)) + message.encode())


def _bad_json(message: StreamMessage) -> RawFrame:
    return _raw(message, encode_message({**_JSON_EVENT, ":event-type": message.name}, b"{not json"))


_FRAME_FAULTS = {"trace_bad_json": _bad_json, "bad_crc": _bad_crc, "absurd_prelude": _absurd_prelude}


def corrupt(messages: Iterator[StreamMessage], kind: str) -> Iterator[StreamMessage]:
    """The stream's messages, rewritten by `kind` (one of KINDS)."""
    pending = kind in _FRAME_FAULTS
    for index, message in enumerate(messages):
        is_result = message.kind == "event" and message.name == "result"
        if kind == "end_without_result" and is_result:
            return
        if kind == "traces_only" and message.name != "traceEvent":
            continue
        if kind == "results_not_list" and is_result:
            message = StreamMessage("event", "result", {**message.body, "results": {"count": 1}})
        if pending and index >= _AT and message.name == "traceEvent":
            pending = False
            yield _FRAME_FAULTS[kind](message)
            continue
        yield message
        if kind == "duplicate_result" and is_result:
            yield message


def corrupt_retrieve(response: dict[str, Any]) -> dict[str, Any]:
    """A Retrieve response whose `retrievalResults` is not a list (`results_not_list`)."""
    return {**response, "retrievalResults": {"count": len(response.get("retrievalResults") or [])}}
