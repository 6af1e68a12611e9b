"""The CloudWatch series the alarms and dashboards read, observed after the canary calls (bounded wait).

The endpoint's own `Iterations` (namespace AgenticRetrieval, dimension Tenant) is the authoritative
iteration series: it must receive the canary's datapoint. For Amazon Bedrock's knowledge-base metrics
no source settles which dimension sets carry TotalIterationCount, Invocations and Throttles
(docs/facts-and-decisions.md, Issue 25, fact 6), so verify lists every dimension set CloudWatch knows
for them and reports which received data since the run started: the observation the ledger waits for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from client.doctor.findings import Finding, aws_call, fail, ok, warn
from client.verify.door_checks import ENDPOINT, FUNCTION_URL
from client.verify.verification import Verification
from contract import metric_names as m

ENDPOINT_SERIES = "metrics:endpoint"
BEDROCK_METRICS = (m.BEDROCK_TOTAL_ITERATION_COUNT, m.BEDROCK_INVOCATIONS, m.BEDROCK_THROTTLES)
AWAITED = (m.BEDROCK_TOTAL_ITERATION_COUNT, m.BEDROCK_INVOCATIONS)  # throttles may rightly have no data
Series = tuple[str, str, tuple[tuple[str, str], ...]]  # namespace, metric, dimensions


def check_metrics(v: Verification) -> Iterator[Finding]:
    tenants = [
        t
        for t in v.checkup.tenants
        if any(o.answered and o.door in (ENDPOINT, FUNCTION_URL) for o in v.outcomes.get(t, []))
    ]
    if not tenants:
        yield warn(ENDPOINT_SERIES, "no canary completed through an endpoint: the metric series were not checked")
        return
    endpoint_series: list[Series] = [(m.NAMESPACE, m.ITERATIONS, ((m.TENANT_DIMENSION, t),)) for t in tenants]

    def done(seen: dict[Series, bool]) -> bool:
        wanted = [s for s in seen if s in endpoint_series or s[1] in AWAITED]
        return all(seen.get(s) for s in endpoint_series) and all(
            any(seen[s] for s in wanted if s[1] == metric) for metric in AWAITED
        )

    seen = _poll(v, lambda: _observe(v, endpoint_series), done)
    for series in endpoint_series:
        yield _endpoint_finding(v, series, seen.get(series, False))
    for metric in BEDROCK_METRICS:
        yield _bedrock_finding(
            v, metric, {s: has for s, has in seen.items() if s[0] == m.BEDROCK_KB_NAMESPACE and s[1] == metric}
        )


def _poll(
    v: Verification, read: Callable[[], dict[Series, bool]], done: Callable[[dict[Series, bool]], bool]
) -> dict[Series, bool]:
    deadline = v.clock() + v.wait_seconds
    while True:
        seen = read()
        if done(seen) or v.clock() >= deadline:
            return seen
        v.sleep(min(v.poll_seconds, max(0.0, deadline - v.clock())))


def _observe(v: Verification, endpoint_series: list[Series]) -> dict[Series, bool]:
    """Every series of interest -> whether it has a datapoint since the run started."""
    cloudwatch = v.checkup.client("cloudwatch")
    series = list(endpoint_series)
    for metric in BEDROCK_METRICS:
        pages = aws_call(
            "cloudwatch:ListMetrics", cloudwatch.list_metrics, Namespace=m.BEDROCK_KB_NAMESPACE, MetricName=metric
        )
        for listed in pages.get("Metrics", []):
            dims = tuple(sorted((d["Name"], d["Value"]) for d in listed.get("Dimensions", [])))
            series.append((m.BEDROCK_KB_NAMESPACE, metric, dims))
    queries = [_query(index, s) for index, s in enumerate(series[:500])]  # GetMetricData takes 500 queries
    answer = aws_call(
        "cloudwatch:GetMetricData",
        cloudwatch.get_metric_data,
        MetricDataQueries=queries,
        StartTime=_time(v.started_at - 60),
        EndTime=_time(v.clock() + 60),
    )
    with_data = {r["Id"] for r in answer.get("MetricDataResults", []) if r.get("Values")}
    return {s: f"q{index}" in with_data for index, s in enumerate(series[:500])}


def _query(index: int, series: Series) -> dict[str, Any]:
    namespace, metric, dims = series
    dimensions = [{"Name": k, "Value": val} for k, val in dims]
    stat = {
        "Metric": {"Namespace": namespace, "MetricName": metric, "Dimensions": dimensions},
        "Period": 60,
        "Stat": "Sum",
    }
    return {"Id": f"q{index}", "MetricStat": stat, "ReturnData": True}


def _time(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def _endpoint_finding(v: Verification, series: Series, has_data: bool) -> Finding:
    tenant = series[2][0][1]
    where = f"{m.ITERATIONS} ({m.NAMESPACE}, {m.TENANT_DIMENSION}={tenant})"
    if has_data:
        return ok(ENDPOINT_SERIES, f"{where} received the canary's datapoint: the authoritative iteration series")
    return fail(
        ENDPOINT_SERIES,
        f"{where} has no datapoint {v.wait_seconds:g} s after a completed canary: the endpoint's EMF metrics are "
        "not arriving; look for EMF records in its log group (docs/observability.md)",
    )


def _bedrock_finding(v: Verification, metric: str, seen: dict[Series, bool]) -> Finding:
    check = f"metrics:{metric}"
    carrying = [_dims(s) for s, has in seen.items() if has]
    known = [_dims(s) for s in seen]
    if carrying:
        return ok(check, f"data under {'; '.join(carrying)} (every dimension set CloudWatch lists: {'; '.join(known)})")
    if metric == m.BEDROCK_THROTTLES:
        return ok(check, f"no throttles since the run started (dimension sets listed: {'; '.join(known) or 'none'})")
    return warn(
        check,
        f"no datapoint under any dimension set within {v.wait_seconds:g} s (listed: {'; '.join(known) or 'none'}); "
        "the alarms read every candidate set and the endpoint's Iterations stays authoritative (fact 6)",
    )


def _dims(series: Series) -> str:
    return ", ".join(f"{k}={val}" for k, val in series[2]) or "no dimensions"
