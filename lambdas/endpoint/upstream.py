"""The bedrock-agent-runtime client: created once per process, on first use, with botocore retries off.

Locally and in tests the standard `AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME` variable points the
same client at the emulator; nothing here knows the difference.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from typing import Any

_lock = threading.Lock()
_client: Any = None

# Retries are ours (retry.py): botocore must make exactly one attempt. The read timeout bounds the
# silence between two stream events, not the stream; the request deadline bounds the whole.
CLIENT_CONFIG = {
    "retries": {"mode": "standard", "total_max_attempts": 1},
    "connect_timeout": 5,
    "read_timeout": 120,
    "max_pool_connections": 64,
    "tcp_keepalive": True,
}


def create_client() -> Any:
    import boto3
    from botocore.config import Config

    # Lambda sets AWS_REGION (and AWS_DEFAULT_REGION); botocore itself reads only the latter.
    region = os.environ.get("AWS_REGION") or None
    return boto3.client("bedrock-agent-runtime", region_name=region, config=Config(**CLIENT_CONFIG))


def shared_client() -> Any:
    """The process's one client (boto3 clients are thread-safe; creating one costs ~100 ms)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = create_client()
    return _client


def _socket_of(raw: Any) -> socket.socket | None:
    """The socket under a urllib3 response, found through the attributes urllib3 2.x and http.client keep."""
    connection = getattr(raw, "_connection", None)
    sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        return sock
    fp = getattr(getattr(raw, "_fp", None), "fp", None)
    sock = getattr(getattr(fp, "raw", None), "_sock", None)
    return sock if isinstance(sock, socket.socket) else None


def close_event_stream(stream: Any) -> None:
    """Ends a botocore EventStream now, even while another thread is blocked reading it.

    `EventStream.close()` alone releases the response, but a thread blocked in `recv` only wakes
    when the socket is shut down; shutting it down also tells the server the client has gone.
    """
    raw = getattr(stream, "_raw_stream", None)
    sock = _socket_of(raw)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(Exception):
        stream.close()
