"""The fair-share decision (lambdas/endpoint/quota/fair_share.py) over both stores, on simulated clocks.

Every number asserted comes from the buckets' definition: an account of 300 requests per minute holds
`account_tokens` at most, so in t seconds no more than 5 t + account_tokens requests can be admitted."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest

from lambdas.endpoint.quota.bucket_store import Applied, BucketStoreUnavailable
from lambdas.endpoint.quota.dynamodb_buckets import DynamoDbBuckets
from lambdas.endpoint.quota.fair_share import FairShare
from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets
from tests.dynamodb_server import create_quota_table, dynamodb_client
from tests.lambdas.endpoint.quota.conftest import Clock, run, shares


def fair_share(tenant, quota, store, clock, **options) -> FairShare:
    return FairShare(tenant, quota, store, clock=clock, monotonic=clock, **options)


def paths(outcomes) -> Counter:
    return Counter(admission.path for admission in outcomes)


def test_a_noisy_neighbour_never_takes_a_tenants_guarantee(make_store):
    settings, clock, store = shares({"noisy": 150, "steady": 150}), Clock(), make_store()
    tenants = {name: fair_share(name, settings[name], store, clock) for name in settings}
    # noisy asks 5x its share (750 a minute), steady exactly its share (150 a minute), for a minute
    # (six times the 10 s burst window: each simulated request is a store round trip, over moto too)
    outcomes = run({"noisy": 60 / 750, "steady": 60 / 150}, 60, {n: t.admit for n, t in tenants.items()}, clock)
    steady, noisy = paths(outcomes["steady"]), paths(outcomes["noisy"])
    assert steady["refused"] == 0 and steady["guaranteed"] == len(outcomes["steady"])
    admitted = noisy["guaranteed"] + noisy["borrowed"] + steady["guaranteed"]
    assert admitted <= 5 * 60 + settings["noisy"].account_tokens  # never more than the account's quota
    assert noisy["guaranteed"] + noisy["borrowed"] >= 150  # and noisy still has its own share


def test_idle_capacity_is_lent_up_to_the_burst_limit_and_no_further(make_store):
    clock, store = Clock(), make_store()
    limited = shares({"busy": 100, "idle": 200}, burst={"busy": 180})
    busy = fair_share("busy", limited["busy"], store, clock)
    outcome = paths(run({"busy": 0.05}, 60, {"busy": busy.admit}, clock)["busy"])  # 1,200 a minute asked
    admitted = outcome["guaranteed"] + outcome["borrowed"]
    capacity = busy.guaranteed.capacity + busy.borrowed.capacity
    assert outcome["borrowed"] > 0 and 180 <= admitted <= 180 + capacity  # a minute of its burst limit, not 300


def test_a_guarantee_lent_while_idle_is_there_at_once_when_its_owner_comes_back(make_store):
    settings, clock, store = shares({"noisy": 150, "steady": 150}), Clock(), make_store()
    noisy, steady = (fair_share(name, settings[name], store, clock) for name in ("noisy", "steady"))
    borrowed = paths(run({"noisy": 0.02}, 60, {"noisy": noisy.admit}, clock)["noisy"])["borrowed"]
    assert borrowed > 100  # noisy took steady's idle share...
    burst = paths(steady.admit() for _ in range(int(steady.guaranteed.capacity)))
    assert burst == {"guaranteed": int(steady.guaranteed.capacity)}  # ...and steady's whole burst is still there


def test_a_decision_takes_one_round_trip_and_a_refusal_memory_proves_takes_none(make_store):
    settings, clock, store = shares({"noisy": 150, "steady": 150}), Clock(), make_store()
    noisy = fair_share("noisy", settings["noisy"], store, clock)
    outcomes = run({"noisy": 0.05}, 30, {"noisy": noisy.admit}, clock)["noisy"]
    admitted = [a.round_trips for a in outcomes if a.admitted]
    assert statistics.median(admitted) == 1 and sum(admitted) <= 1.1 * len(admitted)
    refused = [a.round_trips for a in outcomes if not a.admitted]
    assert refused and statistics.median(refused) == 0


def test_instances_with_stale_memories_never_spend_a_token_twice(make_store):
    settings, clock, store = shares({"acme": 60, "globex": 240}), Clock(), make_store()
    instances = [fair_share("acme", settings["acme"], store, clock) for _ in range(3)]  # three Lambda instances
    turn = iter(range(10**6))
    outcomes = run({"acme": 0.02}, 30, {"acme": lambda: instances[next(turn) % 3].admit()}, clock)["acme"]
    admitted = sum(a.admitted for a in outcomes)
    limit = 150 + instances[0].guaranteed.capacity + instances[0].borrowed.capacity  # 30 s of its burst limit
    assert 120 <= admitted <= limit
    assert all(a.fallback is None for a in outcomes)


def test_a_clock_ahead_never_mints_tokens_and_a_clock_behind_is_not_stuck(make_store):
    settings, store = shares({"acme": 120, "globex": 180}, burst={"acme": 120}), make_store()
    ahead, behind = Clock(), Clock()
    ahead.advance(30)
    behind.advance(-30)  # a minute behind the instance that wrote last
    fast, slow = (fair_share("acme", settings["acme"], store, clock) for clock in (ahead, behind))
    by_fast = sum(a.admitted for a in run({"acme": 0.01}, 20, {"acme": fast.admit}, ahead)["acme"])
    by_slow = sum(a.admitted for a in run({"acme": 0.01}, 20, {"acme": slow.admit}, behind)["acme"])
    capacity = fast.guaranteed.capacity
    assert by_fast + by_slow <= 2 * 40 + 2 * capacity  # 40 s of 2 a second, plus the burst once more at most
    assert by_slow >= 2 * 20 - capacity  # decided on the time the table proves, not a minute in the past


def test_a_contended_table_is_tried_a_bounded_number_of_times_then_decided_on_the_guarantee(tmp_path):
    class ContendedStore:
        """Test double: DynamoDB's TransactionConflict cannot be provoked in moto; this store reports it
        `conflicts` times, then answers through a real SQLite store."""

        def __init__(self, conflicts: int) -> None:
            self.conflicts, self.calls, self.real = conflicts, 0, SqliteBuckets(tmp_path / "q.sqlite3")

        def apply(self, updates):
            self.calls += 1
            if self.calls <= self.conflicts:
                return Applied(False, conflict=True)
            return self.real.apply(updates)

    settings, clock, pauses = shares({"acme": 60, "globex": 240}), Clock(), []
    once = fair_share("acme", settings["acme"], ContendedStore(1), clock, pause=pauses.append)
    assert once.admit().round_trips == 2 and pauses == [0]
    always = fair_share("acme", settings["acme"], ContendedStore(10**6), clock, pause=pauses.append)
    admission = always.admit()
    assert admission.round_trips == 3 and admission.path == "guaranteed" and "contended" in admission.fallback


def test_an_outage_falls_back_to_the_guarantee_never_to_the_account_then_the_table_is_used_again(quota_dynamodb):
    client = dynamodb_client(quota_dynamodb)
    table = create_quota_table(client)
    settings, clock = shares({"acme": 60, "globex": 240}), Clock()  # acme may borrow up to 300 a minute
    acme = fair_share("acme", settings["acme"], DynamoDbBuckets(client, table), clock, outage_seconds=30)
    client.delete_table(TableName=table)  # the outage
    outcomes = run({"acme": 0.05}, 60, {"acme": acme.admit}, clock)["acme"]
    admitted = [a for a in outcomes if a.admitted]
    assert all(a.path == "guaranteed" and a.fallback for a in admitted)
    assert 60 <= len(admitted) <= 60 + acme.guaranteed.capacity  # its guarantee, not the account's 300
    assert sum(a.round_trips for a in outcomes) == 2  # one failed call per outage window, not one per request
    client.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    clock.advance(30)
    back = acme.admit()
    assert back.admitted and back.fallback is None and back.round_trips == 1


def test_a_tenant_without_a_share_or_room_to_borrow_is_refused_with_a_bounded_retry_after():
    settings = shares({"acme": 0, "globex": 300}, burst={"acme": 0})
    acme = fair_share("acme", settings["acme"], SqliteBuckets(":memory:"), Clock())
    refused = acme.admit()
    assert refused.path == "refused" and refused.retry_after_seconds == 60 and refused.round_trips == 0


@pytest.mark.parametrize("error", [BucketStoreUnavailable("down")])
def test_without_a_store_or_with_a_failing_one_the_process_bucket_decides(error):
    class DownStore:
        """Test double: a store that is always down (what an unreachable table raises)."""

        def apply(self, updates):
            raise error

    settings, clock = shares({"acme": 60, "globex": 240}), Clock()
    for store in (None, DownStore()):
        acme = fair_share("acme", settings["acme"], store, clock)
        burst = [acme.admit() for _ in range(int(acme.guaranteed.capacity) + 1)]
        assert [a.path for a in burst].count("guaranteed") == int(acme.guaranteed.capacity)
        assert burst[-1].path == "refused" and burst[-1].retry_after_seconds == 1
