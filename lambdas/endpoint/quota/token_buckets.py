"""Token buckets as one stored number each, so a store can update them with a conditional write.

A bucket refills at `per_second` tokens up to `capacity`. Its state is one time, `full_at`: when it
would be full again if nothing more were taken (the generic cell rate algorithm's theoretical arrival
time). Tokens at `now` are `capacity - max(0, full_at - now) * per_second`. Taking one token moves
`full_at` to `max(full_at, now) + step` (step = 1 / per_second); the `max` is two cases a conditional
write can express without reading first:

- reset (the bucket is full: `full_at < now`, or no value yet): `full_at := now + step`;
- add (`now <= full_at <= limit`): `full_at := full_at + step`, where `limit` is the largest `full_at`
  that still leaves a token (and `keep` more, for the shared bucket's reserve) after taking one.

Both only ever increase the stored time, which is what makes skewed clocks safe (fair_share.py).
Pure functions: no clock, no store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# A bucket whose stored `full_at` lies further than this past `now + capacity * step` was written by a
# clock ahead of ours: decisions then run on the time the store proves (Bucket.lead).
SKEW_TOLERANCE_SECONDS = 0.001
# Slack on every limit: `full_at` is a sum of many float steps, so a bucket holding exactly one more
# token must not be refused for a rounding error (epoch seconds near 1.8e9 carry about 2.4e-7 s per
# float step; a millisecond is far below any bucket's step and far above the rounding).
LIMIT_SLACK_SECONDS = 1e-3


@dataclass(frozen=True)
class BucketUpdate:
    """Take one token from one bucket, as a conditional write: the store applies every update of a
    request together or none (store protocol: bucket_store.py)."""

    item: str  # partition key of the item holding the bucket
    attribute: str  # the attribute holding its `full_at`
    now: float  # the decision's time for this bucket (epoch seconds)
    step: float  # seconds one token takes to refill
    reset: bool  # True: the writer believes the bucket full (`full_at` missing or < now)
    limit: float | None  # add path: `full_at` must be at most this; None: no bound (never refused)

    def holds(self, full_at: float | None) -> bool:
        """Whether the write's condition holds for the stored value (the SQLite store evaluates it here;
        DynamoDB evaluates the same condition as its ConditionExpression)."""
        if self.reset:
            return full_at is None or full_at < self.now
        return full_at is not None and full_at >= self.now and (self.limit is None or full_at <= self.limit)

    def written(self, full_at: float | None) -> float:
        """The value the write leaves (for a value the condition admitted)."""
        return self.now + self.step if self.reset or full_at is None else full_at + self.step


@dataclass(frozen=True)
class Bucket:
    item: str
    attribute: str
    per_second: float
    capacity: float

    @property
    def usable(self) -> bool:
        """A bucket that can hold a whole token (a 0 guarantee or burst has none)."""
        return self.per_second > 0 and self.capacity >= 1

    @property
    def step(self) -> float:
        return 1 / self.per_second

    def lead(self, full_at: float | None, now: float) -> float:
        """How far ahead of `now` the writer of `full_at` must have been (0.0 when nothing proves it): a
        writer never stores more than its `now + capacity * step`. Deciding on `now + lead` from then on,
        the bucket is empty at the moment of adoption, so another clock's lead never mints a token."""
        if full_at is None or not self.usable:
            return 0.0
        lead = full_at - self.capacity * self.step - now
        return lead if lead > SKEW_TOLERANCE_SECONDS else 0.0

    def tokens(self, full_at: float | None, now: float) -> float:
        if full_at is None:
            return self.capacity
        return max(0.0, self.capacity - max(0.0, full_at - now) * self.per_second)

    def can_take(self, full_at: float | None, now: float, keep: float = 0.0) -> bool:
        """One token can be taken leaving at least `keep`: the store's own condition, evaluated here."""
        if not self.usable or self.capacity < 1 + keep:
            return False
        return full_at is None or full_at < now or full_at <= self.limit(now, keep)

    def limit(self, now: float, keep: float = 0.0) -> float:
        """The largest `full_at` at which one token can be taken leaving `keep`."""
        return now + (self.capacity - 1 - keep) * self.step + LIMIT_SLACK_SECONDS

    def wait_seconds(self, full_at: float | None, now: float, keep: float = 0.0) -> float:
        """Seconds until one token (and `keep` more) is there; inf for a bucket that never has one."""
        if not self.usable or self.capacity < 1 + keep:
            return math.inf
        if full_at is None:
            return 0.0
        return max(0.0, full_at - self.limit(now, keep))

    def take(self, full_at: float | None, now: float, *, keep: float | None = 0.0) -> BucketUpdate:
        """The conditional write that takes one token; `keep=None`: unbounded (the shared bucket on a
        guaranteed request, which the reserve already covers)."""
        reset = full_at is None or full_at < now
        limit = None if keep is None else self.limit(now, keep)
        return BucketUpdate(self.item, self.attribute, now, self.step, reset, limit)
