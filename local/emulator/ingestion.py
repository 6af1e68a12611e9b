"""bedrock-agent's data sources and ingestion jobs for the emulated corpus, and ingested ACLs.

Enough of the control plane for the endpoint's result cache to read content versions the way it
does in AWS (docs/cache.md): ListDataSources, ListIngestionJobs (filter STATUS EQ, sortBy
STARTED_AT, pages of `maxResults` with `nextToken`, as boto3's paginator and the AWS CLI's
--page-size expect), StartIngestionJob and GetIngestionJob, with botocore's shapes for bedrock-agent
(ledger: ingestion jobs). Each knowledge base has one data source (ids.data_source_id_for); at
start-up each has one COMPLETE job, as if the corpus had been ingested once. A started job stays
IN_PROGRESS until the control call `POST /_emulator/ingestion/complete` completes it, which is what
changes the knowledge base's content version; tests decide when an ingestion "finishes".

CheckIngestedDocumentAcl (bedrock-agent-runtime) answers from the documents' ACL side files, as
overridden by the control call `POST /_emulator/acl` (a permission change that took effect
without new content). The documentId may be the document's path or its s3:// source URI; an
unknown document has no access (how the service answers for an unknown id is UNVERIFIED).
"""

from __future__ import annotations

import base64
import json
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from local.emulator.corpus import KnowledgeBase
from local.emulator.ids import data_source_id_for, source_uri_for
from local.emulator.index import KnowledgeBaseIndex
from local.emulator.service_errors import ServiceError

JOB_STATUSES = ("STARTING", "IN_PROGRESS", "COMPLETE", "FAILED", "STOPPING", "STOPPED")
MAX_RESULTS = 1000  # botocore's MaxResults maximum; the page size when the request names none (UNVERIFIED)
SORT_ATTRIBUTES = ("STATUS", "STARTED_AT")


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _token(kb_id: str, data_source_id: str, offset: int) -> str:
    """An opaque ListIngestionJobs nextToken: where the next page starts, for this data source."""
    raw = json.dumps({"knowledgeBaseId": kb_id, "dataSourceId": data_source_id, "offset": offset})
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _offset(token: Any, kb_id: str, data_source_id: str) -> int:
    """The offset a nextToken names; ValidationException for a token of another list or none at all."""
    if token is None:
        return 0
    try:
        data = json.loads(base64.urlsafe_b64decode(str(token).encode()))
        if (data["knowledgeBaseId"], data["dataSourceId"]) == (kb_id, data_source_id) and data["offset"] >= 0:
            return int(data["offset"])
    except (ValueError, KeyError, TypeError):
        pass
    raise ServiceError("ValidationException", "The provided nextToken is not valid")


@dataclass
class Job:
    knowledge_base_id: str
    data_source_id: str
    ingestion_job_id: str
    status: str
    started_at: str
    updated_at: str
    description: str | None = None
    statistics: dict[str, int] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "knowledgeBaseId": self.knowledge_base_id,
            "dataSourceId": self.data_source_id,
            "ingestionJobId": self.ingestion_job_id,
            "status": self.status,
            "startedAt": self.started_at,
            "updatedAt": self.updated_at,
            "statistics": self.statistics,
        }
        if self.description:
            body["description"] = self.description
        return body


class Ingestion:
    """Thread-safe state of every knowledge base's data source, jobs and ACL overrides."""

    def __init__(self, knowledge_bases: Mapping[str, KnowledgeBase], indexes: Mapping[str, KnowledgeBaseIndex]) -> None:
        self._kbs = dict(knowledge_bases)
        self._indexes = indexes
        self._lock = threading.Lock()
        self._jobs: dict[str, list[Job]] = {}
        for kb_id, kb in self._kbs.items():
            self._jobs[kb_id] = [self._new_job(kb_id, "COMPLETE", "initial ingestion of the corpus", len(kb.documents))]

    def _new_job(self, kb_id: str, status: str, description: str | None, documents: int = 0) -> Job:
        now = _now()
        kb = self._kbs[kb_id]
        stats = {"numberOfDocumentsScanned": documents, "numberOfNewDocumentsIndexed": documents} if documents else {}
        job_id = uuid.uuid4().hex[:10].upper()
        return Job(kb_id, data_source_id_for(kb.folder), job_id, status, now, now, description, stats)

    def _kb(self, kb_id: str, data_source_id: str | None = None) -> KnowledgeBase:
        kb = self._kbs.get(kb_id)
        if kb is None:
            raise ServiceError("ResourceNotFoundException", f"Knowledge base {kb_id} does not exist")
        if data_source_id is not None and data_source_id != data_source_id_for(kb.folder):
            raise ServiceError("ResourceNotFoundException", f"Data source {data_source_id} does not exist in {kb_id}")
        return kb

    def list_data_sources(self, kb_id: str) -> dict[str, Any]:
        kb = self._kb(kb_id)
        summary = {
            "knowledgeBaseId": kb_id,
            "dataSourceId": data_source_id_for(kb.folder),
            "name": kb.folder,
            "status": "AVAILABLE",
            "updatedAt": _now(),
        }
        return {"dataSourceSummaries": [summary]}

    def list_jobs(self, kb_id: str, data_source_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        self._kb(kb_id, data_source_id)
        wanted = None
        for item in body.get("filters") or []:
            if item.get("attribute") != "STATUS" or item.get("operator") != "EQ":
                raise ServiceError("ValidationException", "filters: only attribute STATUS with operator EQ")
            wanted = set(item.get("values") or [])
        with self._lock:
            jobs = [job for job in self._jobs[kb_id] if wanted is None or job.status in wanted]
        sort = body.get("sortBy") or {"attribute": "STARTED_AT", "order": "DESCENDING"}
        if sort.get("attribute") not in SORT_ATTRIBUTES:
            raise ServiceError("ValidationException", f"sortBy.attribute must be one of {SORT_ATTRIBUTES}")
        key = (lambda job: job.status) if sort["attribute"] == "STATUS" else (lambda job: job.started_at)
        jobs.sort(key=key, reverse=sort.get("order") == "DESCENDING")
        limit = int(body.get("maxResults") or MAX_RESULTS)
        start = _offset(body.get("nextToken"), kb_id, data_source_id)
        page: dict[str, Any] = {"ingestionJobSummaries": [job.to_wire() for job in jobs[start : start + limit]]}
        if start + limit < len(jobs):
            page["nextToken"] = _token(kb_id, data_source_id, start + limit)
        return page

    def start_job(self, kb_id: str, data_source_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        self._kb(kb_id, data_source_id)
        job = self._new_job(kb_id, "IN_PROGRESS", body.get("description"))
        with self._lock:
            self._jobs[kb_id].append(job)
        return {"ingestionJob": job.to_wire()}

    def get_job(self, kb_id: str, data_source_id: str, job_id: str) -> dict[str, Any]:
        self._kb(kb_id, data_source_id)
        with self._lock:
            job = next((job for job in self._jobs[kb_id] if job.ingestion_job_id == job_id), None)
        if job is None:
            raise ServiceError("ResourceNotFoundException", f"Ingestion job {job_id} does not exist")
        return {"ingestionJob": job.to_wire()}

    def complete(self, kb_id: str) -> dict[str, Any]:
        """Control call: completes the knowledge base's running jobs (starting one if none runs)."""
        kb = self._kb(kb_id)
        with self._lock:
            running = [job for job in self._jobs[kb_id] if job.status in ("STARTING", "IN_PROGRESS")]
            if not running:
                running = [self._new_job(kb_id, "IN_PROGRESS", "completed by the emulator's control API")]
                self._jobs[kb_id] += running
            for job in running:
                job.status, job.updated_at = "COMPLETE", _now()
                job.statistics = {"numberOfDocumentsScanned": len(kb.documents)}
            return {"completed": [job.to_wire() for job in running]}

    # -- ingested ACLs ------------------------------------------------------------------------
    def _document_id(self, kb: KnowledgeBase, identifier: str) -> str | None:
        if identifier in kb.documents:
            return identifier
        return next((d for d in kb.documents if source_uri_for(kb.folder, d) == identifier), None)

    def set_acl(self, kb_id: str, document_id: str, users: list[str] | None) -> dict[str, Any]:
        """Control call: the document's ingested ACL becomes `users` (None: no ACL, everyone)."""
        kb = self._kb(kb_id)
        found = self._document_id(kb, document_id)
        if found is None:
            raise ServiceError("ResourceNotFoundException", f"Document {document_id} is not in {kb_id}")
        self._indexes[kb_id].set_allowed_users(found, None if users is None else frozenset(users))
        return {"knowledgeBaseId": kb_id, "documentId": found, "users": users}

    def check_acl(self, kb_id: str, data_source_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        kb = self._kb(kb_id, data_source_id)
        user = (body.get("userContext") or {}).get("userId")
        if not isinstance(body.get("documentId"), str) or not isinstance(user, str):
            raise ServiceError("ValidationException", "documentId and userContext.userId are required")
        found = self._document_id(kb, body["documentId"])
        allowed = found is not None and self._indexes[kb_id].visible(kb.documents[found], user)
        return {"hasAccess": allowed}
