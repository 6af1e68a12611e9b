"""Decodes the endpoint's two stream framings (SSE and NDJSON) into typed events, splitting lines per spec.

The SSE specification ends a line at CR, LF or CRLF, and NDJSON at LF; nothing else. Python's
`str.splitlines()`, and so httpx's `iter_lines()`, also split at U+2028, U+2029, U+0085, U+000B,
U+000C and U+001C-U+001E, which the endpoint's UTF-8 JSON carries raw inside strings: a passage
with a line separator broke the event in two ("event data is not JSON"). So:
- SSE goes through httpx-sse (pinned in requirements.lock), whose line decoder splits on CR, LF
  and CRLF only and whose event decoder follows the spec (comments, `data:` lines joined, an
  unterminated last event not dispatched);
- NDJSON is split on the byte LF (0x0A), which in UTF-8 never occurs inside another character;
  a CR before it is dropped.
Why a client-side parser rather than an ASCII-only (`\\uXXXX`) stream from the endpoint:
docs/client.md, "Streams". The decoders take the body's byte chunks and know nothing about the
connection, so the client, the CLI and the tests share them. Event classes come from
`contract.events`, the one definition the service also encodes with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Literal

import httpx
from httpx_sse import EventSource

from contract.events import EVENT_TYPES, Event, event_from_dict

StreamFormat = Literal["sse", "ndjson"]
ACCEPT: dict[str, str] = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}


class StreamDecodeError(ValueError):
    """A frame that is not a valid event: the stream cannot be trusted past this point."""


def decode_sse(chunks: Iterable[bytes]) -> Iterator[Event]:
    """Server-Sent Events from the body's bytes: `event:` names the type, `data:` carries the JSON."""
    body = httpx.Response(200, headers={"content-type": ACCEPT["sse"]}, content=iter(chunks))
    for message in EventSource(body).iter_sse():
        if not message.data:  # the spec dispatches no event with an empty data buffer
            continue
        event = _typed(message.event, _parse(message.data))
        if event is not None:
            yield event


def ndjson_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The body's lines, split on LF only (a trailing CR dropped), each decoded as UTF-8."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            yield _utf8(line.removesuffix(b"\r"))
    if pending:
        yield _utf8(pending.removesuffix(b"\r"))


def decode_ndjson(chunks: Iterable[bytes]) -> Iterator[Event]:
    """NDJSON: one `{"type": ..., ...}` object per line; blank lines are ignored."""
    for line in ndjson_lines(chunks):
        if not line.strip():
            continue
        body = _parse(line)
        event_type = body.pop("type", None)
        if not isinstance(event_type, str):
            raise StreamDecodeError(f"NDJSON line without a string 'type': {line[:200]!r}")
        event = _typed(event_type, body)
        if event is not None:
            yield event


DECODERS = {"sse": decode_sse, "ndjson": decode_ndjson}


def _utf8(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as error:
        raise StreamDecodeError(f"a line is not UTF-8 (byte {error.start})") from None


def _parse(text: str) -> dict:
    try:
        body = json.loads(text)
    except json.JSONDecodeError as error:
        raise StreamDecodeError(f"event data is not JSON ({error.msg}): {text[:200]!r}") from None
    if not isinstance(body, dict):
        raise StreamDecodeError(f"event data is not a JSON object: {text[:200]!r}")
    return body


def _typed(event_type: str, body: dict) -> Event | None:
    """The typed event, or None for a type this client does not know (newer servers may add some)."""
    if event_type not in EVENT_TYPES:
        return None
    try:
        return event_from_dict(event_type, body)
    except (TypeError, ValueError) as error:
        raise StreamDecodeError(f"'{event_type}' event does not match the contract: {error}") from None
