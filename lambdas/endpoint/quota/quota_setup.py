"""Builds the tenant's fair sharing from the process environment (or leaves it off).

The tenant settings say whether fair sharing is on and the tenant's share (`quota`); the environment
says where the buckets live: `AKB_QUOTA_TABLE` (the stack sets it: the environment's DynamoDB table) or
`AKB_QUOTA_PATH` (`akb local` sets it: a SQLite file every local endpoint of the environment shares).
With `quota` but neither variable, the tenant runs on its in-process guarantee bucket alone (never
more than its guarantee) and says so once in the log.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from contract.env_vars import QUOTA_PATH as PATH_ENV
from contract.env_vars import QUOTA_TABLE as TABLE_ENV
from contract.settings import TenantSettings
from lambdas.endpoint.logs import log_warning
from lambdas.endpoint.quota.bucket_store import BucketStore
from lambdas.endpoint.quota.fair_share import FairShare
from lambdas.endpoint.quota.quota_wrapper import FairShareWrapper


def bucket_store_from_environment(env: Mapping[str, str]) -> BucketStore | None:
    if env.get(TABLE_ENV):
        from lambdas.endpoint.quota.dynamodb_buckets import DynamoDbBuckets, dynamodb_client_factory

        return DynamoDbBuckets(dynamodb_client_factory(env.get("AWS_REGION") or None), env[TABLE_ENV])
    if env.get(PATH_ENV):
        from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets  # sqlite3 loads only under akb local

        return SqliteBuckets(env[PATH_ENV])
    return None


def fair_share_wrapper(settings: TenantSettings, env: Mapping[str, str] = os.environ) -> FairShareWrapper | None:
    """The tenant's fair-share wrapper, or None when its settings carry no `quota`."""
    if settings.quota is None:
        return None
    store = bucket_store_from_environment(env)
    if store is None:
        log_warning(
            "the tenant's settings turn fair sharing on, but neither %s nor %s names the buckets: "
            "admitting agentic requests on this process's guarantee bucket alone",
            TABLE_ENV,
            PATH_ENV,
        )
    return FairShareWrapper(FairShare(settings.tenant, settings.quota, store))
