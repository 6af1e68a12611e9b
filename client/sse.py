"""Decodes the endpoint's two stream framings (SSE and NDJSON) into typed events.

The decoders take an iterator of text lines (as `httpx.Response.iter_lines()` yields them) and know
nothing about HTTP, so the same code serves the client, the CLI and the tests. Event classes come
from `contract.events`, the one definition the service also encodes with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Literal

from contract.events import EVENT_TYPES, Event, event_from_dict

StreamFormat = Literal["sse", "ndjson"]
ACCEPT: dict[str, str] = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}


class StreamDecodeError(ValueError):
    """A frame that is not a valid event: the stream cannot be trusted past this point."""


def decode_sse(lines: Iterable[str]) -> Iterator[Event]:
    """Server-Sent Events: `event:` names the type, `data:` lines (joined by newlines) carry the JSON.

    Comments (`:` keep-alives) and fields other than event/data are ignored, as the SSE spec says.
    """
    event_type = "message"
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                event = _decode(event_type, "\n".join(data))
                if event is not None:
                    yield event
            event_type, data = "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event_type = value
        elif name == "data":
            data.append(value)
    if data:  # a final frame without its blank line: the server closed right after writing it
        event = _decode(event_type, "\n".join(data))
        if event is not None:
            yield event


def decode_ndjson(lines: Iterable[str]) -> Iterator[Event]:
    """NDJSON: one `{"type": ..., ...}` object per line; blank lines are ignored."""
    for line in lines:
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


def _decode(event_type: str, text: str) -> Event | None:
    return _typed(event_type, _parse(text))


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
