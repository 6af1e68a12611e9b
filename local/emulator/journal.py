"""What the emulator received and how each stream ended, for tests to assert on.

Tests of a caller need to see exactly what it sent (the sub-set of knowledge bases, the userId, the
filter) and whether it closed the upstream stream when its own client went away.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

MAX_ENTRIES = 1000
_HIDDEN_HEADERS = frozenset({"authorization", "x-amz-security-token"})


@dataclass
class StreamRecord:
    id: int
    request_seq: int
    started_at: float
    events_sent: int = 0
    finished: bool = False
    closed_by_client: bool = False
    tcp_nodelay: bool = False  # read back from the connection's socket: Nagle off for this stream
    outcome: str = "streaming"  # completed | exception:<member> | dropped | client_closed | server_stopped


class Journal:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._stream_ids = itertools.count(1)
        self._requests: deque[dict[str, Any]] = deque(maxlen=MAX_ENTRIES)
        self._streams: deque[StreamRecord] = deque(maxlen=MAX_ENTRIES)

    def record_request(self, method: str, path: str, headers: dict[str, str], body: Any) -> int:
        with self._lock:
            seq = next(self._seq)
            self._requests.append(
                {
                    "seq": seq,
                    "time": time.time(),
                    "method": method,
                    "path": path,
                    "headers": {k: v for k, v in headers.items() if k.lower() not in _HIDDEN_HEADERS},
                    "body": body,
                }
            )
            return seq

    def open_stream(self, request_seq: int, tcp_nodelay: bool = False) -> StreamRecord:
        with self._lock:
            record = StreamRecord(
                id=next(self._stream_ids), request_seq=request_seq, started_at=time.time(), tcp_nodelay=tcp_nodelay
            )
            self._streams.append(record)
            return record

    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._requests)

    def streams(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(s) for s in self._streams]

    def clear_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def clear_streams(self) -> None:
        with self._lock:
            self._streams.clear()
