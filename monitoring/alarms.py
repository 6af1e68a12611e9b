"""CloudWatch alarms: one tenant's endpoint alarms (+ a composite for paging) and the account's Bedrock alarms.

Thresholds come from config (`schema/alarm_config.py`: environment values, tenant overrides, documented
defaults). Every alarm states how it treats missing data and why, in its description, because a
metric that is absent can mean "idle" or "broken" and the answer differs per metric.

Paging: a tenant's individual alarms have no actions; the tenant's composite alarm (OR of them)
notifies the environment's topic once per incident, on ALARM and on OK. The account-level Bedrock
alarms notify the topic themselves. Every alarm name starts with the environment's prefix
(`akb-<env>-`): the topic's policy admits exactly those alarm ARNs (monitoring/alarm_topic.py).

Bedrock's Retrieve metrics exist per knowledge base only, so Retrieve throttling is watched in each
tenant's stack, over that tenant's knowledge bases; AgenticRetrieveStream's exist per account only.
https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create_Composite_Alarm.html
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from contract import metric_names as names
from monitoring.metric_catalogue import MAX_ALARM_METRICS, BedrockMetrics, EndpointMetrics, agentic_calls_per_minute
from schema.alarm_config import AccountThresholds, TenantThresholds

GT = cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD
GTE = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD

# Why each alarm reads an absent data point as "not breaching"; kept next to the alarms that use it.
IDLE_IS_FINE = "Missing data is OK (notBreaching): no requests in a period is idle, not broken."
ONLY_ON_SUCCESS = (
    "Missing data is OK (notBreaching): Bedrock publishes TotalIterationCount only for calls that "
    "succeeded, so failures and idle periods leave gaps; failures are watched by the error alarms."
)
ABSENT_MEANS_ZERO = "Missing data is OK (notBreaching): a period without the metric had none of these events."


@dataclass(frozen=True)
class AlarmSpec:
    """One alarm's identity, reading and meaning, before it becomes a construct."""

    key: str  # construct id suffix and alarm name suffix
    metric: cloudwatch.IMetric
    threshold: float
    comparison: cloudwatch.ComparisonOperator
    meaning: str
    missing_data: str


def _runbook_line(runbook_url: str | None) -> str:
    return f"Runbook: {runbook_url}" if runbook_url else ""


def _create_all(
    scope: Construct,
    specs: list[AlarmSpec],
    *,
    name_prefix: str,
    evaluation_periods: int,
    runbook_url: str | None,
) -> dict[str, cloudwatch.Alarm]:
    """One alarm per spec, keyed by the spec's key, each pointing at the runbook when there is one."""
    runbook = _runbook_line(runbook_url)
    return {
        spec.key: _create(scope, spec, name_prefix=name_prefix, evaluation_periods=evaluation_periods, extra=runbook)
        for spec in specs
    }


def _create(
    scope: Construct, spec: AlarmSpec, *, name_prefix: str, evaluation_periods: int, extra: str = ""
) -> cloudwatch.Alarm:
    return cloudwatch.Alarm(
        scope,
        "".join(part.capitalize() for part in spec.key.split("-")),
        alarm_name=f"{name_prefix}-{spec.key}",
        alarm_description=" ".join(part for part in (spec.meaning, spec.missing_data, extra) if part),
        metric=spec.metric,
        threshold=spec.threshold,
        comparison_operator=spec.comparison,
        evaluation_periods=evaluation_periods,
        datapoints_to_alarm=evaluation_periods,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
    )


def create_alarms(
    scope: Construct,
    specs: list[AlarmSpec],
    *,
    name_prefix: str,
    evaluation_periods: int,
    topic: sns.ITopic | None = None,
    runbook_url: str | None = None,
) -> dict[str, cloudwatch.Alarm]:
    """Alarms like the account's (one per spec, every period of `evaluation_periods` breaching), each
    notifying `topic` on ALARM and OK when given: what features that watch the whole environment build."""
    alarms = _create_all(
        scope, specs, name_prefix=name_prefix, evaluation_periods=evaluation_periods, runbook_url=runbook_url
    )
    if topic is not None:
        for alarm in alarms.values():
            alarm.add_alarm_action(actions.SnsAction(topic))
            alarm.add_ok_action(actions.SnsAction(topic))
    return alarms


class EndpointAlarms(Construct):
    """A tenant's alarms on its endpoint's metrics and its function, and one composite alarm for paging.

    Props:
    - function: the endpoint function (any `IFunction`; its AWS/Lambda metrics are read).
    - tenant: the tenant name (the `Tenant` dimension the service emits with).
    - name_prefix: prefix of alarm names, e.g. `akb-dev-acme`.
    - thresholds: resolved thresholds (`schema.alarm_config.tenant_thresholds`).
    - topic: where the composite alarm notifies; default none (alarms still show on dashboards).
    - runbook_url: appended to every description (where to look first); default none.
    - knowledge_base_ids: the tenant's knowledge-base ids (tokens are fine); adds the Retrieve
      throttles alarm over them; default none (no such alarm).
    - extra_alarms: other tenant alarms the composite includes (e.g. ingestion failures); default none.
    - extra_specs: more alarms that join the composite (the tenant features': monitoring/observability_parts.py).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        function: lambda_.IFunction,
        tenant: str,
        name_prefix: str,
        thresholds: TenantThresholds,
        topic: sns.ITopic | None = None,
        runbook_url: str | None = None,
        knowledge_base_ids: Sequence[str] = (),
        extra_alarms: Sequence[cloudwatch.IAlarm] = (),
        extra_specs: Sequence[AlarmSpec] = (),
    ):
        super().__init__(scope, construct_id)
        period = Duration.minutes(thresholds.period_minutes)
        t = thresholds
        specs = [
            *_request_specs(EndpointMetrics(tenant, period=period), t, period),
            *_function_specs(function, t, period),
            *_retrieve_throttles(knowledge_base_ids, t, period),
            *extra_specs,
        ]
        self.alarms = _create_all(
            self, specs, name_prefix=name_prefix, evaluation_periods=t.evaluation_periods, runbook_url=runbook_url
        )
        self.composite = cloudwatch.CompositeAlarm(
            self,
            "Page",
            composite_alarm_name=f"{name_prefix}-page",
            alarm_description=f"Tenant {tenant}: one of its endpoint alarms is in ALARM (see which on the "
            f"tenant dashboard {name_prefix}). {_runbook_line(runbook_url)}".strip(),
            alarm_rule=cloudwatch.AlarmRule.any_of(*self.alarms.values(), *extra_alarms),
        )
        if topic is not None:
            self.composite.add_alarm_action(actions.SnsAction(topic))
            self.composite.add_ok_action(actions.SnsAction(topic))


def _request_specs(metrics: EndpointMetrics, t: TenantThresholds, period: Duration) -> list[AlarmSpec]:
    """The tenant's alarms on what its endpoint emits (EMF): iterations, errors, latency, deadline stops."""
    return [
        AlarmSpec(
            "iterations",
            metrics.metric_iterations("Average"),
            t.iterations_average,
            GTE,
            f"Iteration blow-up: requests average {t.iterations_average:g}+ planner iterations, the "
            "budget expected for this tenant (cost grows with every iteration).",
            IDLE_IS_FINE,
        ),
        AlarmSpec(
            "error-rate",
            metrics.metric_error_rate(period=period),
            t.error_rate_percent,
            GT,
            f"More than {t.error_rate_percent:g}% of requests ended with an error.",
            IDLE_IS_FINE,
        ),
        AlarmSpec(
            "time-to-first-event-p95",
            metrics.metric_time_to_first_event("p95"),
            t.time_to_first_event_p95_ms,
            GT,
            f"p95 time to first event is above {t.time_to_first_event_p95_ms} ms: callers wait before "
            "anything streams.",
            IDLE_IS_FINE,
        ),
        AlarmSpec(
            "deadline-stops",
            metrics.metric_deadline_stops(),
            t.deadline_stops,
            GT,
            f"More than {t.deadline_stops} requests per period were cut off at the request deadline.",
            ABSENT_MEANS_ZERO,
        ),
    ]


def _function_specs(function: lambda_.IFunction, t: TenantThresholds, period: Duration) -> list[AlarmSpec]:
    """The tenant's alarms on its function's own Lambda metrics (failures before any EMF is written)."""
    return [
        AlarmSpec(
            "function-errors",
            function.metric_errors(period=period, statistic="Sum"),
            t.function_errors,
            GT,
            f"The endpoint function failed (crash, timeout, out of memory) more than {t.function_errors} "
            "times per period.",
            IDLE_IS_FINE,
        ),
        AlarmSpec(
            "function-throttles",
            function.metric_throttles(period=period, statistic="Sum"),
            t.function_throttles,
            GT,
            f"More than {t.function_throttles} invocations per period were throttled: the function's "
            "reserved concurrency is exhausted and callers get 429s.",
            IDLE_IS_FINE,
        ),
    ]


def _retrieve_throttles(knowledge_base_ids: Sequence[str], t: TenantThresholds, period: Duration) -> list[AlarmSpec]:
    """Bedrock's Retrieve Throttles summed over the tenant's knowledge bases (the only Retrieve series)."""
    if not knowledge_base_ids:
        return []
    throttles = BedrockMetrics(period=period).metric_retrieve_sum(
        names.BEDROCK_THROTTLES, knowledge_base_ids, label="Retrieve throttles (this tenant's knowledge bases)"
    )
    return [
        AlarmSpec(
            "retrieve-throttles",
            throttles,
            t.bedrock_throttles,
            GT,
            f"Bedrock throttled more than {t.bedrock_throttles} Retrieve calls per period on this tenant's "
            f"knowledge bases for {t.evaluation_periods} periods in a row (Retrieve's quota is per knowledge base).",
            ABSENT_MEANS_ZERO,
        )
    ]


def _iterations(metrics: BedrockMetrics, tenants: Sequence[str], statistic: str) -> cloudwatch.MathExpression:
    """TotalIterationCount under every candidate Operation, with the endpoints' own Iterations while the
    alarm's 10 series allow (each tenant's own iterations alarm covers the rest)."""
    room = MAX_ALARM_METRICS - len(names.BEDROCK_CANDIDATE_OPERATIONS)
    own = [EndpointMetrics(tenant, period=metrics.period).metric_iterations(statistic) for tenant in tenants[:room]]
    return metrics.candidates(
        names.BEDROCK_TOTAL_ITERATION_COUNT, statistic=statistic, label=f"iterations {statistic}", also=own
    )


def _account_specs(t: AccountThresholds, tenants: Sequence[str]) -> list[AlarmSpec]:
    """The account alarms: iterations, throttles (every candidate series, fact 6) and the quota."""
    metrics = BedrockMetrics(period=Duration.minutes(t.period_minutes))
    return [
        AlarmSpec(
            "total-iterations-average",
            _iterations(metrics, tenants, "Average"),
            t.iterations_average,
            GTE,
            f"Account-wide AgenticRetrieveStream calls average {t.iterations_average:g}+ iterations "
            "(iteration blow-ups are cost blow-ups). Reads TotalIterationCount under every Operation "
            "Bedrock may use and the endpoints' own Iterations (fact 6).",
            ONLY_ON_SUCCESS,
        ),
        AlarmSpec(
            "total-iterations-p90",
            _iterations(metrics, tenants, "p90"),
            t.iterations_p90,
            GTE,
            f"One AgenticRetrieveStream call in ten runs {t.iterations_p90:g}+ iterations.",
            ONLY_ON_SUCCESS,
        ),
        AlarmSpec(
            "agentic-throttles",
            metrics.candidates(
                names.BEDROCK_THROTTLES, statistic="Sum", label="Bedrock throttles", absent_is_zero=True
            ),
            t.bedrock_throttles,
            GT,
            f"Bedrock throttled more than {t.bedrock_throttles} calls per period for "
            f"{t.evaluation_periods} periods in a row (the account's quota; see agentic-quota). Reads "
            "Throttles under every Operation Bedrock may use (fact 6).",
            ABSENT_MEANS_ZERO,
        ),
        AlarmSpec(
            "agentic-quota",
            agentic_calls_per_minute(tenants) if tenants else metrics.metric_agentic_calls_per_minute(),
            t.quota_alarm_calls_per_minute,
            GT,
            f"AgenticRetrieveStream calls exceed {t.quota_utilization_percent:g}% of the account's "
            f"quota ({t.quota_per_minute}/min): throttling is next. Raise the quota or slow callers down. "
            "Calls = the larger of the endpoints' own request count (all tenants) and Bedrock's "
            "Invocations series, so the alarm works even where Bedrock publishes no agentic series.",
            IDLE_IS_FINE,
        ),
    ]


class BedrockAccountAlarms(Construct):
    """The account's Bedrock knowledge-base alarms (per account and region: no tenant dimension exists).

    Props:
    - name_prefix: prefix of alarm names, e.g. `akb-dev`.
    - thresholds: resolved thresholds (`schema.alarm_config.account_thresholds`).
    - tenants: the environment's tenant names; the quota alarm sums their endpoints' requests.
    - topic: where every alarm notifies (ALARM and OK); default none.
    - runbook_url: appended to every description; default none.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        name_prefix: str,
        thresholds: AccountThresholds,
        tenants: Sequence[str],
        topic: sns.ITopic | None = None,
        runbook_url: str | None = None,
    ):
        super().__init__(scope, construct_id)
        t = thresholds
        self.alarms = create_alarms(
            self,
            _account_specs(t, tenants),
            name_prefix=name_prefix,
            evaluation_periods=t.evaluation_periods,
            topic=topic,
            runbook_url=runbook_url,
        )
