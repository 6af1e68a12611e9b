"""The cache store in AWS: the tenant's DynamoDB table (created by the tenant stack when the cache is on).

Every item sits under the tenant's partition key (`pk` = tenant name), and the endpoint role may
touch only items whose partition key is its own tenant (IAM condition dynamodb:LeadingKeys;
policies/cache_table.py). Sort keys: `entry#<lookup key>`, `version#<kb id>#<data source id>`,
`counters`. `expiresAt` (epoch seconds) is the table's TTL attribute; DynamoDB deletes expired
items only eventually (ledger), so reads check the expiry themselves.

Plain boto3 client calls (GetItem, PutItem, Query, UpdateItem, BatchWriteItem) with typed
attribute values: no resource layer to import on a cold start.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from lambdas.endpoint.cache.store import COUNTERS, StoreStats, VersionMark

ENTRY = "entry#"
VERSION = "version#"
COUNTERS_SK = "counters"
TTL_ATTRIBUTE = "expiresAt"
BATCH_WRITE_LIMIT = 25  # BatchWriteItem takes at most 25 requests (ledger)


class DynamoDbStore:
    def __init__(self, client: Any, table: str, clock: Callable[[], float] = time.time) -> None:
        """`client`: a boto3 DynamoDB client, or a factory of one (created on first use: no cold-start cost)."""
        self._factory = client if callable(client) and not hasattr(client, "get_item") else (lambda: client)
        self.table = table
        self._clock = clock

    @property
    def _client(self) -> Any:
        return self._factory()

    def _query(self, tenant: str, prefix: str, projection: str) -> Iterator[dict[str, Any]]:
        paginator = self._client.get_paginator("query")
        for page in paginator.paginate(
            TableName=self.table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": {"S": tenant}, ":prefix": {"S": prefix}},
            ProjectionExpression=projection,
        ):
            yield from page.get("Items", [])

    def get(self, tenant: str, key: str) -> str | None:
        item = self._client.get_item(TableName=self.table, Key={"pk": {"S": tenant}, "sk": {"S": ENTRY + key}}).get(
            "Item"
        )
        if not item or float(item[TTL_ATTRIBUTE]["N"]) <= self._clock():
            return None
        return item["value"]["S"]

    def put(self, tenant: str, key: str, value: str, expires_at: float, aliases: list[str]) -> None:
        self._client.put_item(
            TableName=self.table,
            Item={
                "pk": {"S": tenant},
                "sk": {"S": ENTRY + key},
                "value": {"S": value},
                TTL_ATTRIBUTE: {"N": str(int(expires_at))},
                "aliases": {"L": [{"S": alias} for alias in aliases]},
                "entryBytes": {"N": str(len(value.encode("utf-8")))},
            },
        )

    def version_marks(self, tenant: str) -> list[VersionMark]:
        marks = []
        for item in self._query(tenant, VERSION, "sk, jobId, updatedAt"):
            _, kb_id, data_source_id = item["sk"]["S"].split("#", 2)
            marks.append(VersionMark(kb_id, data_source_id, item["jobId"]["S"], float(item["updatedAt"]["N"])))
        return marks

    def publish_version(self, tenant: str, mark: VersionMark) -> None:
        self._client.put_item(
            TableName=self.table,
            Item={
                "pk": {"S": tenant},
                "sk": {"S": f"{VERSION}{mark.knowledge_base_id}#{mark.data_source_id}"},
                "jobId": {"S": mark.job_id},
                "updatedAt": {"N": repr(mark.updated_at)},
            },
        )

    def count(self, tenant: str, counter: str, amount: int = 1) -> None:
        self._client.update_item(
            TableName=self.table,
            Key={"pk": {"S": tenant}, "sk": {"S": COUNTERS_SK}},
            UpdateExpression="ADD #c :n",
            ExpressionAttributeNames={"#c": counter},
            ExpressionAttributeValues={":n": {"N": str(amount)}},
        )

    def flush(self, tenant: str, alias: str | None = None) -> int:
        keys = [
            item["sk"]["S"]
            for item in self._query(tenant, ENTRY, "sk, aliases")
            if alias is None or alias in [value["S"] for value in item.get("aliases", {}).get("L", [])]
        ]
        for start in range(0, len(keys), BATCH_WRITE_LIMIT):
            requests = [
                {"DeleteRequest": {"Key": {"pk": {"S": tenant}, "sk": {"S": sk}}}}
                for sk in keys[start : start + BATCH_WRITE_LIMIT]
            ]
            self._batch_delete(requests)
        return len(keys)

    def _batch_delete(self, requests: list[dict[str, Any]], attempts: int = 5) -> None:
        pending = {self.table: requests}
        for attempt in range(attempts):
            pending = self._client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
            if not pending:
                return
            time.sleep(0.05 * 2**attempt)
        raise RuntimeError(f"DynamoDB left {len(pending.get(self.table, []))} deletes unprocessed; run flush again")

    def stats(self, tenant: str) -> StoreStats:
        now = self._clock()
        live = expired = size = 0
        by_alias: dict[str, int] = {}
        for item in self._query(tenant, ENTRY, "sk, expiresAt, aliases, entryBytes"):
            if float(item[TTL_ATTRIBUTE]["N"]) <= now:
                expired += 1
                continue
            live += 1
            size += int(item.get("entryBytes", {}).get("N", "0"))
            for value in item.get("aliases", {}).get("L", []):
                by_alias[value["S"]] = by_alias.get(value["S"], 0) + 1
        item = self._client.get_item(TableName=self.table, Key={"pk": {"S": tenant}, "sk": {"S": COUNTERS_SK}}).get(
            "Item", {}
        )
        counters = {name: int(item[name]["N"]) if name in item else 0 for name in COUNTERS}
        return StoreStats(live, expired, size, by_alias, counters, self.version_marks(tenant))
