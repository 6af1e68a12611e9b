"""Fair sharing on the environment dashboard, and its alarms (docs/quota.md, docs/operations.md).

Built by the quota feature in `<env>-platform` (features/quota_feature.py). Reads the endpoints' own EMF
metrics (contract/metric_names.py: QuotaAdmitted, QuotaBorrowed, QuotaDegraded, QuotaFallback,
QuotaRoundTrips, and Errors with ErrorCode tenant_quota_exceeded), per Tenant:
- a row on the environment dashboard: each tenant's admitted agentic requests as a percentage of its
  guaranteed share, what was borrowed, degraded and refused, the account's total against its quota, and
  the table's health (round trips per decision, fallbacks);
- per tenant with a guarantee: an alarm when it stays above `tenant_alarm_percent` of its guarantee for
  `tenant_alarm_minutes` (its share is too small for what it does: raise it, or the account's quota);
- for the account: an alarm when all tenants together stay above `account_alarm_percent` of the quota for
  `account_alarm_minutes` (borrowing is about to stop; over-share requests will be degraded or refused).
Both notify the environment's alarm topic, like the account's Bedrock alarms.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sns as sns
from constructs import Construct

from contract import metric_names as names
from monitoring.alarms import GT, IDLE_IS_FINE, AlarmSpec, create_alarms
from monitoring.dashboard_widgets import GRAPH_WIDTH, ROW_HEIGHT, TEXT_WIDTH, explained_row, graph
from monitoring.metric_catalogue import QUOTA_PERIOD, EndpointMetrics, tenants_sum_per_minute
from schema.quota_config import AccountQuota

QUOTA_ERROR = "tenant_quota_exceeded"
NARROW = (24 - TEXT_WIDTH - GRAPH_WIDTH) // 3  # the row's three smaller graphs beside the first

ROW = """### Fair share of the agentic quota
Each tenant's admitted AgenticRetrieveStream requests per minute as a **% of its guaranteed share**
(above 100%: it borrows idle capacity), what it borrowed, what `auto` answered with Retrieve instead
(degraded) and what was refused (429 `tenant_quota_exceeded`); the account's total against its quota;
the quota table's round trips per decision and the decisions taken without it (fallback).

**Red**: a tenant near its guarantee for long needs a larger share (or the account a larger quota);
the account near its quota stops all borrowing; fallbacks mean the table is unreachable (docs/quota.md)."""


class FairShareMonitoring(Construct):
    """Props:
    - name_prefix: prefix of alarm names, `akb-<env>` (the alarm topic admits exactly those).
    - guaranteed: tenant -> its guaranteed share (requests per minute); 0 means best effort (no alarm).
    - quota: the environment's `quota:` block (the account's quota, the alarm percentages and minutes).
    - dashboard: the environment dashboard the row is added to; default none (alarms only).
    - topic: where the alarms notify (ALARM and OK); default none.
    - runbook_url: appended to every alarm description; default none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name_prefix: str,
        guaranteed: Mapping[str, float],
        quota: AccountQuota,
        dashboard: cloudwatch.Dashboard | None = None,
        topic: sns.ITopic | None = None,
        runbook_url: str | None = None,
    ):
        super().__init__(scope, construct_id)
        self.alarms = {
            **create_alarms(
                self,
                _tenant_specs(guaranteed, quota),
                name_prefix=name_prefix,
                evaluation_periods=quota.tenant_alarm_minutes,
                topic=topic,
                runbook_url=runbook_url,
            ),
            **create_alarms(
                self,
                [_account_spec(list(guaranteed), quota)],
                name_prefix=name_prefix,
                evaluation_periods=quota.account_alarm_minutes,
                topic=topic,
                runbook_url=runbook_url,
            ),
        }
        if dashboard is not None:
            dashboard.add_widgets(explained_row(ROW, _widgets(guaranteed, quota)))
            dashboard.add_widgets(
                cloudwatch.AlarmStatusWidget(
                    title="Fair-share alarms", alarms=list(self.alarms.values()), width=24, height=ROW_HEIGHT // 2
                )
            )


def _admitted(tenant: str) -> cloudwatch.Metric:
    return EndpointMetrics(tenant).metric(names.QUOTA_ADMITTED, period=QUOTA_PERIOD, label=f"{tenant} admitted")


def _tenant_specs(guaranteed: Mapping[str, float], quota: AccountQuota) -> list[AlarmSpec]:
    percent = quota.tenant_alarm_percent
    return [
        AlarmSpec(
            f"{tenant}-quota-share",
            _admitted(tenant),
            share * percent / 100,
            GT,
            f"Tenant {tenant} ran above {percent:g}% of its guaranteed {share:g} agentic requests per minute for "
            f"{quota.tenant_alarm_minutes} minutes: its share is too small for its traffic. Raise its "
            "quota.guaranteed_requests_per_minute (or the account's quota), or find what grew (docs/quota.md).",
            IDLE_IS_FINE,
        )
        for tenant, share in guaranteed.items()
        if share > 0
    ]


def _account_spec(tenants: list[str], quota: AccountQuota) -> AlarmSpec:
    account, percent = quota.agentic_requests_per_minute, quota.account_alarm_percent
    return AlarmSpec(
        "fair-share-account",
        tenants_sum_per_minute(tenants, names.QUOTA_ADMITTED, "admitted agentic requests / minute (all tenants)"),
        account * percent / 100,
        GT,
        f"All tenants together were admitted more than {percent:g}% of the account's {account} agentic requests "
        f"per minute for {quota.account_alarm_minutes} minutes: borrowing is about to stop, and requests beyond "
        "a tenant's guarantee will be degraded or refused. Raise the quota in Service Quotas (docs/operations.md).",
        IDLE_IS_FINE,
    )


def _widgets(guaranteed: Mapping[str, float], quota: AccountQuota) -> list[cloudwatch.IWidget]:
    shares = {tenant: share for tenant, share in guaranteed.items() if share > 0}
    percent = [  # one id per tenant: metrics sharing a graph must not share an id
        cloudwatch.MathExpression(
            expression=f"100 * FILL(a{index}, 0) / {share:g}",
            using_metrics={f"a{index}": _admitted(tenant)},
            label=f"{tenant} (% of {share:g}/min)",
            period=QUOTA_PERIOD,
        )
        for index, (tenant, share) in enumerate(shares.items())
    ]
    over_share = [
        EndpointMetrics(tenant).metric(name, period=QUOTA_PERIOD, label=f"{tenant} {word}")
        for tenant in guaranteed
        for name, word in ((names.QUOTA_BORROWED, "borrowed"), (names.QUOTA_DEGRADED, "degraded"))
    ] + [
        EndpointMetrics(tenant).metric(
            names.ERRORS, error_code=QUOTA_ERROR, period=QUOTA_PERIOD, label=f"{tenant} refused"
        )
        for tenant in guaranteed
    ]
    health = [
        m
        for tenant in guaranteed
        for m in (
            EndpointMetrics(tenant).metric(
                names.QUOTA_ROUND_TRIPS,
                statistic="Average",
                period=QUOTA_PERIOD,
                label=f"{tenant} round trips / decision",
            ),
            EndpointMetrics(tenant).metric(names.QUOTA_FALLBACK, period=QUOTA_PERIOD, label=f"{tenant} fallbacks"),
        )
    ]
    total = tenants_sum_per_minute(list(guaranteed), names.QUOTA_ADMITTED, "admitted / minute (all tenants)")
    account = quota.agentic_requests_per_minute
    return [
        graph(
            "Admitted, % of guaranteed share",
            percent,
            lines=[("alarm", quota.tenant_alarm_percent)],
            period=QUOTA_PERIOD,
        ),
        graph("Borrowed, degraded, refused / minute", over_share, period=QUOTA_PERIOD, width=NARROW),
        graph(
            "Account: admitted / minute",
            [total],
            lines=[("quota", account), ("alarm", account * quota.account_alarm_percent / 100)],
            period=QUOTA_PERIOD,
            width=NARROW,
        ),
        graph("Quota table: round trips, fallbacks", health, period=QUOTA_PERIOD, width=NARROW),
    ]
