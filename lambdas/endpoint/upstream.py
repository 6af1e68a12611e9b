"""The bedrock-agent-runtime client: created once per process, on first use, with botocore retries off.

Locally and in tests the standard `AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME` variable points the
same client at the emulator; nothing here knows the difference.

Calls are cancellable (`CallScope`): a request that ends (deadline, client gone) while botocore
is still waiting for Bedrock's response headers shuts that connection down, so the worker thread
and the socket are released at once instead of when the read timeout (minutes) fires. botocore
has no public hook that exposes the connection of an in-flight call, so the client's connection
pools are given a connection class that registers itself with the scope of the call using it
(`make_cancellable`); tests/lambdas/endpoint/test_cancellation.py proves it against the emulator.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import socket
import threading
from collections.abc import Iterator
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
    client = boto3.client("bedrock-agent-runtime", region_name=region, config=Config(**CLIENT_CONFIG))
    return make_cancellable(client)


def shared_client() -> Any:
    """The process's one client (boto3 clients are thread-safe; creating one costs ~100 ms)."""
    global _client
    if _client is None:
        with _lock:
            if _client is None:
                _client = create_client()
    return _client


def reset_shared_client() -> int:
    """Forgets the process's client (SnapStart: snapstart.py); returns 1 if there was one. Its pool closes
    when the last request using it ends."""
    global _client
    with _lock:
        had, _client = _client is not None, None
    return int(had)


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


class CallCancelled(Exception):
    """Raised inside a call whose scope was cancelled before it could send its request."""


class CallScope:
    """The connections the calls of one endpoint request are using; `cancel()` shuts them all down.

    A connection belongs to the scope from the moment a call sends on it until urllib3 puts it back
    in the pool, so cancelling never touches a connection another request is using.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: set[Any] = set()
        self.cancelled = False

    def attach(self, connection: Any) -> None:
        with self._lock:
            if self.cancelled:
                raise CallCancelled("the endpoint request ended before this call was sent")
            self._connections.add(connection)
            connection.akb_scope = self

    def detach(self, connection: Any) -> None:
        with self._lock:
            self._connections.discard(connection)
            connection.akb_scope = None

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            connections = list(self._connections)
        for connection in connections:
            _shutdown(getattr(connection, "sock", None))

    @property
    def open_connections(self) -> int:
        with self._lock:
            return len(self._connections)


_SCOPE: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar("akb_call_scope", default=None)


@contextlib.contextmanager
def scoped(scope: CallScope) -> Iterator[None]:
    """Calls made inside (on this thread, or in a context copied from it) belong to `scope`."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _shutdown(sock: Any) -> None:
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def make_cancellable(client: Any) -> Any:
    """Gives `client`'s connection pools the scope-aware connection class (before its first call).

    Uses botocore's session internals (`_endpoint.http_session._pool_classes_by_scheme`, the dict
    its PoolManager reads when it creates a pool); if a botocore release renames them the client
    still works, only without early cancellation (the read timeout then bounds a hung call).
    """
    import botocore.awsrequest

    session = getattr(getattr(client, "_endpoint", None), "http_session", None)
    pools = getattr(session, "_pool_classes_by_scheme", None)
    if not isinstance(pools, dict):
        return client

    def tracked(pool_class: type, connection_class: type) -> type:
        class ScopedConnection(connection_class):
            akb_scope: CallScope | None = None

            def request(self, *args: Any, **kwargs: Any) -> Any:
                scope = _SCOPE.get()
                if scope is not None:
                    scope.attach(self)
                return super().request(*args, **kwargs)

        class ScopedPool(pool_class):
            ConnectionCls = ScopedConnection

            def _put_conn(self, conn: Any) -> None:
                scope = getattr(conn, "akb_scope", None)
                if scope is not None:
                    scope.detach(conn)
                super()._put_conn(conn)

        return ScopedPool

    pools["http"] = tracked(botocore.awsrequest.AWSHTTPConnectionPool, botocore.awsrequest.AWSHTTPConnection)
    pools["https"] = tracked(botocore.awsrequest.AWSHTTPSConnectionPool, botocore.awsrequest.AWSHTTPSConnection)
    return client
