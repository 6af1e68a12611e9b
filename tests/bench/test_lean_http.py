"""bench/lean_http.py reads a chunked SSE answer frame by frame, whatever the chunk boundaries.

The server here is a scripted socket on 127.0.0.1 (a test double of the endpoint's bytes: the
point is the chunk boundaries and an idle connection's close, which a real endpoint does not let a
test choose).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator

import pytest

from bench.lean_http import LeanConnection

FRAMES = b'event: trace\ndata: {"step": 1}\n\nevent: result\ndata: {"text": "a\\nb"}\n\nevent: done\ndata: {}\n\n'
EXPECTED = [("trace", {"step": 1}), ("result", {"text": "a\nb"}), ("done", {})]
CLOSE = b""  # in a connection's script: close it instead of answering


def answer(cuts: list[int], status: bytes = b"200 OK") -> bytes:
    """The frames as HTTP chunks cut at `cuts` (a frame may straddle chunks; a chunk may hold two)."""
    pieces = [FRAMES[a:b] for a, b in zip([0, *cuts], [*cuts, len(FRAMES)], strict=True)]
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"
    return b"HTTP/1.1 " + status + b"\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" + chunks


def read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.lower().split(b"\r\n")
    length = next(int(line.split(b":")[1]) for line in lines if line.startswith(b"content-length"))
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.fixture
def serve() -> Iterator[Callable[[list[list[bytes]]], tuple[str, list[bytes]]]]:
    """Starts a server whose n-th connection answers its requests with the n-th script's responses."""
    listeners: list[socket.socket] = []

    def start(scripts: list[list[bytes]]) -> tuple[str, list[bytes]]:
        listener = socket.create_server(("127.0.0.1", 0))
        listeners.append(listener)
        requests: list[bytes] = []

        def run() -> None:
            for script in scripts:
                conn, _ = listener.accept()
                with conn:
                    for response in script:
                        requests.append(read_request(conn))
                        if response == CLOSE:
                            break
                        conn.sendall(response)

        threading.Thread(target=run, daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}", requests

    yield start
    for listener in listeners:
        listener.close()


@pytest.mark.parametrize(
    "cuts",
    [[], [5], [len(FRAMES) // 2], [31, 33], list(range(1, len(FRAMES)))],
    ids=["one chunk", "mid-first-line", "mid-frame", "around a frame's end", "one byte per chunk"],
)
def test_every_frame_is_read_whole_wherever_the_chunks_are_cut(serve, cuts) -> None:
    url, requests = serve([[answer(cuts)]])
    connection = LeanConnection(url)
    frames = [(kind, data) for _, kind, data in connection.post_sse("/v1/query", {"question": "q"})]
    connection.close()
    assert frames == EXPECTED
    assert requests[0].startswith(b"POST /v1/query HTTP/1.1\r\n")
    assert requests[0].endswith(b'{"question": "q"}')


def test_arrival_times_grow_frame_by_frame(serve) -> None:
    url, _ = serve([[answer([10, 40])]])
    arrivals = [arrival for arrival, _, _ in LeanConnection(url).post_sse("/v1/query", {})]
    assert len(arrivals) == 3
    assert arrivals == sorted(arrivals)


def test_one_connection_carries_the_next_request_and_reopens_after_an_idle_close(serve) -> None:
    url, requests = serve([[answer([7]), answer([]), CLOSE], [answer([60])]])
    connection = LeanConnection(url)
    for _ in range(3):  # the third request meets a connection the server closed: it is sent again
        assert [(k, d) for _, k, d in connection.post_sse("/v1/query", {})] == EXPECTED
    connection.close()
    assert len(requests) == 4


def test_an_answer_other_than_a_chunked_200_is_refused_by_name(serve) -> None:
    refused = b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\n\r\n"
    url, _ = serve([[refused]])
    with pytest.raises(RuntimeError, match="429"):
        list(LeanConnection(url).post_sse("/v1/query", {}))
