"""The fair-share buckets in one SQLite file (`akb local`, tests): the store protocol of bucket_store.py.

One `BEGIN IMMEDIATE` transaction per decision on a file every local endpoint of the environment
shares (WAL: readers never wait; IMMEDIATE: two processes never both read the old value), so the
same decision code runs locally as on DynamoDB in AWS.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from lambdas.endpoint.quota.bucket_store import Applied, BucketStoreUnavailable
from lambdas.endpoint.quota.token_buckets import BucketUpdate

_SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (
    item TEXT NOT NULL, attribute TEXT NOT NULL, full_at REAL NOT NULL, PRIMARY KEY (item, attribute));
"""
BUSY_TIMEOUT_SECONDS = 2.0  # another process's write in progress: wait this long, then report unavailable


class SqliteBuckets:
    """One SQLite file; a connection per thread. Each `apply` is one `BEGIN IMMEDIATE` transaction."""

    def __init__(self, path: str | Path) -> None:
        """Opens nothing yet (a file that cannot be opened makes `apply` raise BucketStoreUnavailable)."""
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        # One transaction at a time per process (SQLite serializes writers anyway; ":memory:" is one
        # connection that every thread shares).
        self._lock = threading.Lock()
        self._memory = self._connect() if self.path == ":memory:" else None  # else one per thread, on first use

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
        )
        if self.path != ":memory:":
            connection.execute("PRAGMA journal_mode=WAL")
            # No fsync per commit (WAL still keeps every commit atomic and isolated): buckets refill within
            # seconds, so a commit lost to a power cut costs nothing, while an fsync held under the write
            # lock would make every other endpoint's decision wait for the disk.
            connection.execute("PRAGMA synchronous=NORMAL")
        connection.executescript(_SCHEMA)
        return connection

    def _connection(self) -> sqlite3.Connection:
        if self._memory is not None:
            return self._memory
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._local.connection = self._connect()
        return connection

    def apply(self, updates: Sequence[BucketUpdate]) -> Applied:
        try:
            with self._lock:
                return self._apply(self._connection(), updates)
        except sqlite3.Error as error:  # locked past the timeout, unreadable file, disk full
            raise BucketStoreUnavailable(f"sqlite {self.path}: {error}") from error

    def _apply(self, connection: sqlite3.Connection, updates: Sequence[BucketUpdate]) -> Applied:
        connection.execute("BEGIN IMMEDIATE")
        try:
            items = sorted({update.item for update in updates})
            stored = self._read(connection, items)
            failed = {u.item for u in updates if not u.holds(stored.get(u.item, {}).get(u.attribute))}
            if failed:
                connection.execute("ROLLBACK")
                return Applied(False, {item: stored.get(item, {}) for item in failed})
            connection.executemany(
                "INSERT INTO buckets VALUES (?, ?, ?) "
                "ON CONFLICT(item, attribute) DO UPDATE SET full_at = excluded.full_at",
                [(u.item, u.attribute, u.written(stored.get(u.item, {}).get(u.attribute))) for u in updates],
            )
            connection.execute("COMMIT")
            return Applied(True)
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise

    @staticmethod
    def _read(connection: sqlite3.Connection, items: Sequence[str]) -> dict[str, dict[str, float]]:
        marks = ",".join("?" * len(items))
        query = f"SELECT item, attribute, full_at FROM buckets WHERE item IN ({marks})"  # noqa: S608 - placeholders only
        return _grouped(connection.execute(query, items).fetchall())

    def values(self) -> dict[str, dict[str, float]]:
        """Everything stored (for the tests' and the benchmark's inspection)."""
        try:
            with self._lock:
                rows = self._connection().execute("SELECT item, attribute, full_at FROM buckets").fetchall()
        except sqlite3.Error as error:
            raise BucketStoreUnavailable(f"sqlite {self.path}: {error}") from error
        return _grouped(rows)


def _grouped(rows: Sequence[tuple[str, str, float]]) -> dict[str, dict[str, float]]:
    stored: dict[str, dict[str, float]] = {}
    for item, attribute, full_at in rows:
        stored.setdefault(item, {})[attribute] = full_at
    return stored
