"""Token buckets as one stored time each (lambdas/endpoint/quota/token_buckets.py): pure arithmetic."""

from __future__ import annotations

import math

import pytest

from lambdas.endpoint.quota.token_buckets import Bucket

NOW = 1_800_000_000.0
BUCKET = Bucket("tenant#acme", "guaranteedFullAt", per_second=2.0, capacity=5.0)  # 120 per minute, 2.5 s of burst


def take_all(bucket: Bucket, full_at: float | None, now: float) -> tuple[int, float | None]:
    taken = 0
    while bucket.can_take(full_at, now):
        full_at = bucket.take(full_at, now).written(full_at)
        taken += 1
    return taken, full_at


def test_a_full_bucket_gives_its_capacity_at_once_then_one_token_per_step():
    taken, full_at = take_all(BUCKET, None, NOW)
    assert taken == 5 and full_at is not None
    assert take_all(BUCKET, full_at, NOW + BUCKET.step * 0.9)[0] == 0
    assert take_all(BUCKET, full_at, NOW + BUCKET.step)[0] == 1
    assert BUCKET.wait_seconds(full_at, NOW) == pytest.approx(BUCKET.step, abs=0.002)  # one token's refill


def test_every_write_only_moves_the_stored_time_forward():
    full_at: float | None = None
    for now in (NOW, NOW, NOW + 0.1, NOW + 100, NOW + 100.2):
        update = BUCKET.take(full_at, now)
        written = update.written(full_at)
        assert full_at is None or written > full_at
        full_at = written


def test_a_reserve_is_kept_when_taking_with_keep():
    account = Bucket("account", "fullAt", per_second=5.0, capacity=10.0)
    taken = 0
    full_at: float | None = None
    while account.can_take(full_at, NOW, keep=4):
        full_at = account.take(full_at, NOW, keep=4).written(full_at)
        taken += 1
    assert taken == 6 and account.tokens(full_at, NOW) == pytest.approx(4, abs=0.01)
    assert account.can_take(full_at, NOW)  # without the reserve the rest can still be taken


def test_a_stored_time_from_a_clock_ahead_proves_that_lead_and_leaves_no_token_at_it():
    ahead = 60.0
    _, full_at = take_all(BUCKET, None, NOW + ahead)  # another instance's clock is a minute ahead
    lead = BUCKET.lead(full_at, NOW)
    assert ahead - 1 < lead <= ahead and BUCKET.tokens(full_at, NOW + lead) == 0  # adopted, and empty: nothing minted
    assert BUCKET.lead(None, NOW) == 0.0 and BUCKET.lead(full_at, NOW + ahead) == 0.0


def test_a_bucket_without_a_rate_never_has_a_token():
    empty = Bucket("tenant#acme", "borrowedFullAt", per_second=0.0, capacity=0.0)
    assert not empty.can_take(None, NOW) and math.isinf(empty.wait_seconds(None, NOW))
