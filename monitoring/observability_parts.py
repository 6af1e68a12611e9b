"""What a tenant feature contributes to the tenant's monitoring: small typed objects, not keyword arguments.

`TenantObservability` (monitoring/tenant_observability.py) takes the endpoint's own props and a list of
these, in registry order (features/registry.py):

- `AlarmSpecs`: alarms it creates like its own (name prefix, runbook, evaluation periods); they join
  the composite alarm that pages.
- `PagedAlarms`: alarms built elsewhere, without actions (the agent function's); they join the
  composite and the dashboard's alarm widget.
- `DashboardRow`: one explained row; `placement` says where (after the function row, or at the end).
- `Monitor`: constructs of the feature's own under the observability construct (metric filters, saved
  queries, alarms); built first, it returns more contributions (its alarms, its row).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

from monitoring.alarms import AlarmSpec
from schema.alarm_config import TenantThresholds

# Where a row goes: `usage` right after the endpoint function's row (what the endpoint itself does, like the
# cache), `end` after the guardrail and alarms row (what sits beside the endpoint).
RowPlacement = Literal["usage", "end"]


@dataclass(frozen=True)
class MonitorScope:
    """What a `Monitor` builds with: the observability construct, the alarm-name prefix, the Logs Insights
    folder and the tenant's thresholds."""

    scope: Construct
    name: str
    query_folder: str
    thresholds: TenantThresholds


@dataclass(frozen=True)
class AlarmSpecs:
    specs: Callable[[TenantThresholds], Sequence[AlarmSpec]]


@dataclass(frozen=True)
class PagedAlarms:
    alarms: Sequence[cloudwatch.IAlarm]


@dataclass(frozen=True)
class DashboardRow:
    text: str  # markdown: what the row shows and what to do when it turns red
    widgets: Callable[[TenantThresholds], Sequence[cloudwatch.IWidget]]
    placement: RowPlacement = "end"


@dataclass(frozen=True)
class Monitor:
    # Builds its construct under `MonitorScope.scope` with an id of its own (its resources' logical ids).
    build: Callable[[MonitorScope], Sequence[Contribution]]


Contribution = AlarmSpecs | PagedAlarms | DashboardRow | Monitor


@dataclass(frozen=True)
class Contributions:
    """The contributions sorted by kind, monitors built (their own contributions included, in place)."""

    specs: list[AlarmSpec]
    paged: list[cloudwatch.IAlarm]
    rows: list[DashboardRow]

    @classmethod
    def expand(cls, contributions: Sequence[Contribution], monitor_scope: MonitorScope) -> Contributions:
        flat = _built(contributions, monitor_scope)
        thresholds = monitor_scope.thresholds
        return cls(
            specs=[spec for part in flat if isinstance(part, AlarmSpecs) for spec in part.specs(thresholds)],
            paged=[alarm for part in flat if isinstance(part, PagedAlarms) for alarm in part.alarms],
            rows=[part for part in flat if isinstance(part, DashboardRow)],
        )


def _built(contributions: Sequence[Contribution], monitor_scope: MonitorScope) -> list[Contribution]:
    """Each monitor replaced by what it returns, in place (a monitor may return monitors)."""
    flat: list[Contribution] = []
    for part in contributions:
        flat.extend(_built(part.build(monitor_scope), monitor_scope) if isinstance(part, Monitor) else [part])
    return flat
