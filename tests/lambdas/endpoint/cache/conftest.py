"""Cache test fixtures: a DynamoDB-compatible server (moto, server mode) on 127.0.0.1, real boto3 calls.

moto stands in for DynamoDB because no AWS account is reachable here (a test double, named as
such): the store's code path (GetItem, PutItem, Query with begins_with, UpdateItem ADD,
BatchWriteItem) runs through the real boto3 client and botocore's wire protocol against it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lambdas.endpoint.cache.dynamodb_store import TTL_ATTRIBUTE
from tests.dynamodb_server import dynamodb_client, moto_server

# The key schema of the stack's CacheTable, which tests/stacks/test_cache_table.py asserts on the
# synthesized template (spelled here so that these unit tests never import aws_cdk).
PARTITION_KEY, SORT_KEY = "pk", "sk"


@pytest.fixture(scope="session")
def dynamodb_server() -> Iterator[str]:
    """moto's server on 127.0.0.1 (a free port), for the whole session; yields its URL."""
    with moto_server() as url:
        yield url


@pytest.fixture
def cache_table(dynamodb_server) -> Callable[[], tuple[Any, str]]:
    """Factory: (boto3 DynamoDB client, name of a new table shaped like the stack's CacheTable)."""

    def make() -> tuple[Any, str]:
        client = dynamodb_client(dynamodb_server)
        name = f"akb-test-{uuid.uuid4().hex[:8]}-cache"
        client.create_table(
            TableName=name,
            KeySchema=[
                {"AttributeName": PARTITION_KEY, "KeyType": "HASH"},
                {"AttributeName": SORT_KEY, "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": PARTITION_KEY, "AttributeType": "S"},
                {"AttributeName": SORT_KEY, "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        client.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": TTL_ATTRIBUTE}
        )
        return client, name

    return make


def cached_service(emulator, store=None, *, cache=None, **settings_overrides):
    """(settings, ResultCache) for the session emulator: real boto3 clients for runtime and agent APIs."""
    from contract.settings import CacheSettings
    from lambdas.endpoint.cache.setup import build_cache
    from lambdas.endpoint.cache.store import SqliteStore
    from tests.endpoint_server import emulator_client, tenant_settings

    settings_overrides.setdefault("user_context", "caller")
    # Room for every result on one page: an answer with more pages (nextToken) is never stored.
    settings_overrides.setdefault("max_results", 50)
    cache = cache or CacheSettings(acl_knowledge_bases=["docs", "tickets"])
    settings = tenant_settings(cache=cache, **settings_overrides)
    runtime = emulator_client(emulator.url)
    agent = emulator.client("bedrock-agent")
    built = build_cache(settings, store or SqliteStore(":memory:"), lambda: runtime, lambda: agent)
    return settings, built
