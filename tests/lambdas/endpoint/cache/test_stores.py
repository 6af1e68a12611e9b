"""Both stores keep the same contract: SQLite (akb local) and DynamoDB (AWS, here through moto's server)."""

from __future__ import annotations

import time

import pytest

from lambdas.endpoint.cache.dynamodb_store import DynamoDbStore
from lambdas.endpoint.cache.store import SqliteStore, VersionMark


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", "dynamodb"])
def store_and_clock(request, tmp_path):
    clock = Clock()
    if request.param == "sqlite":
        return SqliteStore(tmp_path / "cache.sqlite3", clock=clock), clock
    client, table = request.getfixturevalue("cache_table")()
    return DynamoDbStore(client, table, clock=clock), clock


def test_an_entry_is_read_back_until_it_expires(store_and_clock):
    store, clock = store_and_clock
    store.put("acme", "k1", '{"a": 1}', clock.now + 60, ["docs"])
    assert store.get("acme", "k1") == '{"a": 1}'
    clock.now += 61
    assert store.get("acme", "k1") is None  # expired: never served, even before DynamoDB's TTL sweep


def test_tenants_never_see_each_others_entries(store_and_clock):
    store, clock = store_and_clock
    store.put("acme", "same-key", "acme's", clock.now + 60, ["docs"])
    assert store.get("globex", "same-key") is None
    assert store.flush("globex") == 0 and store.get("acme", "same-key") == "acme's"


def test_published_versions_are_kept_per_data_source_and_replaced(store_and_clock):
    store, _ = store_and_clock
    store.publish_version("acme", VersionMark("KB00000001", "DS00000001", "job-1", 100.5))
    store.publish_version("acme", VersionMark("KB00000001", "DS00000001", "job-2", 200.25))
    store.publish_version("acme", VersionMark("KB00000002", "DS00000009", "job-9", 50.0))
    marks = sorted(store.version_marks("acme"), key=lambda mark: mark.knowledge_base_id)
    assert marks == [
        VersionMark("KB00000001", "DS00000001", "job-2", 200.25),
        VersionMark("KB00000002", "DS00000009", "job-9", 50.0),
    ]
    assert store.version_marks("globex") == []


def test_flush_by_knowledge_base_removes_only_entries_that_searched_it(store_and_clock):
    store, clock = store_and_clock
    store.put("acme", "docs-only", "1", clock.now + 60, ["docs"])
    store.put("acme", "both", "2", clock.now + 60, ["docs", "tickets"])
    store.put("acme", "tickets-only", "3", clock.now + 60, ["tickets"])
    assert store.flush("acme", "docs") == 2
    assert [store.get("acme", key) for key in ("docs-only", "both", "tickets-only")] == [None, None, "3"]
    assert store.flush("acme") == 1 and store.get("acme", "tickets-only") is None


def test_stats_count_live_and_expired_entries_counters_and_versions(store_and_clock):
    store, clock = store_and_clock
    store.put("acme", "live", "x" * 10, clock.now + 60, ["docs", "tickets"])
    store.put("acme", "old", "y", clock.now - 1, ["docs"])
    for counter in ("hits", "hits", "misses", "stale_rejected"):
        store.count("acme", counter)
    store.publish_version("acme", VersionMark("KB00000001", "DS00000001", "job-1", 1.0))
    stats = store.stats("acme")
    assert (stats.entries, stats.expired, stats.bytes) == (1, 1, 10)
    assert stats.by_knowledge_base == {"docs": 1, "tickets": 1}
    assert stats.counters["hits"] == 2 and stats.counters["misses"] == 1 and stats.counters["stale_rejected"] == 1
    assert stats.counters["acl_denied"] == 0 and len(stats.versions) == 1


def test_sqlite_store_is_shared_by_two_processes_worth_of_connections(tmp_path):
    """akb local's endpoint and `akb cache` open the same file: each sees the other's writes."""
    first, second = SqliteStore(tmp_path / "c.sqlite3"), SqliteStore(tmp_path / "c.sqlite3")
    first.put("acme", "k", "v", time.time() + 60, ["docs"])
    assert second.get("acme", "k") == "v" and second.flush("acme") == 1 and first.get("acme", "k") is None


def test_flush_deletes_more_than_one_batch_write(cache_table):
    """BatchWriteItem takes 25 requests at most: 60 entries need three batches."""
    client, table = cache_table()
    store = DynamoDbStore(client, table)
    for n in range(60):
        store.put("acme", f"k{n}", "v", time.time() + 60, ["docs"])
    assert store.flush("acme") == 60 and store.stats("acme").entries == 0
