"""Reads dashboards and alarms back out of a synthesized template, the way CloudWatch will see them.

Dashboard bodies are `Fn::Join`s (the region and function names are tokens): `render` substitutes
each intrinsic with a placeholder string so the body can be `json.loads`-ed and inspected.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

SEARCH_SCHEMA = re.compile(r"SEARCH\('\{(?P<schema>[^}]*)\}(?P<terms>[^']*)'")


@dataclass(frozen=True)
class MetricUse:
    """One metric a dashboard widget or an alarm reads."""

    namespace: str
    name: str
    dimensions: dict[str, str] = field(hash=False)
    stat: str | None
    period: int | None = None
    where: str = ""

    @property
    def dimension_names(self) -> tuple[str, ...]:
        """The dimension names in metric_names.py's order (Tenant first): CloudWatch ignores their order, and
        CDK writes a dashboard's dimensions sorted by name."""
        return tuple(sorted(self.dimensions, key=lambda name: (name != "Tenant", name)))


def render(value: Any) -> str:
    """An intrinsic-bearing value as a plain string (Ref -> `<ref:X>`, GetAtt -> `<att:X.Y>`, ...)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((key, arg),) = value.items()
        if key == "Fn::Join":
            separator, parts = arg
            return separator.join(render(part) for part in parts)
        if key == "Ref":
            return f"<ref:{arg}>"
        if key == "Fn::GetAtt":
            return f"<att:{'.'.join(arg) if isinstance(arg, list) else arg}>"
        if key == "Fn::ImportValue":
            return f"<import:{render(arg)}>"
    raise AssertionError(f"unexpected value in a dashboard body: {value!r}")


def dashboards(template: dict) -> dict[str, dict]:
    """Logical id -> the parsed dashboard body (fails the test if a body is not valid JSON)."""
    return {
        logical_id: json.loads(render(resource["Properties"]["DashboardBody"]))
        for logical_id, resource in template.get("Resources", {}).items()
        if resource["Type"] == "AWS::CloudWatch::Dashboard"
    }


def alarms(template: dict) -> dict[str, dict]:
    return {
        logical_id: resource["Properties"]
        for logical_id, resource in template.get("Resources", {}).items()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
    }


def widget_metrics(widget: dict) -> tuple[list[MetricUse], list[str]]:
    """(metrics, math/search expressions) one dashboard widget reads."""
    uses, expressions = [], []
    properties = widget.get("properties", {})
    title = properties.get("title", widget["type"])
    for row in properties.get("metrics", []):
        options = row[-1] if row and isinstance(row[-1], dict) else {}
        if "expression" in options and len(row) == 1:
            expressions.append(options["expression"])
            continue
        plain = [item for item in row if not isinstance(item, dict)]
        namespace, name, *pairs = plain
        assert "." not in (namespace, name), f"shorthand rows are not expected: {row}"
        dims = {render(pairs[i]): render(pairs[i + 1]) for i in range(0, len(pairs), 2)}
        # CloudWatch dashboards default to Average; CDK leaves that default out of the body.
        stat = options.get("stat", properties.get("stat", "Average"))
        uses.append(MetricUse(namespace, name, dims, stat, options.get("period", properties.get("period")), title))
    return uses, expressions


def dashboard_metrics(body: dict) -> tuple[list[MetricUse], list[str]]:
    uses, expressions = [], []
    for widget in body["widgets"]:
        widget_uses, widget_expressions = widget_metrics(widget)
        uses += widget_uses
        expressions += widget_expressions
    return uses, expressions


def alarm_metrics(properties: dict) -> tuple[list[MetricUse], list[str]]:
    """(metrics, expressions) one alarm reads (single-metric or metric-math form)."""
    name = properties.get("AlarmName", "")
    if "MetricName" in properties:
        dims = {d["Name"]: render(d["Value"]) for d in properties.get("Dimensions", [])}
        stat = properties.get("Statistic") or properties.get("ExtendedStatistic")
        return [
            MetricUse(properties["Namespace"], properties["MetricName"], dims, stat, properties.get("Period"), name)
        ], []
    uses, expressions = [], []
    for query in properties["Metrics"]:
        if "Expression" in query:
            expressions.append(query["Expression"])
            continue
        stat = query["MetricStat"]
        metric = stat["Metric"]
        dims = {d["Name"]: render(d["Value"]) for d in metric.get("Dimensions", [])}
        uses.append(MetricUse(metric["Namespace"], metric["MetricName"], dims, stat["Stat"], stat["Period"], name))
    return uses, expressions


def search_uses(expression: str) -> list[tuple[str, tuple[str, ...], str | None]]:
    """`SEARCH('{Ns,Dim1,Dim2} MetricName="X" ...')` -> [(namespace, (dims...), metric name)]."""
    found = []
    for match in SEARCH_SCHEMA.finditer(expression):
        namespace, *dims = [part.strip() for part in match["schema"].split(",")]
        name = re.search(r'MetricName="([^"]+)"', match["terms"])
        found.append((namespace, tuple(dims), name[1] if name else None))
    return found
