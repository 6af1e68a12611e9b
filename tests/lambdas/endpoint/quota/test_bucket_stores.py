"""Both bucket stores keep one contract: SQLite (`akb local`) and DynamoDB (AWS; here moto's server).

Each applies a decision's updates as one conditional write, all or nothing, and answers a refused
condition with what the refused items hold now."""

from __future__ import annotations

import pytest

from lambdas.endpoint.quota.bucket_store import BucketStoreUnavailable
from lambdas.endpoint.quota.dynamodb_buckets import DynamoDbBuckets
from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets
from lambdas.endpoint.quota.token_buckets import BucketUpdate
from tests.dynamodb_server import create_quota_table, dynamodb_client
from tests.lambdas.endpoint.quota.conftest import START

STEP = 0.5


def reset(item: str, attribute: str, now: float = START) -> BucketUpdate:
    return BucketUpdate(item, attribute, now, STEP, reset=True, limit=None)


def add(item: str, attribute: str, limit: float | None, now: float = START) -> BucketUpdate:
    return BucketUpdate(item, attribute, now, STEP, reset=False, limit=limit)


def test_a_first_write_resets_and_a_stale_reset_is_refused_with_the_stored_value(make_store):
    store = make_store()
    assert store.apply([reset("tenant#acme", "guaranteedFullAt")]).ok
    again = store.apply([reset("tenant#acme", "guaranteedFullAt")])  # someone believes it still full
    assert not again.ok and not again.conflict
    assert again.observed == {"tenant#acme": {"guaranteedFullAt": START + STEP}}


def test_an_add_is_written_within_its_limit_and_refused_beyond_it(make_store):
    store = make_store()
    store.apply([reset("tenant#acme", "guaranteedFullAt")])
    assert store.apply([add("tenant#acme", "guaranteedFullAt", limit=START + 1.0)]).ok  # stored START+0.5
    refused = store.apply([add("tenant#acme", "guaranteedFullAt", limit=START + 0.9)])  # stored START+1.0
    assert not refused.ok and refused.observed["tenant#acme"]["guaranteedFullAt"] == START + 2 * STEP
    assert store.apply([add("tenant#acme", "guaranteedFullAt", limit=None)]).ok  # unbounded: never refused


def test_updates_are_applied_together_or_not_at_all(make_store):
    store = make_store()
    store.apply([reset("account", "fullAt")])
    refused = store.apply([reset("tenant#acme", "guaranteedFullAt"), reset("account", "fullAt")])
    assert not refused.ok and set(refused.observed) == {"account"}  # only the item whose condition failed
    retried = store.apply([reset("tenant#acme", "guaranteedFullAt"), reset("account", "fullAt")])
    assert not retried.ok  # the tenant's reset was not written by the refused attempt, so it still holds
    assert retried.observed == {"account": {"fullAt": START + STEP}}
    assert store.apply([reset("tenant#acme", "guaranteedFullAt"), add("account", "fullAt", None)]).ok


def test_an_add_on_a_bucket_never_written_is_refused_without_values(make_store):
    refused = make_store().apply([add("tenant#acme", "borrowedFullAt", limit=START + 5)])
    assert not refused.ok and refused.observed == {"tenant#acme": {}}


def test_a_missing_table_or_an_unreachable_server_is_unavailable_not_a_refusal(quota_dynamodb):
    client = dynamodb_client(quota_dynamodb)
    with pytest.raises(BucketStoreUnavailable, match="ResourceNotFound"):
        DynamoDbBuckets(client, "akb-test-no-such-table").apply([reset("account", "fullAt")])
    gone = dynamodb_client("http://127.0.0.1:9")  # discard port: nothing answers
    with pytest.raises(BucketStoreUnavailable):
        DynamoDbBuckets(gone, create_quota_table(client)).apply([reset("account", "fullAt")])


def test_an_unopenable_sqlite_file_is_unavailable(tmp_path):
    (tmp_path / "quota.sqlite3").mkdir()  # a directory where the file should be
    with pytest.raises(BucketStoreUnavailable, match=r"quota\.sqlite3"):
        SqliteBuckets(tmp_path / "quota.sqlite3").apply([reset("account", "fullAt")])
