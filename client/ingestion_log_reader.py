"""Reads an ingestion job's failed documents from the tenant's ingestion logs, and each data source's
last jobs, for `akb ingest --wait` and `akb ingest --status`.

The logs are the knowledge bases' vended APPLICATION_LOGS (cdk_constructs/ingestion_logs.py); the
events and fields are in contract/ingestion_events.py. They reach every connector type, where
ListKnowledgeBaseDocuments covers only S3 and custom sources. Clients are plain boto3; tests drive
them with botocore's Stubber.
"""

from __future__ import annotations

from typing import Any

from contract.ingestion_events import FailedDocument, failed_document, job_events_pattern

# A job's document events can arrive after GetIngestionJob says it ended; this is said, not hidden.
LATE_NOTE = "ingestion logs can arrive minutes after the job ends: run `akb ingest --status` again later"


def failed_documents_from_logs(
    logs: Any, log_group_name: str, job_id: str, start_ms: int, limit: int = 100
) -> tuple[list[FailedDocument], str | None]:
    """(failed documents of `job_id`, a note or None); the latest event per document wins."""
    from botocore.exceptions import ClientError

    found: dict[str, FailedDocument] = {}
    try:
        pages = logs.get_paginator("filter_log_events").paginate(
            logGroupName=log_group_name, startTime=start_ms, filterPattern=job_events_pattern(job_id)
        )
        for page in pages:
            for event in page.get("events", []):
                document = failed_document(event.get("message", ""))
                if document is not None:
                    found[document.document] = document
            if len(found) >= limit:
                return list(found.values())[:limit], f"showing the first {limit} failed documents"
    except ClientError as error:
        code = error.response["Error"].get("Code")
        if code == "ResourceNotFoundException":
            return [], f"no ingestion log group {log_group_name} (ingestion_logs off, or the stack is not deployed)"
        return [], f"ingestion logs could not be read ({code})"
    return list(found.values()), None


def last_jobs(agent: Any, knowledge_base_id: str, data_source_id: str, count: int = 3) -> list[dict[str, Any]]:
    """The data source's most recent ingestion jobs, newest first."""
    response = agent.list_ingestion_jobs(
        knowledgeBaseId=knowledge_base_id,
        dataSourceId=data_source_id,
        sortBy={"attribute": "STARTED_AT", "order": "DESCENDING"},
        maxResults=count,
    )
    return list(response.get("ingestionJobSummaries", []))


def describe_statistics(statistics: dict[str, Any]) -> str:
    """`scanned 12  added 10  modified 1  deleted 0  failed 1` from an IngestionJobStatistics."""
    return "  ".join(
        f"{label} {statistics.get(key, 0)}"
        for label, key in (
            ("scanned", "numberOfDocumentsScanned"),
            ("added", "numberOfNewDocumentsIndexed"),
            ("modified", "numberOfModifiedDocumentsIndexed"),
            ("deleted", "numberOfDocumentsDeleted"),
            ("failed", "numberOfDocumentsFailed"),
        )
    )
