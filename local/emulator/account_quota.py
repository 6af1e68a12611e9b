"""The account's AgenticRetrieveStream quota, as the emulator enforces it when asked (`--account-rpm`).

AWS's quota page gives the quota per account and region in requests per minute (300, adjustable; the
ledger, docs/facts-and-decisions.md), not how Bedrock meters it: that is UNVERIFIED. The emulator meters
it as a token bucket refilling at `per_minute / 60` a second and holding `burst_seconds` of that rate
(Retrieve's own quota is documented with a per-second burst: "600 RPM, supports burst of 25 RPS"). A
request over it fails before any event with ThrottlingException (HTTP 429), through the same error path
as the `throttle_before` fault: what botocore raises and the endpoint retries. Only AgenticRetrieveStream
counts (Retrieve's quota is per knowledge base); throttled requests take no token. Off unless configured.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from local.emulator.service_errors import ServiceError

DEFAULT_BURST_SECONDS = 10.0


class AccountQuota:
    def __init__(
        self,
        per_minute: float,
        burst_seconds: float = DEFAULT_BURST_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("the account quota must be a positive number of requests per minute")
        self.per_minute = per_minute
        self._rate = per_minute / 60
        self._capacity = max(1.0, self._rate * burst_seconds)
        self._tokens = self._capacity
        self._clock = clock
        self._at = clock()
        self._lock = threading.Lock()
        self.admitted = 0
        self.throttled = 0

    def take(self) -> ServiceError | None:
        """None when the request may run (a token taken), else the ThrottlingException to answer with."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self._capacity, self._tokens + (now - self._at) * self._rate)
            self._at = now
            if self._tokens >= 1:
                self._tokens -= 1
                self.admitted += 1
                return None
            self.throttled += 1
        return ServiceError(
            "ThrottlingException",
            f"Rate exceeded: the account's {self.per_minute:g} AgenticRetrieveStream requests per minute",
        )

    def snapshot(self) -> dict[str, float]:
        with self._lock:
            return {"per_minute": self.per_minute, "admitted": self.admitted, "throttled": self.throttled}
