"""The fair-share buckets in AWS: the environment's DynamoDB table, one TransactWriteItems per decision.

Items (partition key `pk`, contract/resource_names.py): `tenant#<name>` holds a tenant's buckets
(attributes `guaranteedFullAt`, `borrowedFullAt`), `account` the shared one (`fullAt`). A decision
takes a token from the tenant's item and the account's item in one TransactWriteItems: one round trip,
both or neither. Each Update carries its bucket's condition (token_buckets.BucketUpdate) and
`ReturnValuesOnConditionCheckFailure: ALL_OLD`, so a refused condition comes back with the item's
current values (CancellationReasons[i].Item) and the next attempt needs no read.

Cancellation reasons (botocore `TransactionCanceledException`): ConditionalCheckFailed -> refused
with the values; TransactionConflict (another transaction on the item) -> `conflict`, tried again
by the caller; anything else, and any other error (throttling, access denied, a missing table, a
timeout) -> BucketStoreUnavailable: the caller falls back to the tenant's guarantee.
The endpoint role may update only its own tenant's item and the account item (policies/quota_access.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from contract.resource_names import QUOTA_PARTITION_KEY
from lambdas.endpoint.quota.bucket_store import Applied, BucketStoreUnavailable
from lambdas.endpoint.quota.token_buckets import BucketUpdate

# Short timeouts and no botocore retries: a slow table must not hold a request (the caller falls back),
# and fair_share.py retries a contended write itself, with its own bound.
CLIENT_CONFIG: Mapping[str, Any] = {
    "retries": {"mode": "standard", "total_max_attempts": 1},
    "connect_timeout": 1,
    "read_timeout": 1,
}


def dynamodb_client_factory(region: str | None = None) -> Callable[[], Any]:
    """A factory that creates one DynamoDB client on first call (no cold-start cost) and returns it after."""
    lock = threading.Lock()
    made: list[Any] = []

    def factory() -> Any:
        with lock:
            if not made:
                import boto3
                from botocore.config import Config

                made.append(boto3.client("dynamodb", region_name=region, config=Config(**CLIENT_CONFIG)))
            return made[0]

    return factory


def _condition(update: BucketUpdate) -> str:
    if update.reset:
        return "attribute_not_exists(#a) OR #a < :now"
    return "#a >= :now" if update.limit is None else "#a BETWEEN :now AND :limit"


def _transact_item(table: str, update: BucketUpdate) -> dict[str, Any]:
    values: dict[str, Any] = {":now": {"N": repr(update.now)}}
    if update.reset:
        expression = "SET #a = :value"
        values[":value"] = {"N": repr(update.now + update.step)}
    else:
        expression = "SET #a = #a + :step"
        values[":step"] = {"N": repr(update.step)}
        if update.limit is not None:
            values[":limit"] = {"N": repr(update.limit)}
    return {
        "Update": {
            "TableName": table,
            "Key": {QUOTA_PARTITION_KEY: {"S": update.item}},
            "UpdateExpression": expression,
            "ConditionExpression": _condition(update),
            "ExpressionAttributeNames": {"#a": update.attribute},
            "ExpressionAttributeValues": values,
            "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
        }
    }


def _numbers(item: Mapping[str, Any]) -> dict[str, float]:
    """An item's number attributes (the buckets' `full_at` values), keys left out."""
    return {name: float(value["N"]) for name, value in item.items() if isinstance(value, dict) and "N" in value}


class DynamoDbBuckets:
    def __init__(self, client: Any, table: str) -> None:
        """`client`: a boto3 DynamoDB client, or a factory of one (created on first use)."""
        self._factory = client if callable(client) and not hasattr(client, "transact_write_items") else (lambda: client)
        self.table = table

    def apply(self, updates: Sequence[BucketUpdate]) -> Applied:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._factory().transact_write_items(TransactItems=[_transact_item(self.table, u) for u in updates])
            return Applied(True)
        except ClientError as error:
            return self._cancelled(error, updates)
        except BotoCoreError as error:  # unreachable, timed out, no credentials
            raise BucketStoreUnavailable(f"{type(error).__name__}: {error}") from error

    def _cancelled(self, error: Any, updates: Sequence[BucketUpdate]) -> Applied:
        code = (error.response.get("Error") or {}).get("Code")
        if code != "TransactionCanceledException":
            raise BucketStoreUnavailable(f"{code}: {error}") from error
        reasons = error.response.get("CancellationReasons") or []
        codes = {reason.get("Code") for reason in reasons}
        if "ConditionalCheckFailed" in codes:
            observed = {
                updates[index].item: _numbers(reason.get("Item") or {})
                for index, reason in enumerate(reasons[: len(updates)])
                if reason.get("Code") == "ConditionalCheckFailed"
            }
            return Applied(False, observed)
        if codes <= {"TransactionConflict", "None", None}:
            return Applied(False, conflict=True)
        raise BucketStoreUnavailable(f"transaction cancelled: {sorted(str(c) for c in codes)}") from error
