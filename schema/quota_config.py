"""`quota:` blocks: the account's AgenticRetrieveStream quota (environment) and a tenant's share of it.

AgenticRetrieveStream's quota is per account and region (300 requests per minute, adjustable; the
ledger, docs/facts-and-decisions.md), so every tenant of an environment shares it. With `fair_share`
on, each tenant's endpoint enforces its share before calling Bedrock (docs/quota.md): a guaranteed
share that is never lent away, and borrowing of idle capacity up to a burst limit.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from schema.common import StrictModel

# AgenticRetrieveStream: 300 requests per minute per account and region, adjustable; an earlier version
# of the quota page said 60 (docs/facts-and-decisions.md, quotas). The default follows the current page.
DEFAULT_AGENTIC_REQUESTS_PER_MINUTE = 300


class AccountQuota(StrictModel):
    """The environment's `quota:` block."""

    agentic_requests_per_minute: int = Field(
        DEFAULT_AGENTIC_REQUESTS_PER_MINUTE,
        ge=1,
        le=1_000_000,
        description="The account's AgenticRetrieveStream quota in this region (requests per minute; AWS "
        "default 300, adjustable in Service Quotas; `akb doctor` compares it with the applied value). Fair "
        "sharing divides it, the environment dashboard and the quota alarms compare against it.",
    )
    fair_share: bool = Field(
        True,
        description="Enforce each tenant's share in its endpoint (docs/quota.md): a DynamoDB table in "
        "<env>-platform holds the token buckets. false: every agentic request goes to Bedrock, whose own "
        "throttling is retried.",
    )
    burst_seconds: int = Field(
        10,
        ge=1,
        le=60,
        description="Each bucket holds this many seconds of its rate (at least one request): how large a "
        "burst a share absorbs at once.",
    )
    tenant_alarm_percent: float = Field(
        80.0,
        gt=0,
        le=1000,
        description="Alarm when a tenant's admitted agentic requests per minute stay above this percentage of "
        "its guaranteed share for tenant_alarm_minutes (time to raise its share or the account's quota).",
    )
    tenant_alarm_minutes: int = Field(15, ge=1, le=1440, description="See tenant_alarm_percent.")
    account_alarm_percent: float = Field(
        90.0,
        gt=0,
        le=100,
        description="Alarm when all tenants' admitted agentic requests per minute stay above this percentage of "
        "agentic_requests_per_minute for account_alarm_minutes: borrowing is about to stop.",
    )
    account_alarm_minutes: int = Field(5, ge=1, le=1440, description="See account_alarm_percent.")


class TenantQuota(StrictModel):
    """A tenant's `quota:` block: its share of the account's agentic quota (docs/quota.md)."""

    guaranteed_requests_per_minute: int | None = Field(
        None,
        ge=0,
        le=1_000_000,
        description="Agentic requests per minute this tenant always gets, whatever the others do (0: best "
        "effort, borrowing only). Unset: an equal part of what the other tenants' guarantees leave. The "
        "environment's guarantees together may not exceed quota.agentic_requests_per_minute.",
    )
    burst_requests_per_minute: int | None = Field(
        None,
        ge=0,
        le=1_000_000,
        description="The most this tenant may use, its guarantee included, borrowing what others leave "
        "idle. Unset: the whole account's quota. At least the guarantee; at most the account's quota.",
    )

    @model_validator(mode="after")
    def _burst_covers_the_guarantee(self) -> TenantQuota:
        guaranteed, burst = self.guaranteed_requests_per_minute, self.burst_requests_per_minute
        if guaranteed is not None and burst is not None and burst < guaranteed:
            raise ValueError(
                f"burst_requests_per_minute ({burst}) is below guaranteed_requests_per_minute ({guaranteed}): "
                "the burst limit includes the guarantee; raise it to at least the guarantee"
            )
        return self
