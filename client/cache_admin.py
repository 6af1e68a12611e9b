"""The tenant's result-cache store, as the `akb` commands reach it: stats, flush, publishing versions.

In AWS the store is the tenant's DynamoDB table (its name derives from env and tenant:
contract/resource_names.cache_table_name); with `--local`, the SQLite file `akb local` uses
(`local_cache_path`). Operator credentials are used, never the endpoint's role.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from client.exit_codes import SetupError
from contract.resource_names import cache_table_name
from lambdas.endpoint.cache.store import CacheStore, SqliteStore, VersionMark

LOCAL_CACHE_DIR_ENV = "AKB_LOCAL_CACHE_DIR"


class CacheAdminError(SetupError):
    """Something the user can fix; `str()` says what."""


def local_cache_path(env_name: str, tenant: str) -> Path:
    """Where `akb local` keeps a tenant's cache: $AKB_LOCAL_CACHE_DIR or ~/.cache/akb, one file per env and tenant."""
    root = os.environ.get(LOCAL_CACHE_DIR_ENV) or str(Path.home() / ".cache" / "akb")
    return Path(root) / f"{env_name}-{tenant}.sqlite3"


def open_store(project: Any, tenant: str, *, local: bool, dynamodb: Any = None) -> CacheStore:
    """The tenant's store; refuses a tenant without a `cache:` block (there is no table to read)."""
    if tenant not in project.tenants:
        raise CacheAdminError(
            f"tenant '{tenant}' is not deployed in environment {project.env_name} "
            f"(its tenants: {', '.join(project.tenants)})"
        )
    if project.tenants[tenant].cache is None:
        raise CacheAdminError(f"tenant {tenant} has no `cache:` block in its config: there is no cache to read")
    if local:
        return SqliteStore(local_cache_path(project.env_name, tenant))
    from lambdas.endpoint.cache.dynamodb_store import DynamoDbStore

    if dynamodb is None:
        from client.aws_session import environment_region, session

        dynamodb = session(environment_region(project)).client("dynamodb")
    return DynamoDbStore(dynamodb, cache_table_name(project.env_name, tenant))


def publish_job_version(store: CacheStore, tenant: str, job: dict[str, Any]) -> VersionMark:
    """After an ingestion job COMPLETEs: its id and updatedAt become the data source's version at once."""
    updated = job.get("updatedAt")
    mark = VersionMark(
        knowledge_base_id=job["knowledgeBaseId"],
        data_source_id=job["dataSourceId"],
        job_id=job["ingestionJobId"],
        updated_at=updated.timestamp() if isinstance(updated, datetime) else time.time(),
    )
    store.publish_version(tenant, mark)
    return mark


def publish_direct_version(store: CacheStore, tenant: str, knowledge_base_id: str, data_source_id: str) -> VersionMark:
    """Direct ingestion (IngestKnowledgeBaseDocuments) has no job: the version is bumped here, now."""
    now = time.time()
    mark = VersionMark(knowledge_base_id, data_source_id, f"direct-{int(now * 1000)}", now)
    store.publish_version(tenant, mark)
    return mark
