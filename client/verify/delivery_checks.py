"""Each knowledge base's ingestion log delivery exists and has delivered since the last ingestion.

The delivery is found from the knowledge base's ARN (its delivery source names it), not by name; the
last ingestion from each data source's newest job (client/ingestion_log_reader.py, as `akb ingest
--status` reads it); delivered events from the tenant's ingestion log group since that job started. A
delivery without events is what a missing log-group resource policy for delivery.logs.amazonaws.com
looks like (docs/facts-and-decisions.md, Issue 25, fault 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from client.doctor.findings import Finding, aws_call, fail, ok, warn
from client.verify.verification import Verification
from contract.resource_names import data_source_key, ingestion_log_group_name, knowledge_base_key

LOG_TYPE = "APPLICATION_LOGS"
LATE_SECONDS = 900  # events of a job can arrive minutes after it starts: a younger job only WARNs


def check_ingestion_logs(v: Verification, tenant: str) -> Iterator[Finding]:
    config = v.project.tenants[tenant]
    if not config.ingestion_logs:
        return
    logs = v.checkup.client("logs")
    sources = _paged(logs, "describe_delivery_sources", "deliverySources", "logs:DescribeDeliverySources")
    deliveries = _paged(logs, "describe_deliveries", "deliveries", "logs:DescribeDeliveries")
    for knowledge_base in config.knowledge_bases:
        yield _check_one(v, tenant, knowledge_base, sources, deliveries)


def _paged(client: Any, operation: str, key: str, action: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = aws_call(action, getattr(client, operation), **kwargs)
        items.extend(page.get(key, []))
        if not page.get("nextToken"):
            return items
        kwargs["nextToken"] = page["nextToken"]


def _check_one(v: Verification, tenant: str, knowledge_base: Any, sources: list, deliveries: list) -> Finding:
    check = f"ingestion-logs:{knowledge_base.alias}"
    arn = v.parameter(tenant, knowledge_base_key(knowledge_base.alias, "arn"))
    source = next(
        (s for s in sources if arn and arn in s.get("resourceArns", []) and s.get("logType") == LOG_TYPE), None
    )
    if source is None:
        return fail(
            check,
            f"no {LOG_TYPE} delivery source for knowledge base {knowledge_base.alias}: deploy the "
            f"stack {v.env_name}-{tenant} with ingestion_logs: true",
        )
    if not any(d.get("deliverySourceName") == source.get("name") for d in deliveries):
        return fail(check, f"the delivery source of {knowledge_base.alias} delivers nowhere: redeploy the stack")
    started = _last_ingestion(v, tenant, knowledge_base)
    if started is None:
        return warn(check, f"no ingestion job yet for {knowledge_base.alias}: run akb ingest, then akb verify again")
    if _has_events(v, tenant, started):
        return ok(
            check, f"delivery exists and delivered events after the last ingestion ({started:%Y-%m-%d %H:%M} UTC)"
        )
    late = v.clock() - started.timestamp() < LATE_SECONDS
    message = (
        f"no ingestion log event since the last ingestion started ({started:%Y-%m-%d %H:%M} UTC): the log "
        "group's resource policy may not admit delivery.logs.amazonaws.com (docs/operations.md, Verify)"
    )
    return warn(check, message + "; the job is recent, so try again in a few minutes") if late else fail(check, message)


def _last_ingestion(v: Verification, tenant: str, knowledge_base: Any) -> Any:
    """When the newest ingestion job of any of the knowledge base's data sources started (None: never)."""
    from client.ingestion_log_reader import last_jobs

    kb_id = v.parameter(tenant, knowledge_base_key(knowledge_base.alias, "id"))
    starts: list[Any] = []
    for index in range(len(knowledge_base.sources)):
        source_id = v.parameter(tenant, data_source_key(knowledge_base.alias, index, "id"))
        if kb_id and source_id:
            agent = v.checkup.client("bedrock-agent")
            jobs = aws_call(
                "bedrock:ListIngestionJobs",
                last_jobs,
                agent=agent,
                knowledge_base_id=kb_id,
                data_source_id=source_id,
                count=1,
            )
            starts.extend(job["startedAt"] for job in jobs if job.get("startedAt"))
    return max(starts, default=None)


def _has_events(v: Verification, tenant: str, started: Any) -> bool:
    answer = aws_call(
        "logs:FilterLogEvents",
        v.checkup.client("logs").filter_log_events,
        logGroupName=ingestion_log_group_name(v.env_name, tenant),
        startTime=int(started.timestamp() * 1000),
        limit=1,
    )
    return bool(answer.get("events"))
