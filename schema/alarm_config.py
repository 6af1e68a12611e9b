"""Alarm thresholds: set per environment, overridable per tenant, resolved in one place.

`environments/<env>.yaml` `alarms:` holds who is notified, the evaluation window and every
threshold (each with a documented default). `tenants/<tenant>.yaml` may carry an `alarms:` with
the same threshold fields, all optional: a tenant's value wins over the environment's.
`tenant_thresholds` and `account_thresholds` are what the stacks read, so the
defaulting rules below live here and nowhere else.

Alarm semantics: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/AlarmThatSendsEmail.html
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from schema.common import StrictModel

if TYPE_CHECKING:
    from schema.environment import Environment
    from schema.tenant import Tenant

# AWS (docs/facts-and-decisions.md): "use 3 for one knowledge base and 4-5 for several knowledge bases or comparative
# questions". The lower end (4) is what "expected" means here: an average at or above it is a
# blow-up, not a comparative question now and then.
EXPECTED_ITERATIONS_ONE_KB = 3
EXPECTED_ITERATIONS_SEVERAL_KBS = 4


def _email(value: str) -> str:
    if "@" not in value or value.startswith("@") or value.endswith("@") or " " in value:
        raise ValueError(f"'{value}' is not an e-mail address")
    return value


Email = Annotated[str, AfterValidator(_email)]

# Descriptions shared by the environment's fields (with defaults) and the tenant's (all optional).
_ITERATIONS_AVERAGE_HELP = (
    "Alarm when the tenant's average iterations per request is at or above this. Default: the "
    "environment's value, else min(max_agent_iteration, 3 for one knowledge base / 4 for several) (AWS guidance)."
)
_ERROR_RATE_HELP = "Alarm when Errors / Requests (percent, per period) is above this."
_TTFE_HELP = "Alarm when the p95 time to first event (ms) is above this."
_DEADLINE_HELP = "Alarm when more requests than this stop at the deadline in one period."
_FUNCTION_ERRORS_HELP = "Alarm when the endpoint function reports more errors than this in one period."
_FUNCTION_THROTTLES_HELP = (
    "Alarm when more invocations than this are throttled in one period (reserved concurrency exhausted)."
)


class TenantAlarms(StrictModel):
    """A tenant's overrides of the environment's thresholds; every field optional (unset = environment)."""

    iterations_average: float | None = Field(None, gt=0, le=10, description=_ITERATIONS_AVERAGE_HELP)
    error_rate_percent: float | None = Field(None, gt=0, le=100, description=_ERROR_RATE_HELP)
    time_to_first_event_p95_ms: int | None = Field(None, ge=100, le=900_000, description=_TTFE_HELP)
    deadline_stops: int | None = Field(None, ge=0, description=_DEADLINE_HELP)
    function_errors: int | None = Field(None, ge=0, description=_FUNCTION_ERRORS_HELP)
    function_throttles: int | None = Field(None, ge=0, description=_FUNCTION_THROTTLES_HELP)


class Alarms(StrictModel):
    """Who is told when an alarm fires, how long a breach must last, and every threshold."""

    emails: list[Email] = Field(
        default_factory=list, description="E-mail subscriptions of the environment's alarm topic."
    )
    period_minutes: int = Field(
        5, ge=1, le=60, description="Length of one evaluation period, in minutes (the quota alarm always uses 1)."
    )
    evaluation_periods: int = Field(
        3,
        ge=1,
        le=24,
        description="Consecutive breaching periods before an alarm fires (the N in 'for N periods').",
    )
    iterations_average: float | None = Field(
        None,
        gt=0,
        le=10,
        description="Alarm when the average iterations per request is at or above this: the account's "
        "TotalIterationCount and every tenant without its own value. Default: derived per tenant as "
        "min(max_agent_iteration, 3 for one knowledge base / 4 for several) (AWS guidance); the account "
        "alarm uses the highest tenant value.",
    )
    iterations_p90: float | None = Field(
        None,
        gt=0,
        le=10,
        description="Account-level: alarm when p90 TotalIterationCount is at or above this. Default: the "
        "highest max_agent_iteration of the environment's tenants (one request in ten runs to the cap).",
    )
    error_rate_percent: float = Field(5.0, gt=0, le=100, description=_ERROR_RATE_HELP)
    time_to_first_event_p95_ms: int = Field(5000, ge=100, le=900_000, description=_TTFE_HELP)
    deadline_stops: int = Field(0, ge=0, description=_DEADLINE_HELP)
    function_errors: int = Field(0, ge=0, description=_FUNCTION_ERRORS_HELP)
    function_throttles: int = Field(0, ge=0, description=_FUNCTION_THROTTLES_HELP)
    bedrock_throttles: int = Field(
        0,
        ge=0,
        description="Alarm when Bedrock reports more throttles than this per period for "
        "evaluation_periods periods: AgenticRetrieveStream for the whole account (platform stack), and "
        "Retrieve summed over each tenant's knowledge bases (tenant stack; Retrieve metrics exist only "
        "per knowledge base).",
    )
    quota_utilization_percent: float = Field(
        80.0,
        gt=0,
        le=100,
        description="Account-level: alarm when AgenticRetrieveStream calls per minute exceed this "
        "percentage of quota.agentic_requests_per_minute. Calls are the larger of the endpoints' own request count "
        "(all tenants) and Bedrock's Invocations series.",
    )


@dataclass(frozen=True)
class TenantThresholds:
    """What one tenant's alarms compare against, after overrides and derivations."""

    iterations_average: float
    error_rate_percent: float
    time_to_first_event_p95_ms: int
    deadline_stops: int
    function_errors: int
    function_throttles: int
    period_minutes: int
    evaluation_periods: int
    # The environment's `bedrock_throttles`, applied to Retrieve on the tenant's knowledge bases.
    bedrock_throttles: int = 0


@dataclass(frozen=True)
class AccountThresholds:
    """What the environment's account-level (Bedrock) alarms compare against."""

    iterations_average: float
    iterations_p90: float
    bedrock_throttles: int
    quota_per_minute: int
    quota_utilization_percent: float
    period_minutes: int
    evaluation_periods: int

    @property
    def quota_alarm_calls_per_minute(self) -> float:
        return self.quota_per_minute * self.quota_utilization_percent / 100


def expected_iterations(knowledge_bases: int, max_agent_iteration: int) -> int:
    """AWS's recommendation (docs/facts-and-decisions.md) for the tenant's shape, never above the tenant's own cap."""
    seed = EXPECTED_ITERATIONS_ONE_KB if knowledge_bases <= 1 else EXPECTED_ITERATIONS_SEVERAL_KBS
    return max(1, min(seed, max_agent_iteration))


def tenant_thresholds(environment: Environment, tenant: Tenant) -> TenantThresholds:
    """Tenant value, else environment value, else (iterations only) derived from the tenant."""
    env_alarms, override = environment.alarms, tenant.alarms or TenantAlarms()

    def pick(name: str) -> Any:  # the field's own type (float or int); the model validates it
        value = getattr(override, name)
        return getattr(env_alarms, name) if value is None else value

    iterations = pick("iterations_average")
    if iterations is None:
        iterations = float(expected_iterations(len(tenant.knowledge_bases), tenant.retrieval.max_agent_iteration))
    return TenantThresholds(
        iterations_average=iterations,
        error_rate_percent=pick("error_rate_percent"),
        time_to_first_event_p95_ms=pick("time_to_first_event_p95_ms"),
        deadline_stops=pick("deadline_stops"),
        function_errors=pick("function_errors"),
        function_throttles=pick("function_throttles"),
        period_minutes=env_alarms.period_minutes,
        evaluation_periods=env_alarms.evaluation_periods,
        bedrock_throttles=env_alarms.bedrock_throttles,
    )


def account_thresholds(environment: Environment, tenants: Iterable[Tenant]) -> AccountThresholds:
    """The environment's values; iteration thresholds default to the highest of its tenants'."""
    env_alarms = environment.alarms
    shapes = [(len(t.knowledge_bases), t.retrieval.max_agent_iteration) for t in tenants]
    shapes = shapes or [(1, EXPECTED_ITERATIONS_ONE_KB)]
    average = env_alarms.iterations_average
    if average is None:
        average = float(max(expected_iterations(kbs, cap) for kbs, cap in shapes))
    p90 = env_alarms.iterations_p90
    if p90 is None:
        p90 = float(max(max(cap for _, cap in shapes), 1))
    return AccountThresholds(
        iterations_average=average,
        iterations_p90=p90,
        bedrock_throttles=env_alarms.bedrock_throttles,
        quota_per_minute=environment.quota.agentic_requests_per_minute,
        quota_utilization_percent=env_alarms.quota_utilization_percent,
        period_minutes=env_alarms.period_minutes,
        evaluation_periods=env_alarms.evaluation_periods,
    )
