"""Where the fair-share buckets live: the store protocol every store keeps.

A store applies one request's bucket updates (token_buckets.BucketUpdate) as one atomic conditional
write: every condition holds and every update is written, or nothing is. On a refusal it reports
what the refused items hold now, so the caller decides again without a read of its own. In AWS the
environment's DynamoDB table does it with one TransactWriteItems (dynamodb_buckets.py); under
`akb local`, one SQLite transaction on a file every local endpoint of the environment shares
(sqlite_buckets.py). This module imports neither, so an endpoint loads only the store it uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from lambdas.endpoint.quota.token_buckets import BucketUpdate

Observed = Mapping[str, Mapping[str, float]]  # item -> attribute -> full_at, as stored now


@dataclass(frozen=True)
class Applied:
    """How a store answered: `ok` (every update written); else `observed`, the current values of the
    items whose condition failed (absent: nothing stored yet), or `conflict` (another writer held an
    item: nothing was compared; the caller may try again)."""

    ok: bool
    observed: Observed = field(default_factory=dict)
    conflict: bool = False


class BucketStoreUnavailable(Exception):
    """The store could not be asked (down, throttled, denied, missing): the caller falls back."""


class BucketStore(Protocol):
    def apply(self, updates: Sequence[BucketUpdate]) -> Applied: ...
