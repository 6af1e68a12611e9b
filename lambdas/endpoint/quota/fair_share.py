"""The fair-share decision for one agentic request: take a token on the tenant's guarantee, else borrow
idle capacity, else refuse (and say when to retry).

Buckets (token_buckets.py), all in one store (bucket_store.py) every endpoint of the environment uses:
- the tenant's guarantee: its guaranteed share per minute;
- the tenant's borrowing: burst limit minus guarantee per minute (none when they are equal);
- the account's shared bucket: the account's quota per minute. Every admitted request takes a token
  here too, so it counts what actually goes to Bedrock.

Work-conserving, and a guarantee is never lent away: a guaranteed request always takes its token from
the shared bucket (no bound: its reserve is there), a borrowed one only while the shared bucket keeps
`reserve_tokens` (every other tenant's full guarantee bucket, plus one) after taking it. The shared
bucket refills at the account's rate, at least the sum of the guarantees, so it never holds fewer
tokens than all guarantee buckets together: a tenant with a guarantee token always finds an account
token, and whatever a tenant leaves idle flows into the shared bucket for others to borrow.

Defined behaviours:
- one round trip per decision in the common case: the writes are conditional and relative, and each
  endpoint remembers the last values it saw (a lower bound: stored values only grow). A refusal that
  memory proves costs no round trip; a condition refused because memory was stale returns the current
  values and the next attempt uses them;
- a lost update: concurrent writers cannot lose each other's tokens (every write is conditional and
  only adds); a transaction conflict (another writer on the item) is tried again after a short random
  pause, at most `max_attempts` times in all, then decided as in an outage;
- clock skew: the store's values only move forward (a slow clock never rewinds them); when a stored
  value proves its writer's clock ahead of ours, this process decides on that bucket with its clock
  moved forward by that lead from then on (Bucket.lead), starting from an empty bucket: another clock's
  lead never mints tokens here, and a slow clock is not stuck waiting for the table's time; a fast clock
  can, once, see a bucket full that was not (at most one bucket's capacity);
- a table outage (down, throttled, denied, missing): for `outage_seconds` the tenant is admitted by an
  in-process bucket at its guarantee, never by the shared bucket: failing open to the whole account
  would let every tenant at once take what the outage hides, the very incident fair sharing prevents;
  failing closed would turn a table outage into an outage of agentic retrieval. A guarantee is what the
  tenant is owed anyway; each warm instance holds its own bucket, so a tenant with k instances may reach
  k times its guarantee until the table answers (Bedrock's own throttling, retried, is the backstop).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from contract.resource_names import QUOTA_ACCOUNT_ITEM, quota_tenant_item
from contract.settings import QuotaSettings, bucket_capacity
from lambdas.endpoint.quota.bucket_store import BucketStore, BucketStoreUnavailable
from lambdas.endpoint.quota.token_buckets import Bucket, BucketUpdate

GUARANTEED = "guaranteedFullAt"
BORROWED = "borrowedFullAt"
ACCOUNT = "fullAt"
MAX_ATTEMPTS = 3
OUTAGE_SECONDS = 15.0
NEVER_RETRY_AFTER_SECONDS = 60  # a tenant that can never be admitted (no guarantee, no room to borrow)

Path = Literal["guaranteed", "borrowed", "refused"]


@dataclass(frozen=True)
class Admission:
    """The decision. `fallback`: why the in-process bucket decided it (None: the store did)."""

    path: Path
    retry_after_seconds: int = 0  # when refused
    round_trips: int = 0  # calls to the store
    check_ms: float = 0.0
    fallback: str | None = None

    @property
    def admitted(self) -> bool:
        return self.path != "refused"


@dataclass(frozen=True)
class _Choice:
    path: Path
    updates: tuple[BucketUpdate, ...] = ()
    wait_seconds: float = 0.0


class LocalBucket:
    """The tenant's guarantee, kept in this process on its monotonic clock: what an outage falls back to."""

    def __init__(self, bucket: Bucket, monotonic: Callable[[], float]) -> None:
        self._bucket = bucket
        self._monotonic = monotonic
        self._full_at: float | None = None
        self._lock = threading.Lock()

    def take(self) -> float:
        """0.0 when a token was taken, else the seconds until one is there (inf: never)."""
        with self._lock:
            now = self._monotonic()
            if not self._bucket.can_take(self._full_at, now):
                return self._bucket.wait_seconds(self._full_at, now)
            self._full_at = self._bucket.take(self._full_at, now).written(self._full_at)
            return 0.0


def retry_after(seconds: float) -> int:
    """Retry-After in whole seconds, at least 1."""
    return NEVER_RETRY_AFTER_SECONDS if math.isinf(seconds) else max(1, math.ceil(seconds))


def _pause(attempt: int) -> None:
    time.sleep(random.uniform(0, 0.005 * 2**attempt))


class FairShare:
    """One tenant's decisions, shared by every request of the process (thread-safe)."""

    def __init__(
        self,
        tenant: str,
        quota: QuotaSettings,
        store: BucketStore | None,
        *,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        max_attempts: int = MAX_ATTEMPTS,
        outage_seconds: float = OUTAGE_SECONDS,
        pause: Callable[[int], None] = _pause,
    ) -> None:
        item, seconds = quota_tenant_item(tenant), quota.burst_seconds
        borrow_rate = max(0.0, quota.burst_per_minute - quota.guaranteed_per_minute)
        self.guaranteed = Bucket(
            item, GUARANTEED, quota.guaranteed_per_minute / 60, bucket_capacity(quota.guaranteed_per_minute, seconds)
        )
        self.borrowed = Bucket(item, BORROWED, borrow_rate / 60, bucket_capacity(borrow_rate, seconds))
        self.account = Bucket(QUOTA_ACCOUNT_ITEM, ACCOUNT, quota.account_per_minute / 60, quota.account_tokens)
        self.reserve = quota.reserve_tokens
        self.store = store
        self.local = LocalBucket(self.guaranteed, monotonic)
        self._clock, self._monotonic, self._pause = clock, monotonic, pause
        self._max_attempts, self._outage_seconds = max_attempts, outage_seconds
        self._known: dict[tuple[str, str], float] = {}  # last values seen: lower bounds of the stored ones
        self._lead: dict[tuple[str, str], float] = {}  # how far the table proves its writers ahead of our clock
        self._lock = threading.Lock()
        self._outage_until = -math.inf
        self._outage = "no store is configured"

    def admit(self) -> Admission:
        started = self._monotonic()
        if self.store is None or started < self._outage_until:
            return self._fallback(started, self._outage, 0)
        for attempt in range(self._max_attempts):
            choice = self._choose(self._clock())
            if choice.path == "refused":
                return Admission("refused", retry_after(choice.wait_seconds), attempt, self._ms(started))
            try:
                applied = self.store.apply(choice.updates)
            except BucketStoreUnavailable as error:
                self._outage = f"the quota table is unavailable ({error})"
                self._outage_until = self._monotonic() + self._outage_seconds
                return self._fallback(started, self._outage, attempt + 1)
            if applied.ok:
                self._remember_written(choice.updates)
                return Admission(choice.path, 0, attempt + 1, self._ms(started))
            self._remember_observed(applied.observed)
            if applied.conflict:
                self._pause(attempt)
        return self._fallback(
            started, f"the quota table stayed contended for {self._max_attempts} attempts", self._max_attempts
        )

    def _choose(self, now: float) -> _Choice:
        g, b, a = self.guaranteed, self.borrowed, self.account
        with self._lock:
            xg, xb, xa = (self._known.get((bucket.item, bucket.attribute)) for bucket in (g, b, a))
            now_g, now_b, now_a = (now + self._lead.get((bucket.item, bucket.attribute), 0.0) for bucket in (g, b, a))
        if g.can_take(xg, now_g):  # the guarantee: the shared bucket's reserve covers it, no bound there
            return _Choice("guaranteed", (g.take(xg, now_g), a.take(xa, now_a, keep=None)))
        if b.can_take(xb, now_b) and a.can_take(xa, now_a, keep=self.reserve):
            return _Choice("borrowed", (b.take(xb, now_b), a.take(xa, now_a, keep=self.reserve)))
        borrow_wait = max(b.wait_seconds(xb, now_b), a.wait_seconds(xa, now_a, keep=self.reserve))
        return _Choice("refused", wait_seconds=min(g.wait_seconds(xg, now_g), borrow_wait))

    def _remember_written(self, updates: Sequence[BucketUpdate]) -> None:
        with self._lock:
            for update in updates:
                key = (update.item, update.attribute)
                self._known[key] = update.written(self._known.get(key))

    def _remember_observed(self, observed: Mapping[str, Mapping[str, float]]) -> None:
        """The refused items' current values replace what we knew (an absent attribute: nothing stored); a
        value that proves its writer's clock ahead of ours moves our clock for that bucket (Bucket.lead)."""
        now = self._clock()
        with self._lock:
            for bucket in (self.guaranteed, self.borrowed, self.account):
                if bucket.item not in observed:
                    continue
                key, value = (bucket.item, bucket.attribute), observed[bucket.item].get(bucket.attribute)
                if value is None:
                    self._known.pop(key, None)
                    continue
                self._known[key] = value
                lead = bucket.lead(value, now + self._lead.get(key, 0.0))
                if lead:
                    self._lead[key] = self._lead.get(key, 0.0) + lead

    def _fallback(self, started: float, reason: str, round_trips: int) -> Admission:
        wait = self.local.take()
        path: Path = "guaranteed" if wait == 0.0 else "refused"
        return Admission(path, 0 if wait == 0.0 else retry_after(wait), round_trips, self._ms(started), reason)

    def _ms(self, started: float) -> float:
        return round((self._monotonic() - started) * 1000, 3)
