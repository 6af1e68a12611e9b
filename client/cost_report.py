"""`akb cost`: what each tenant cost over a time window, estimated from CloudWatch (GetMetricData).

Per tenant, from one GetMetricData call (one period spanning the whole window):
- requests, planner iterations and the endpoint's own `EstimatedCostUSD` (contract/metric_names.py):
  agentic calls plus their underlying Retrieve calls, counted by the proxy the ledger names
  (iterations, the endpoint's stand-in for Bedrock's TotalIterationCount) at the environment's `pricing`;
- index storage from Bedrock's RawDataSize (GB, average over the window) of the tenant's knowledge
  bases, whose ids come from the SSM parameters the tenant stack publishes;
- Lambda from the endpoint function's Duration x memory, plus its Invocations;
- cache savings when the tenant's cache is on: hits x the average estimated cost of a request that
  was not a hit.
It leaves out (docs/operations.md): a CUSTOM planner model's own token charges, guardrail charges,
CloudWatch, S3, DynamoDB, data transfer, free tiers and tiered or negotiated prices.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from contract import metric_names as names
from contract import resource_names as naming
from schema import Project

_SINCE = re.compile(r"^(\d{1,4})([hdw])$")
_UNIT_SECONDS = {"h": 3600, "d": 86400, "w": 7 * 86400}
# CloudWatch keeps data points of period >= 1 hour for 455 days (GetMetricData, "retention").
MAX_WINDOW_SECONDS = 455 * 86400
MONTH_DAYS = 30.0


class CostError(Exception):
    """Something the user can fix; `str()` says what."""


def parse_since(text: str) -> int:
    """`30d`, `12h`, `2w` -> seconds (at least 1 hour, at most 455 days)."""
    match = _SINCE.fullmatch(text.strip())
    if not match:
        raise CostError(f"--since {text!r} is not a duration: use a number and h, d or w (e.g. 30d, 12h, 2w)")
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if not 3600 <= seconds <= MAX_WINDOW_SECONDS:
        raise CostError(f"--since {text!r} must be between 1h and 455d (CloudWatch's retention of hourly data)")
    return seconds


@dataclass(frozen=True)
class TenantCost:
    tenant: str
    requests: float
    iterations: float
    agentic_usd: float
    retrieve_usd: float
    storage_usd: float
    lambda_usd: float
    cache_savings_usd: float | None  # None: the tenant has no cache

    @property
    def total_usd(self) -> float:
        return self.agentic_usd + self.retrieve_usd + self.storage_usd + self.lambda_usd


def knowledge_base_ids(ssm: Any, project: Project, tenant: str) -> list[str]:
    """The tenant's deployed knowledge-base ids (SSM `/akb/<env>/<tenant>/kb/<alias>/id`); missing ones are skipped."""
    wanted = [
        naming.parameter_name(project.env_name, tenant, naming.knowledge_base_key(kb.alias, "id"))
        for kb in project.tenants[tenant].knowledge_bases
    ]
    response = ssm.get_parameters(Names=wanted)
    found = {parameter["Name"]: parameter["Value"] for parameter in response.get("Parameters", [])}
    return [found[name] for name in wanted if name in found]


def _stat(query_id: str, namespace: str, metric: str, dimensions: dict[str, str], stat: str, period: int) -> dict:
    return {
        "Id": query_id,
        "MetricStat": {
            "Metric": {
                "Namespace": namespace,
                "MetricName": metric,
                "Dimensions": [{"Name": key, "Value": value} for key, value in dimensions.items()],
            },
            "Period": period,
            "Stat": stat,
        },
        "ReturnData": True,
    }


def tenant_queries(project: Project, index: int, tenant: str, kb_ids: Sequence[str], period: int) -> list[dict]:
    """The MetricDataQueries of one tenant; ids are `t<index>_<what>` (GetMetricData ids: ^[a-z][a-zA-Z0-9_]*$)."""
    endpoint = {names.TENANT_DIMENSION: tenant}
    function = {"FunctionName": naming.endpoint_function_name(project.env_name, tenant)}
    queries = [
        _stat(f"t{index}_requests", names.NAMESPACE, names.REQUESTS, endpoint, "Sum", period),
        _stat(f"t{index}_iterations", names.NAMESPACE, names.ITERATIONS, endpoint, "Sum", period),
        _stat(f"t{index}_cost", names.NAMESPACE, names.ESTIMATED_COST_USD, endpoint, "Sum", period),
        _stat(f"t{index}_duration", "AWS/Lambda", "Duration", function, "Sum", period),
        _stat(f"t{index}_invocations", "AWS/Lambda", "Invocations", function, "Sum", period),
    ]
    if project.tenants[tenant].cache_on:
        queries.append(_stat(f"t{index}_hits", names.NAMESPACE, names.CACHE_HITS, endpoint, "Sum", period))
    for kb_index, kb_id in enumerate(kb_ids):
        dimension = {names.BEDROCK_KNOWLEDGE_BASE_DIMENSION: names.BEDROCK_KNOWLEDGE_BASE_VALUE_PREFIX + kb_id}
        queries.append(
            _stat(
                f"t{index}_size{kb_index}",
                names.BEDROCK_KB_NAMESPACE,
                names.BEDROCK_RAW_DATA_SIZE,
                dimension,
                "Average",
                period,
            )
        )
    return queries


def fetch_values(cloudwatch: Any, queries: list[dict], start: datetime, end: datetime) -> dict[str, float]:
    """id -> the sum of its values (one period spans the window, so at most one value each); pages through NextToken."""
    values: dict[str, float] = {}
    token: str | None = None
    while True:
        request: dict[str, Any] = {"MetricDataQueries": queries, "StartTime": start, "EndTime": end}
        if token:
            request["NextToken"] = token
        response = cloudwatch.get_metric_data(**request)
        for result in response.get("MetricDataResults", []):
            values[result["Id"]] = values.get(result["Id"], 0.0) + sum(result.get("Values", []))
        token = response.get("NextToken")
        if not token:
            return values


def tenant_cost(project: Project, index: int, tenant: str, values: dict[str, float], window_seconds: int) -> TenantCost:
    """Turns one tenant's metric values into dollars at the environment's `pricing`."""
    pricing, environment = project.environment.pricing, project.environment

    def value(what: str) -> float:
        return values.get(f"t{index}_{what}", 0.0)

    requests, iterations, estimated = value("requests"), value("iterations"), value("cost")
    retrieve = iterations * pricing.retrieve_per_1000_usd / 1000
    size_gb = sum(v for key, v in values.items() if key.startswith(f"t{index}_size"))
    months = window_seconds / 86400 / MONTH_DAYS
    memory_gb = environment.endpoint.memory_mb / 1024
    lambda_usd = (value("duration") / 1000) * memory_gb * pricing.lambda_gb_second_usd + value(
        "invocations"
    ) / 1e6 * pricing.lambda_per_million_requests_usd
    savings = None
    if project.tenants[tenant].cache_on:
        hits = value("hits")
        misses = max(requests - hits, 0.0)
        savings = hits * (estimated / misses) if misses else 0.0
    return TenantCost(
        tenant=tenant,
        requests=requests,
        iterations=iterations,
        agentic_usd=max(estimated - retrieve, 0.0),
        retrieve_usd=min(retrieve, estimated) if estimated else 0.0,
        storage_usd=size_gb * pricing.index_storage_per_gb_month_usd * months,
        lambda_usd=lambda_usd,
        cache_savings_usd=savings,
    )


def report(
    project: Project,
    tenants: Sequence[str],
    *,
    cloudwatch: Any,
    ssm: Any,
    window_seconds: int,
    now: datetime | None = None,
) -> list[TenantCost]:
    """One row per tenant over the last `window_seconds` (one GetMetricData call for all of them)."""
    end = (now or datetime.now(UTC)).replace(second=0, microsecond=0)
    start = end - timedelta(seconds=window_seconds)
    queries: list[dict] = []
    for index, tenant in enumerate(tenants):
        queries += tenant_queries(project, index, tenant, knowledge_base_ids(ssm, project, tenant), window_seconds)
    if len(queries) > 500:  # GetMetricData takes at most 500 queries per call
        raise CostError(f"{len(tenants)} tenants need {len(queries)} metric queries (at most 500): use --tenant")
    values = fetch_values(cloudwatch, queries, start, end)
    return [tenant_cost(project, index, tenant, values, window_seconds) for index, tenant in enumerate(tenants)]


HEADERS = ("tenant", "requests", "iterations", "agentic_usd", "retrieve_usd", "storage_usd", "lambda_usd")


def as_csv(rows: Sequence[TenantCost]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*HEADERS, "total_usd", "cache_savings_usd"])
    for row in rows:
        writer.writerow(
            [
                *(_cell(getattr(row, name)) for name in HEADERS),
                _cell(row.total_usd),
                "" if row.cache_savings_usd is None else _cell(row.cache_savings_usd),
            ]
        )
    return buffer.getvalue()


def as_table(rows: Sequence[TenantCost]) -> str:
    header = (
        "tenant",
        "requests",
        "iterations",
        "agentic $",
        "retrieve $",
        "storage $",
        "lambda $",
        "total $",
        "cache saved $",
    )
    lines = [header]
    for row in rows:
        saved = "-" if row.cache_savings_usd is None else f"{row.cache_savings_usd:.2f}"
        lines.append(
            (
                row.tenant,
                f"{row.requests:.0f}",
                f"{row.iterations:.0f}",
                f"{row.agentic_usd:.2f}",
                f"{row.retrieve_usd:.2f}",
                f"{row.storage_usd:.2f}",
                f"{row.lambda_usd:.2f}",
                f"{row.total_usd:.2f}",
                saved,
            )
        )
    widths = [max(len(line[column]) for line in lines) for column in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in lines
    )


def _cell(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:.6f}".rstrip("0").rstrip(".") or "0"


__all__ = ["CostError", "TenantCost", "as_csv", "as_table", "parse_since", "report"]
