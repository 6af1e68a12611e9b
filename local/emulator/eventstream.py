"""Encoder for `application/vnd.amazon.eventstream` messages, written from the format's description.

botocore decodes these bytes in the real client; producing them with botocore's own code would
let an encoding mistake and a decoding mistake cancel out, so the tests decode with botocore and
this module never imports it.

Message layout (all integers big-endian):
    total length u32 | headers length u32 | CRC32(first 8 bytes) | headers | payload | CRC32(all before)
Header (only the string type is needed here):
    name length u8 | name | type 7 | value length u16 | value
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

_STRING_HEADER_TYPE = 7
_PRELUDE = struct.Struct(">II")
_CRC = struct.Struct(">I")
_MAX_HEADER_NAME = 255
_MAX_HEADER_VALUE = 65535
_JSON = "application/json"


def encode_headers(headers: Mapping[str, str]) -> bytes:
    """Serialises string headers in insertion order."""
    out = bytearray()
    for name, value in headers.items():
        raw_name = name.encode("utf-8")
        raw_value = value.encode("utf-8")
        if len(raw_name) > _MAX_HEADER_NAME or len(raw_value) > _MAX_HEADER_VALUE:
            raise ValueError(f"event-stream header {name!r} is too long")
        out += struct.pack(">B", len(raw_name)) + raw_name
        out += struct.pack(">BH", _STRING_HEADER_TYPE, len(raw_value)) + raw_value
    return bytes(out)


def encode_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One complete message: prelude, prelude CRC, headers, payload, message CRC."""
    raw_headers = encode_headers(headers)
    total = _PRELUDE.size + _CRC.size + len(raw_headers) + len(payload) + _CRC.size
    prelude = _PRELUDE.pack(total, len(raw_headers))
    head = prelude + _CRC.pack(zlib.crc32(prelude)) + raw_headers + payload
    return head + _CRC.pack(zlib.crc32(head))


def _json_bytes(body: Mapping[str, Any]) -> bytes:
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encode_event(event_type: str, body: Mapping[str, Any]) -> bytes:
    """A modeled stream member (`traceEvent`, `responseEvent`, `result`) with its JSON payload."""
    headers = {":message-type": "event", ":event-type": event_type, ":content-type": _JSON}
    return encode_message(headers, _json_bytes(body))


def encode_exception(exception_type: str, body: Mapping[str, Any]) -> bytes:
    """A modeled in-stream exception (`throttlingException`, ...); botocore raises EventStreamError."""
    headers = {":message-type": "exception", ":exception-type": exception_type, ":content-type": _JSON}
    return encode_message(headers, _json_bytes(body))


@dataclass(frozen=True)
class StreamMessage:
    """One message to send: a modeled event or a modeled exception, not yet encoded."""

    kind: Literal["event", "exception"]
    name: str
    body: Mapping[str, Any]

    def encode(self) -> bytes:
        return (encode_event if self.kind == "event" else encode_exception)(self.name, self.body)
