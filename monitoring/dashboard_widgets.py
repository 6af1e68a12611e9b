"""Dashboard building blocks shared by the tenant and environment dashboards (same sizes, same look)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from constructs import Construct

ROW_HEIGHT = 6
TEXT_WIDTH = 6
GRAPH_WIDTH = 6


def graph(
    title: str,
    metrics: Sequence[cloudwatch.IMetric],
    *,
    lines: Sequence[tuple[str, float]] = (),
    period: Duration | None = None,
    width: int = GRAPH_WIDTH,
) -> cloudwatch.GraphWidget:
    """A line graph; `lines` are (label, value) horizontal lines, e.g. an alarm's threshold."""
    annotations = [
        cloudwatch.HorizontalAnnotation(label=label, value=value, color=cloudwatch.Color.RED) for label, value in lines
    ]
    return cloudwatch.GraphWidget(
        title=title,
        left=list(metrics),
        left_annotations=annotations or None,
        width=width,
        height=ROW_HEIGHT,
        period=period,
    )


def explained_row(text: str, widgets: Sequence[cloudwatch.IWidget]) -> cloudwatch.IWidget:
    """A row that starts with what it shows and what to do when it turns red."""
    explanation = cloudwatch.TextWidget(markdown=text, width=TEXT_WIDTH, height=ROW_HEIGHT)
    return row_widget(cloudwatch.Row(explanation, *widgets))


def row_widget(row: cloudwatch.Row) -> cloudwatch.IWidget:
    """A Row is an IWidget (jsii implements it), but the Python bindings leave out IWidget's optional
    `warnings`/`warnings_v2` members, so a static protocol check cannot see it: say it once, here."""
    return cast(cloudwatch.IWidget, row)


def titled_dashboard(scope: Construct, dashboard_name: str, heading_markdown: str) -> cloudwatch.Dashboard:
    """A dashboard over the last 3 hours whose first row says what it shows and where alarms are explained."""
    dashboard = cloudwatch.Dashboard(
        scope,
        "Dashboard",
        dashboard_name=dashboard_name,
        default_interval=Duration.hours(3),
        period_override=cloudwatch.PeriodOverride.AUTO,
    )
    dashboard.add_widgets(
        cloudwatch.TextWidget(
            markdown=f"{heading_markdown} What each alarm means: docs/operations.md.", width=24, height=2
        )
    )
    return dashboard
