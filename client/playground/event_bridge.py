"""Relays one endpoint request to the page: each event as an SSE frame the moment the client yields it.

The endpoint is asked through `Client.query()` (client/endpoint_client.py), the same streaming
iterator `akb ask` reads, so signing, framing, timeouts and errors are `akb ask`'s. Each endpoint
event goes to the browser with the endpoint's own type and JSON body (`contract.events.event_to_dict`);
the playground adds two frame types of its own:

- `notes` (after `done`): the warnings `akb ask` prints for that stop (client/render.py: possibly
  incomplete, partial, answered without the session), so the page and the terminal say the same;
- `failure`: the request ended without a `done` — refused before streaming (`stage: refused`, with
  the endpoint's status, code and message), unreachable, timed out, broken off, or not signed.

`Client.query()` blocks on its socket, so it runs in a worker thread that hands frames to the event
loop through a queue; when the page goes away (Stop, a closed tab) the thread closes the request at
the next event, and the endpoint stops its upstream call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Generator
from typing import TYPE_CHECKING, Any

from client.endpoint_client import EndpointConnectionError, EndpointHTTPError, EndpointTimeout, StreamError
from client.render import incomplete_warning, memory_line, partial_line
from client.sigv4 import SigningError
from contract.events import DoneEvent, Event, event_to_dict

if TYPE_CHECKING:
    from client.endpoint_client import Client, QueryOptions

LOG = logging.getLogger("akb.playground")


def sse_frame(event_type: str, data: dict[str, Any]) -> str:
    """One Server-Sent Events frame; the JSON is on one line, so one `data:` field carries it."""
    return f"event: {event_type}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


def notes_for(done: DoneEvent) -> list[str]:
    """What `akb ask` warns about for this `done`, in its words."""
    return [note for note in (incomplete_warning(done), partial_line(done), memory_line(done)) if note]


def failure_of(error: Exception) -> dict[str, Any]:
    """The `failure` frame's body for an error `Client.query()` raises: never a traceback, never a secret."""
    if isinstance(error, EndpointHTTPError):
        return {
            "stage": "refused",
            "status": error.status,
            "code": error.code,
            "message": error.message,
            "retryAfter": error.retry_after,
        }
    if isinstance(error, EndpointConnectionError):
        return {"stage": "unreachable", "code": "connection_failed", "message": str(error)}
    if isinstance(error, EndpointTimeout):
        return {"stage": "timeout", "code": f"client_timeout_{error.phase}", "message": str(error)}
    if isinstance(error, StreamError):
        return {"stage": "stream", "code": error.code, "message": error.message, "retryable": error.retryable}
    if isinstance(error, SigningError):
        return {"stage": "signing", "code": "no_credentials", "message": str(error)}
    LOG.exception("the playground could not relay a request")
    return {"stage": "internal", "code": "internal", "message": "the playground server failed; see its terminal"}


def browser_frames(
    client: Client, question: str, options: QueryOptions, observe: Callable[[Event], None] = lambda _: None
) -> Generator[str, None, None]:
    """The SSE frames of one request, in order, ending with `done` (+ `notes`) or with a `failure`.
    `observe` sees each endpoint event before the page does (the document shelf remembers results)."""
    events = client.query(question, **options)
    try:
        for event in events:
            observe(event)
            yield sse_frame(event.type, event_to_dict(event))
            if isinstance(event, DoneEvent):
                notes = notes_for(event)
                if notes:
                    yield sse_frame("notes", {"notes": notes})
    except Exception as error:  # every failure becomes a frame: the page shows it, the server lives on
        yield sse_frame("failure", failure_of(error))
    finally:
        close = getattr(events, "close", None)  # a generator: closing it closes the endpoint connection
        if close is not None:
            close()


async def relay(frames: Generator[str, None, None]) -> AsyncIterator[str]:
    """Runs `frames` in a worker thread and yields each frame as soon as it exists.

    When the consumer stops early (the browser disconnected: Starlette cancels the response), the
    worker closes `frames` before reading another event, which closes the endpoint connection: at the
    endpoint's next event, since a blocked read cannot be interrupted from another thread.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str | None] = asyncio.Queue()
    abandoned = threading.Event()

    def work() -> None:
        try:
            with contextlib.closing(frames):
                for frame in frames:
                    if abandoned.is_set():
                        return
                    loop.call_soon_threadsafe(queue.put_nowait, frame)
        except RuntimeError:  # the event loop closed under us: the server is shutting down
            return
        finally:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=work, name="playground-relay", daemon=True).start()
    try:
        while (frame := await queue.get()) is not None:
            yield frame
    finally:
        abandoned.set()
