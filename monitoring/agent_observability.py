"""The agent's action-group function on a dashboard of its own, with alarms that join the tenant's composite.

Metrics are Lambda's (AWS/Lambda Invocations, Errors, Throttles, Duration by FunctionName), read
through aws-cdk-lib's `Function.metric_*`. The handler answers failures with a FAILURE response
rather than raising, so Errors counts crashes and timeouts only; a timeout is what Duration near
the function's timeout warns of. The alarms have no actions of their own: the tenant's composite
alarm (monitoring/alarms.py) includes them and pages, one page per tenant like every other alarm.
What to do when one fires: docs/operations.md (agent section).
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from monitoring.dashboard_widgets import explained_row, graph, titled_dashboard

PERIOD = Duration.minutes(5)
DURATION_ALARM_SHARE = 0.8  # p99 above 80% of the timeout: the next slow search times out


class AgentObservability(Construct):
    """Dashboard `<name>-agent` and three alarms (errors, throttles, duration near the timeout).

    Props:
    - function: the agent's action-group function (its AWS/Lambda metrics are read).
    - timeout_seconds: the function's timeout (`agent.timeout_seconds`); the duration alarm fires at 80% of it.
    - name: the tenant's prefix, e.g. `akb-dev-globex`: the dashboard is `<name>-agent`, alarms `<name>-agent-*`.
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, function: lambda_.IFunction, timeout_seconds: int, name: str
    ):
        super().__init__(scope, construct_id)
        timeout_ms = timeout_seconds * 1000
        errors = function.metric_errors(period=PERIOD, statistic="Sum")
        throttles = function.metric_throttles(period=PERIOD, statistic="Sum")
        duration = function.metric_duration(period=PERIOD, statistic="p99")
        self.alarms = [
            self._alarm(name, "Errors", errors, 1, "The agent's search_knowledge function crashed or timed out"),
            self._alarm(name, "Throttles", throttles, 1, "Lambda throttled the agent's search_knowledge function"),
            self._alarm(
                name,
                "Duration",
                duration,
                timeout_ms * DURATION_ALARM_SHARE,
                "search_knowledge p99 duration is near the function's timeout",
            ),
        ]
        dashboard = titled_dashboard(
            self, f"{name}-agent", f"**Agent action group** of `{name}`: the search_knowledge function."
        )
        dashboard.add_widgets(
            explained_row(
                "Invocations and failures of search_knowledge. Errors are crashes and timeouts (refusals "
                "are FAILURE responses, logged, not errors).",
                [
                    graph("Invocations", [function.metric_invocations(period=PERIOD, statistic="Sum")]),
                    graph("Errors", [errors], lines=[("alarm", 1)]),
                    graph("Throttles", [throttles], lines=[("alarm", 1)]),
                ],
            ),
            explained_row(
                "Duration against the timeout: agentic retrieval runs inside the agent's turn.",
                [graph("Duration p99 (ms)", [duration], lines=[("timeout", timeout_ms)])],
            ),
        )

    def _alarm(
        self,
        name: str,
        metric_name: str,
        metric: cloudwatch.Metric,
        threshold: float,
        description: str,
    ) -> cloudwatch.Alarm:
        # A literal name under the tenant's prefix: the alarm topic admits CloudWatch by alarm ARN.
        alarm = metric.create_alarm(
            self,
            f"{metric_name}Alarm",
            alarm_name=f"{name}-agent-{metric_name.lower()}",
            threshold=threshold,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
            alarm_description=description,
        )
        return alarm
