"""The quality gate on the tenant's dashboard and in its composite alarm (docs/evaluation.md, The quality gate).

Reads the figures each gate run puts (client/evaluation/gate_metrics.py): namespace `AgenticRetrieval/QualityGate`,
dimensions Environment, Tenant, Mode. Per checked mode, one alarm per configured minimum (Recall5, MRR,
CompleteRate below its threshold: a drop) and one on `GateFailed` (any regression, the baseline's included).
Runs are sparse (a promotion, or the schedule): each alarm reads one period as long as the schedule's interval
(a day without one), one datapoint decides, and a period without a run is not breaching. The alarms have no
actions: they join the tenant's composite, which pages. A contribution of the quality feature
(features/quality_feature.py), built as a Monitor under the tenant's observability construct.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from contract import metric_names as names
from monitoring.dashboard_widgets import graph
from monitoring.observability_parts import Contribution, DashboardRow, Monitor, MonitorScope, PagedAlarms
from schema.quality_config import Quality

QUALITY = """### Quality gate
The figures of each quality-gate run (a promotion through the pipeline, or the schedule): Recall@5, MRR,
complete rate and cost per question per checked mode, against the tenant's thresholds (docs/evaluation.md).

**Red**: a run fell below a threshold or regressed against the last promoted baseline: open the run's report
(`gate.md`: the pipeline's artifact, or the scheduled build's log) to see which figure and question."""

MetricOf = Callable[[str, str, str], cloudwatch.Metric]  # (metric name, mode, statistic) -> the gate's series
LT = cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD
GTE = cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD


def quality_contributions(env_name: str, tenant: str, quality: Quality, period_seconds: int) -> list[Contribution]:
    """A Monitor's result: the alarms (into the composite) and the dashboard row."""

    def metric(name: str, mode: str, statistic: str) -> cloudwatch.Metric:
        return cloudwatch.Metric(
            namespace=names.QUALITY_NAMESPACE,
            metric_name=name,
            dimensions_map={
                names.QUALITY_ENVIRONMENT_DIMENSION: env_name,
                names.TENANT_DIMENSION: tenant,
                names.QUALITY_MODE_DIMENSION: mode,
            },
            statistic=statistic,
            period=Duration.seconds(period_seconds),
            label=f"{name} ({mode})",
        )

    def build(scope: MonitorScope) -> Sequence[Contribution]:
        holder = Construct(scope.scope, "Quality")
        alarms = [alarm for mode in quality.modes for alarm in _mode_alarms(holder, scope.name, mode, quality, metric)]
        widgets = [
            graph(
                label,
                [metric(name, mode, "Minimum") for mode in quality.modes],
                lines=[("threshold", bound)] if bound is not None else [],
            )
            for name, label, bound in _minimums(quality)
        ]
        widgets.append(
            graph(
                "Cost per question (USD)",
                [metric(names.QUALITY_COST_PER_QUESTION, m, "Maximum") for m in quality.modes],
            )
        )
        return [PagedAlarms(alarms), DashboardRow(QUALITY, lambda _thresholds: widgets)]

    return [Monitor(build)]


def _minimums(quality: Quality) -> list[tuple[str, str, float | None]]:
    t = quality.thresholds
    return [
        (names.QUALITY_RECALL_AT_5, "Recall@5", t.min_recall_at_5),
        (names.QUALITY_MRR, "MRR", t.min_mrr),
        (names.QUALITY_COMPLETE_RATE, "Complete rate", t.min_complete_rate),
    ]


def _mode_alarms(
    scope: Construct, prefix: str, mode: str, quality: Quality, metric: MetricOf
) -> list[cloudwatch.Alarm]:
    """A drop below each configured minimum, and any failed run, for one mode."""
    alarms = [
        _alarm(
            scope,
            f"{prefix}-quality-{name.lower()}-{mode}",
            metric(name, mode, "Minimum"),
            bound,
            LT,
            f"The quality gate measured {label} below {bound} for mode {mode} (docs/evaluation.md).",
        )
        for name, label, bound in _minimums(quality)
        if bound is not None
    ]
    alarms.append(
        _alarm(
            scope,
            f"{prefix}-quality-failed-{mode}",
            metric(names.QUALITY_GATE_FAILED, mode, "Maximum"),
            1,
            GTE,
            f"A quality-gate run failed for mode {mode}: a threshold, a regression against the baseline, or a "
            "failed request (the run's gate.md names it).",
        )
    )
    return alarms


def _alarm(
    scope: Construct,
    name: str,
    metric: cloudwatch.Metric,
    threshold: float,
    comparison: cloudwatch.ComparisonOperator,
    description: str,
) -> cloudwatch.Alarm:
    # A literal name under the tenant's prefix: the alarm topic admits CloudWatch by alarm ARN.
    return metric.create_alarm(
        scope,
        name.rsplit("-quality-", 1)[1].title().replace("-", ""),
        alarm_name=name,
        threshold=threshold,
        evaluation_periods=1,
        comparison_operator=comparison,
        treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,  # no run in a period is not a drop
        alarm_description=description,
    )
