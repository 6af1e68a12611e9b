"""A minimal HTTP/1.1 client for timing the endpoint's stream: one kept-alive socket, no library.

The benchmarks' httpx client is pure Python: building its request and decoding the response's
chunks and lines costs about as much per request as the endpoint's own work on this machine, and
all of it lands on the endpoint's side of "first event through the endpoint vs boto3 directly"
(the direct path's client is boto3's, which it pays in both). curl, browsers and the Lambda Web
Adapter read the same bytes in C. This client does the least a reader must: it writes the request
in one segment (TCP_NODELAY) and reads the chunked body off the socket, noting when each SSE frame
is whole. It understands only what the endpoint answers (a 200 with a chunked SSE body, one `data:`
line per frame); client/sse.py is the stream's full decoder, through httpx, whose cost this avoids.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit


class LeanConnection:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._sock: socket.socket | None = None
        self._buffer = b""

    def _connect(self) -> socket.socket:
        if self._sock is None:
            self._sock = socket.create_connection((self.host, self.port))
            self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._buffer = b""
        return self._sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _fill(self) -> None:
        data = self._connect().recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection mid-response")
        self._buffer += data

    def _take_until(self, marker: bytes) -> bytes:
        while (index := self._buffer.find(marker)) < 0:
            self._fill()
        taken, self._buffer = self._buffer[:index], self._buffer[index + len(marker) :]
        return taken

    def _take(self, size: int) -> bytes:
        while len(self._buffer) < size:
            self._fill()
        taken, self._buffer = self._buffer[:size], self._buffer[size:]
        return taken

    def _send(self, request: bytes) -> list[str]:
        """Sends the request and reads the status line and headers; a kept-alive connection the server
        closed while idle (uvicorn's keep-alive timeout) is opened again once."""
        for attempt in (1, 2):
            try:
                self._connect().sendall(request)
                return self._take_until(b"\r\n\r\n").decode("latin-1").split("\r\n")
            except (ConnectionError, BrokenPipeError):
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def post_sse(self, path: str, body: dict) -> Iterator[tuple[float, str, dict]]:
        """(arrival, event type, data) per SSE frame of a POST's answer, as each frame is whole.

        `arrival` is time.perf_counter() when the frame's last byte was read. The whole response is
        read before the generator ends, so the connection can carry the next request.
        """
        payload = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode()
        status_and_headers = self._send(head + payload)
        if " 200 " not in f"{status_and_headers[0]} ":
            raise RuntimeError(f"the endpoint answered {status_and_headers[0]!r}")
        if "transfer-encoding: chunked" not in (line.lower() for line in status_and_headers[1:]):
            raise RuntimeError("the endpoint's stream is not chunked")
        text = b""
        while size := int(self._take_until(b"\r\n").split(b";")[0], 16):
            text += self._take(size)
            self._take(2)  # the chunk's CRLF
            while (end := text.find(b"\n\n")) >= 0:
                frame, text = text[:end], text[end + 2 :]
                yield time.perf_counter(), *_parse(frame)
        self._take_until(b"\r\n")  # the last chunk's (empty) trailer line


def _parse(frame: bytes) -> tuple[str, dict]:
    kind, data = "", {}
    for line in frame.decode().split("\n"):
        if line.startswith("event: "):
            kind = line[len("event: ") :]
        elif line.startswith("data: "):
            data = json.loads(line[len("data: ") :])
    return kind, data
