"""The gate's figures to CloudWatch, per environment, tenant and mode, where the tenant's quality alarms read them.

One PutMetricData call per run into the gate's own namespace (contract/metric_names.py: the role may publish
there only, by the `cloudwatch:namespace` condition); dimensions Environment, Tenant, Mode. `GateFailed` (0 or 1)
is put once per mode too, so a run that failed only against its baseline is visible beside the figures.
monitoring/quality_monitoring.py builds the alarms and the dashboard row over exactly these series.
"""

from __future__ import annotations

from typing import Any

from client.evaluation.gate import GateResult
from contract import metric_names as names

UNITS = {names.QUALITY_ANSWER_P95_SECONDS: "Seconds"}


def metric_data(result: GateResult, env_name: str, tenant: str) -> list[dict[str, Any]]:
    """The MetricData of one run: every measured figure of every checked mode, and GateFailed per mode."""
    data: list[dict[str, Any]] = []
    failed_modes = {check.mode for check in result.checks if not check.passed} | {
        mode for mode, count in result.errors.items() if count
    }

    def dimensions(mode: str) -> list[dict[str, str]]:
        values = {
            names.QUALITY_ENVIRONMENT_DIMENSION: env_name,
            names.TENANT_DIMENSION: tenant,
            names.QUALITY_MODE_DIMENSION: mode,
        }
        return [{"Name": name, "Value": values[name]} for name in names.QUALITY_DIMENSIONS]

    for check in result.checks:
        if check.value is not None:
            data.append(
                {
                    "MetricName": check.figure,
                    "Dimensions": dimensions(check.mode),
                    "Value": float(check.value),
                    "Unit": UNITS.get(check.figure, "None"),
                }
            )
    for mode in result.errors:
        data.append(
            {
                "MetricName": names.QUALITY_GATE_FAILED,
                "Dimensions": dimensions(mode),
                "Value": 1.0 if mode in failed_modes else 0.0,
                "Unit": "Count",
            }
        )
    return data


def put_figures(cloudwatch_client: Any, result: GateResult, env_name: str, tenant: str) -> str | None:
    """Puts the run's figures; returns None, or why they could not be put (the verdict does not depend on it)."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        cloudwatch_client.put_metric_data(
            Namespace=names.QUALITY_NAMESPACE, MetricData=metric_data(result, env_name, tenant)
        )
    except ClientError as error:
        return f"PutMetricData failed: {error.response.get('Error', {}).get('Code') or 'ClientError'}"
    except BotoCoreError as error:
        return f"PutMetricData failed: {type(error).__name__}"
    return None
