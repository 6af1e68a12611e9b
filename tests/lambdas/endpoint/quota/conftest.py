"""Fair-share fixtures: both stores (SQLite, and DynamoDB through moto's server), a settable clock,
and the settings of an environment's tenants built the way the stack builds them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest

from contract.settings import QuotaSettings
from lambdas.endpoint.quota.bucket_store import BucketStore
from lambdas.endpoint.quota.dynamodb_buckets import DynamoDbBuckets
from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets
from tests.dynamodb_server import create_quota_table, dynamodb_client, moto_server

START = 1_800_000_000.0


class Clock:
    """A clock a test moves by hand (epoch seconds); one per simulated Lambda instance."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="session")
def quota_dynamodb() -> Iterator[str]:
    with moto_server() as url:
        yield url


# The DynamoDB kind talks to moto's server on 127.0.0.1: a server test, left out of `make test-fast`.
@pytest.fixture(params=["sqlite", pytest.param("dynamodb", marks=pytest.mark.server)])
def make_store(request, tmp_path) -> Callable[[], BucketStore]:
    """Factory of one store of the parametrized kind; every call makes a new, empty one."""
    if request.param == "sqlite":
        counter = iter(range(1000))
        return lambda: SqliteBuckets(tmp_path / f"quota-{next(counter)}.sqlite3")
    url = request.getfixturevalue("quota_dynamodb")

    def make() -> BucketStore:
        client = dynamodb_client(url)
        return DynamoDbBuckets(client, create_quota_table(client))

    return make


def shares(
    guaranteed: Mapping[str, float],
    burst: Mapping[str, float] | None = None,
    account: float = 300,
    burst_seconds: float = 10,
) -> dict[str, QuotaSettings]:
    """Every tenant's QuotaSettings (burst defaults to the whole account), as the stack renders them."""
    bursts: dict[str, float] = {name: account for name in guaranteed} | dict(burst or {})
    return {name: QuotaSettings.for_tenant(name, account, guaranteed, bursts, burst_seconds) for name in guaranteed}


def run(schedule: Mapping[str, float], seconds: float, admit: Mapping[str, Callable[[], Any]], clock: Clock) -> dict:
    """Each tenant asks every `schedule[tenant]` seconds for `seconds`; returns the admissions by tenant."""
    tick = min(schedule.values()) / 4
    due = dict.fromkeys(schedule, clock.now)
    outcomes: dict[str, list[Any]] = {name: [] for name in schedule}
    end = clock.now + seconds
    while clock.now < end:
        for name, every in schedule.items():
            while due[name] <= clock.now:
                outcomes[name].append(admit[name]())
                due[name] += every
        clock.advance(tick)
    return outcomes
