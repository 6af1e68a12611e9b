"""Amazon Bedrock's knowledge-base ingestion log events (vended APPLICATION_LOGS), in one place.

Bedrock sends no EventBridge event for ingestion jobs, so these logs are the signal: the tenant
stack delivers them to one log group per tenant (cdk_constructs/ingestion_logs.py), metric filters
and alarms read them (monitoring/ingestion_monitoring.py), and `akb ingest --wait` reads the failed
documents of its job from them (client/ingestion_log_reader.py). No CDK import: the client uses it.

Event types: `StartIngestionJob.StatusChanged` (job level) and
`StartIngestionJob.ResourceStatusChanged` (document level), Bedrock user guide
https://docs.aws.amazon.com/bedrock/latest/userguide/knowledge-bases-logging.html and
kb-managed-observability.html. Two document shapes are in AWS sources: the logging page's
(`event.status`, `event.status_reasons`, `event.document_location`) and the one AWS's managed-KB
sample reads (`event.document_id`, `event.index_status.Status`; aws-samples/amazon-bedrock-samples,
rag/managed-knowledge-bases/utils/kb_observability.py). Filters and the reader accept both
(docs/facts-and-decisions.md, ledger: CONFLICTING).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

JOB_STATUS_CHANGED = "StartIngestionJob.StatusChanged"
RESOURCE_STATUS_CHANGED = "StartIngestionJob.ResourceStatusChanged"
LOG_TYPE = "APPLICATION_LOGS"

# Job statuses that end a job badly (bedrock-agent IngestionJobStatus, botocore model).
FAILED_JOB_STATUSES = ("FAILED",)
# Document statuses meaning "not (fully) searchable". The logging page's per-stage failures and the
# API's DocumentStatus failures (bedrock-agent KnowledgeBaseDocumentDetail.status).
FAILED_DOCUMENT_STATUSES = (
    "FAILED",
    "EMBEDDING_FAILED",
    "INDEXING_FAILED",
    "DELETION_FAILED",
    "METADATA_UPDATE_FAILED",
    "PARTIALLY_INDEXED",
    "METADATA_PARTIALLY_INDEXED",
)


def _any_of(selector: str, values: Iterable[str]) -> str:
    return " || ".join(f'({selector} = "{value}")' for value in values)


def failed_documents_pattern() -> str:
    """CloudWatch Logs JSON filter pattern: a document-level event whose status is a failure."""
    statuses = f"{_any_of('$.event.status', FAILED_DOCUMENT_STATUSES)} || " + _any_of(
        "$.event.index_status.Status", FAILED_DOCUMENT_STATUSES
    )
    return f'{{ ($.event_type = "{RESOURCE_STATUS_CHANGED}") && ({statuses}) }}'


def failed_jobs_pattern() -> str:
    """CloudWatch Logs JSON filter pattern: a job-level event with a failed status."""
    return (
        f'{{ ($.event_type = "{JOB_STATUS_CHANGED}") && '
        f"({_any_of('$.event.ingestion_job_status', FAILED_JOB_STATUSES)}) }}"
    )


def job_events_pattern(job_id: str) -> str:
    """Filter pattern for every event of one job (what `akb ingest --wait` reads)."""
    safe = "".join(ch for ch in job_id if ch.isalnum())  # ingestion job ids are [0-9a-zA-Z]{10}
    return f'{{ $.event.ingestion_job_id = "{safe}" }}'


# Logs Insights: failed documents with their reasons, newest first (a saved query; the console's
# "last job" is the first ingestion_job_id of the result).
FAILED_DOCUMENTS_QUERY_FIELDS = (
    "@timestamp",
    "event.ingestion_job_id",
    "event.data_source_id",
    "event.document_location.s3_location.uri",
    "event.document_id",
    "event.status",
    "event.index_status.Status",
    "event.status_reasons.0",
)
FAILED_DOCUMENTS_QUERY_FILTER = (
    f'event_type = "{RESOURCE_STATUS_CHANGED}" and (event.status like /FAILED|PARTIALLY_INDEXED/ '
    "or event.index_status.Status like /FAILED|PARTIALLY_INDEXED/)"
)
# Per job: the statistics of its final StatusChanged event (documents added/modified/deleted/failed).
JOB_STATISTICS_QUERY = (
    f'filter event_type = "{JOB_STATUS_CHANGED}" and ispresent(event.resource_statistics)\n'
    "| stats latest(event.ingestion_job_status) as status, "
    "latest(event.resource_statistics.number_of_resources_ingested) as added, "
    "latest(event.resource_statistics.number_of_resources_updated) as modified, "
    "latest(event.resource_statistics.number_of_resources_deleted) as deleted, "
    "latest(event.resource_statistics.number_of_resources_failed) as failed by event.ingestion_job_id\n"
    "| sort @timestamp desc\n| limit 20"
)


@dataclass(frozen=True)
class FailedDocument:
    """One document an ingestion job could not (fully) index, as its log event reports it."""

    document: str
    status: str
    reasons: tuple[str, ...]


def failed_document(message: str) -> FailedDocument | None:
    """The failed document an event describes, or None (another event, a success, or not JSON)."""
    try:
        record = json.loads(message)
    except (ValueError, TypeError):
        return None
    if not isinstance(record, dict) or record.get("event_type") != RESOURCE_STATUS_CHANGED:
        return None
    event = record.get("event")
    if not isinstance(event, dict):
        return None
    status = _document_status(event)
    if status not in FAILED_DOCUMENT_STATUSES:
        return None
    reasons = event.get("status_reasons") or []
    return FailedDocument(
        document=_document_name(event),
        status=status,
        reasons=tuple(str(reason) for reason in reasons) if isinstance(reasons, list) else (str(reasons),),
    )


def _document_status(event: dict[str, Any]) -> str:
    status = event.get("status")
    if isinstance(status, str):
        return status
    index_status = event.get("index_status")
    if isinstance(index_status, dict) and isinstance(index_status.get("Status"), str):
        return str(index_status["Status"])
    return ""


def _document_name(event: dict[str, Any]) -> str:
    location = event.get("document_location")
    if isinstance(location, dict):
        for value in location.values():
            if isinstance(value, dict) and isinstance(value.get("uri"), str):
                return str(value["uri"])
    return str(event.get("document_id") or "?")
