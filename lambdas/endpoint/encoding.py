"""Frames events for the wire: Server-Sent Events by default, NDJSON on request. Knows nothing of Bedrock.

SSE: `event: <type>` + one `data:` line of compact JSON + a blank line (JSON never contains a raw
newline, so one `data:` line is always enough). NDJSON: `{"type": <type>, ...}` + newline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from contract.events import Event, event_to_dict

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Encoder:
    media_type: str

    def encode(self, event: Event, body: dict[str, Any] | None = None) -> bytes:
        """The event's frame; `body` is its event_to_dict when the caller already has it."""
        body = event_to_dict(event) if body is None else body
        if self.media_type == NDJSON:
            return (_json({"type": event.type, **body}) + "\n").encode("utf-8")
        return f"event: {event.type}\ndata: {_json(body)}\n\n".encode()


def encoder_for(accept: str | None) -> Encoder:
    """NDJSON when the Accept header asks for it (and not for SSE first); SSE otherwise."""
    for part in (accept or "").split(","):
        media_type = part.split(";", 1)[0].strip().lower()
        if media_type in (SSE, NDJSON):
            return Encoder(media_type)
    return Encoder(SSE)
