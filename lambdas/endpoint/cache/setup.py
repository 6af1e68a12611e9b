"""Builds the tenant's result cache from the process environment (or leaves it off).

The tenant settings say whether the cache is on and how it behaves; the environment says where
entries live: `AKB_CACHE_TABLE` (the tenant stack sets it: the DynamoDB table) or
`AKB_CACHE_PATH` (`akb local` sets it: a SQLite file). A tenant with `cache:` in its config but
neither variable runs without a cache, and says so once in the log.

The bedrock-agent client (ingestion jobs) is created on first use, like the runtime client, with
botocore retries limited: a slow version read must not hold a request for long (a failed one
bypasses the cache instead; versions.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from contract.env_vars import CACHE_PATH as PATH_ENV
from contract.env_vars import CACHE_TABLE as TABLE_ENV
from contract.settings import TenantSettings
from lambdas.endpoint.cache.result_cache import ResultCache
from lambdas.endpoint.cache.store import CacheStore, SqliteStore
from lambdas.endpoint.cache.versions import ContentVersions
from lambdas.endpoint.logs import log_warning

AGENT_CLIENT_CONFIG = {
    "retries": {"mode": "standard", "total_max_attempts": 2},
    "connect_timeout": 2,
    "read_timeout": 5,
}


_MADE: list[list[Any]] = []  # every lazy_client's slot, so SnapStart can forget them (snapstart.py)


def forget_lazy_clients() -> int:
    """Empties every lazy client's slot (the next call creates a new client); returns how many were made."""
    dropped = sum(len(made) for made in _MADE)
    for made in _MADE:
        made.clear()
    return dropped


def lazy_client(service: str, config: Mapping[str, Any]) -> Callable[[], Any]:
    """A factory that creates one boto3 client of `service` on first call and returns it after."""
    lock = threading.Lock()
    made: list[Any] = []
    _MADE.append(made)

    def factory() -> Any:
        if not made:
            with lock:
                if not made:
                    import boto3
                    from botocore.config import Config

                    region = os.environ.get("AWS_REGION") or None
                    made.append(boto3.client(service, region_name=region, config=Config(**config)))
        return made[0]

    return factory


def store_from_environment(env: Mapping[str, str]) -> CacheStore | None:
    if env.get(TABLE_ENV):
        from lambdas.endpoint.cache.dynamodb_store import DynamoDbStore

        return DynamoDbStore(lazy_client("dynamodb", AGENT_CLIENT_CONFIG), env[TABLE_ENV])
    if env.get(PATH_ENV):
        return SqliteStore(env[PATH_ENV])
    return None


def build_cache(
    settings: TenantSettings,
    store: CacheStore,
    runtime_client_factory: Callable[[], Any],
    agent_client_factory: Callable[[], Any] | None = None,
) -> ResultCache:
    if settings.cache is None:
        raise ValueError("build_cache needs settings.cache (the tenant's `cache:` block)")
    versions = ContentVersions(
        agent_client_factory or lazy_client("bedrock-agent", AGENT_CLIENT_CONFIG),
        store,
        settings.tenant,
        refresh_seconds=settings.cache.version_refresh_seconds,
    )
    return ResultCache(settings, store, versions, runtime_client_factory)


def cache_from_environment(
    settings: TenantSettings, env: Mapping[str, str], runtime_client_factory: Callable[[], Any]
) -> ResultCache | None:
    if settings.cache is None:
        return None
    store = store_from_environment(env)
    if store is None:
        log_warning(
            "the tenant's config turns the result cache on, but neither %s nor %s names a store: running without it",
            TABLE_ENV,
            PATH_ENV,
        )
        return None
    return build_cache(settings, store, runtime_client_factory)
