"""Where entries, published content versions and counters live: the interface, and SQLite.

`akb local` and tests use `SqliteStore` (stdlib, one file, safe across threads and processes);
in AWS the tenant's DynamoDB table holds the same items (dynamodb_store.py). Three kinds of item
per tenant, all under the tenant's partition:
- entries (key -> entry JSON, expiry, the aliases it covers, for flushing by knowledge base);
- version marks (knowledge base, data source -> ingestion job id and updatedAt) that `akb ingest`
  publishes when a job completes, so the endpoint sees the new version at once (versions.py);
- counters (hits, misses, bypass, stale_rejected, acl_denied, stored) for `akb cache stats`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

COUNTERS = ("hits", "misses", "bypass", "stale_rejected", "acl_denied", "stored")


@dataclass(frozen=True)
class VersionMark:
    knowledge_base_id: str
    data_source_id: str
    job_id: str
    updated_at: float  # epoch seconds


@dataclass(frozen=True)
class StoreStats:
    entries: int
    expired: int
    bytes: int
    by_knowledge_base: dict[str, int]
    counters: dict[str, int]
    versions: list[VersionMark]


class CacheStore(Protocol):
    def get(self, tenant: str, key: str) -> str | None: ...

    def put(self, tenant: str, key: str, value: str, expires_at: float, aliases: list[str]) -> None: ...

    def version_marks(self, tenant: str) -> list[VersionMark]: ...

    def publish_version(self, tenant: str, mark: VersionMark) -> None: ...

    def count(self, tenant: str, counter: str, amount: int = 1) -> None: ...

    def flush(self, tenant: str, alias: str | None = None) -> int: ...

    def stats(self, tenant: str) -> StoreStats: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    tenant TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, expires_at REAL NOT NULL,
    aliases TEXT NOT NULL, PRIMARY KEY (tenant, key));
CREATE TABLE IF NOT EXISTS versions (
    tenant TEXT NOT NULL, knowledge_base_id TEXT NOT NULL, data_source_id TEXT NOT NULL,
    job_id TEXT NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (tenant, knowledge_base_id, data_source_id));
CREATE TABLE IF NOT EXISTS counters (
    tenant TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (tenant, name));
"""


class SqliteStore:
    """One SQLite file (or `:memory:`); a connection per thread, WAL so readers never wait on a writer."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self._clock = clock
        self._local = threading.local()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._memory = sqlite3.connect(":memory:", check_same_thread=False) if self.path == ":memory:" else None
        self._memory_lock = threading.Lock()
        with self._connection() as connection:
            connection.executescript(_SCHEMA)

    def _connection(self) -> sqlite3.Connection:
        if self._memory is not None:
            return self._memory
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            self._local.connection = connection
        return connection

    def _run(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._memory_lock if self._memory is not None else _NO_LOCK:
            return self._connection().execute(sql, params).fetchall()

    def get(self, tenant: str, key: str) -> str | None:
        rows = self._run(
            "SELECT value FROM entries WHERE tenant = ? AND key = ? AND expires_at > ?", (tenant, key, self._clock())
        )
        return rows[0][0] if rows else None

    def put(self, tenant: str, key: str, value: str, expires_at: float, aliases: list[str]) -> None:
        self._run(
            "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?)",
            (tenant, key, value, expires_at, "," + ",".join(aliases) + ","),
        )

    def version_marks(self, tenant: str) -> list[VersionMark]:
        rows = self._run(
            "SELECT knowledge_base_id, data_source_id, job_id, updated_at FROM versions WHERE tenant = ?", (tenant,)
        )
        return [VersionMark(*row) for row in rows]

    def publish_version(self, tenant: str, mark: VersionMark) -> None:
        self._run(
            "INSERT OR REPLACE INTO versions VALUES (?, ?, ?, ?, ?)",
            (tenant, mark.knowledge_base_id, mark.data_source_id, mark.job_id, mark.updated_at),
        )

    def count(self, tenant: str, counter: str, amount: int = 1) -> None:
        self._run(
            "INSERT INTO counters VALUES (?, ?, ?) ON CONFLICT(tenant, name) DO UPDATE SET value = value + ?",
            (tenant, counter, amount, amount),
        )

    def flush(self, tenant: str, alias: str | None = None) -> int:
        if alias is None:
            rows = self._run("DELETE FROM entries WHERE tenant = ? RETURNING key", (tenant,))
        else:
            rows = self._run(
                "DELETE FROM entries WHERE tenant = ? AND aliases LIKE ? RETURNING key", (tenant, f"%,{alias},%")
            )
        return len(rows)

    def stats(self, tenant: str) -> StoreStats:
        now = self._clock()
        rows = self._run("SELECT length(value), expires_at, aliases FROM entries WHERE tenant = ?", (tenant,))
        by_alias: dict[str, int] = {}
        live = [row for row in rows if row[1] > now]
        for _, _, aliases in live:
            for alias in filter(None, aliases.split(",")):
                by_alias[alias] = by_alias.get(alias, 0) + 1
        counters = dict(self._run("SELECT name, value FROM counters WHERE tenant = ?", (tenant,)))
        return StoreStats(
            entries=len(live),
            expired=len(rows) - len(live),
            bytes=sum(row[0] for row in live),
            by_knowledge_base=by_alias,
            counters={name: int(counters.get(name, 0)) for name in COUNTERS},
            versions=self.version_marks(tenant),
        )


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


_NO_LOCK = _NoLock()
