"""A STUB endpoint for the client's unit tests: real HTTP over a real socket, scripted responses.

Not the endpoint service: each test scripts exactly what the wire carries (frames, pauses, broken
streams, error statuses) to pin the client's behaviour at edges the real service rarely reaches.
The end-to-end tests (test_ask.py, test_endpoint_client.py `*_real_endpoint*`) run the real one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from contract.events import Event, event_to_dict


@dataclass
class Captured:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    """What to send back: `status`, `headers`, then `chunks`, each written and flushed on its own
    (a callable chunk is called instead, e.g. to wait for the test)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/event-stream"})
    chunks: list[bytes | Callable[[], None]] = field(default_factory=list)


def sse(*events: Event) -> bytes:
    return b"".join(f"event: {e.type}\ndata: {json.dumps(event_to_dict(e))}\n\n".encode() for e in events)


def ndjson(*events: Event) -> bytes:
    return b"".join((json.dumps({"type": e.type, **event_to_dict(e)}) + "\n").encode() for e in events)


class StubEndpoint:
    def __init__(self) -> None:
        self.reply = Reply()
        self.requests: list[Captured] = []
        self.hung_up = threading.Event()  # set when a write failed because the client went away
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                stub.requests.append(Captured("POST", self.path, dict(self.headers.items()), body))
                reply = stub.reply
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Transfer-Encoding", "chunked")
                self.send_header("Connection", "close")
                self.end_headers()
                try:
                    for chunk in reply.chunks:
                        if callable(chunk):
                            chunk()
                            continue
                        self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    stub.hung_up.set()

            def log_message(self, *_: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        # A short poll interval: shutdown() waits for it, and every test stops its stub.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def start(self) -> StubEndpoint:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def stub_endpoint() -> Iterator[StubEndpoint]:
    stub = StubEndpoint().start()
    try:
        yield stub
    finally:
        stub.stop()


def sample_events() -> list[Event]:
    """One plausible request's events, in the endpoint's order."""
    from contract.events import (
        Citation,
        DoneEvent,
        ResultEvent,
        ResultItem,
        SubQuery,
        TextEvent,
        TraceEvent,
    )

    return [
        TraceEvent(step="Planning", status="IN_PROGRESS", elapsedMs=3),
        TraceEvent(
            step="Planning",
            status="SUCCEEDED",
            elapsedMs=40,
            subQueries=[SubQuery("rate limit per key", ["docs"]), SubQuery("429 handling", ["docs", "wiki"])],
        ),
        TraceEvent(step="Retrieval", status="SUCCEEDED", elapsedMs=90, retrievedCount=6, documents=["a", "b"]),
        TextEvent("The limit is 100 requests"),
        TextEvent(" per minute."),
        ResultEvent(
            results=[
                ResultItem("docs", "Each API key may send 100 requests per minute.", documentId="api/rate-limits.md"),
                ResultItem(
                    "wiki",
                    "Clients should back off on 429.",
                    metadata={"x-amz-bedrock-kb-source-uri": "s3://b/w.md"},
                ),
            ],
            answer="The limit is 100 requests per minute.",
            citations=[Citation(start=0, end=37, results=[0, 1])],
        ),
        DoneEvent(
            requestId="req-1",
            stopReason="complete",
            iterations=1,
            durationMs=120,
            timeToFirstEventMs=3,
            estimatedCostUsd=0.006,
        ),
    ]
