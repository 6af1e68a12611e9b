"""Each knowledge base's content version: the latest COMPLETE ingestion job of each of its data sources.

Bedrock sends no EventBridge event when an ingestion job ends (ledger), so the endpoint asks:
bedrock-agent ListDataSources, then ListIngestionJobs per data source filtered to status COMPLETE
(job id and updatedAt of the newest one), at most once per `refresh_seconds` per knowledge base.
A new version is seen sooner when someone publishes it: `akb ingest` writes a version mark to the
cache store when its job completes, and direct ingestion (IngestKnowledgeBaseDocuments, which has
no job) writes one itself. Marks are read on every lookup (one store query). For each data source
the later of the polled job and the published mark wins, so a poll that catches up with a mark
yields the same version, not a second invalidation.

A version that cannot be read (throttled, denied, unreachable) is never guessed: the lookup
raises VersionUnavailable and the request bypasses the cache (fail closed). After a failed poll
the knowledge base is not polled again for `retry_seconds`, so a failing API is not hammered.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lambdas.endpoint.cache.store import CacheStore, VersionMark

NO_JOB = ("none", 0.0)
JOBS_PER_DATA_SOURCE = 10  # the newest COMPLETE jobs looked at; the latest updatedAt wins


class VersionUnavailable(Exception):
    """A knowledge base's version could not be read: the request must not use the cache."""


@dataclass
class _Polled:
    at: float  # monotonic
    jobs: dict[str, tuple[str, float]]  # data source id -> (job id, updatedAt epoch)
    failed: bool = False


def latest_complete_jobs(client: Any, knowledge_base_id: str) -> dict[str, tuple[str, float]]:
    """data source id -> (job id, updatedAt) of its newest COMPLETE ingestion job (NO_JOB if none)."""
    jobs: dict[str, tuple[str, float]] = {}
    for page in client.get_paginator("list_data_sources").paginate(knowledgeBaseId=knowledge_base_id):
        for source in page.get("dataSourceSummaries", []):
            summaries = client.list_ingestion_jobs(
                knowledgeBaseId=knowledge_base_id,
                dataSourceId=source["dataSourceId"],
                filters=[{"attribute": "STATUS", "operator": "EQ", "values": ["COMPLETE"]}],
                sortBy={"attribute": "STARTED_AT", "order": "DESCENDING"},
                maxResults=JOBS_PER_DATA_SOURCE,
            ).get("ingestionJobSummaries", [])
            best = max(summaries, key=lambda job: job["updatedAt"], default=None)
            jobs[source["dataSourceId"]] = (
                (best["ingestionJobId"], best["updatedAt"].timestamp()) if best is not None else NO_JOB
            )
    return jobs


def combine(jobs: Mapping[str, tuple[str, float]], marks: Sequence[VersionMark]) -> str:
    """One knowledge base's version: per data source the later of polled job and published mark."""
    latest = dict(jobs)
    for mark in marks:
        current = latest.get(mark.data_source_id, NO_JOB)
        if mark.updated_at > current[1]:
            latest[mark.data_source_id] = (mark.job_id, mark.updated_at)
    text = ";".join(f"{source}={job}@{updated:.6f}" for source, (job, updated) in sorted(latest.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ContentVersions:
    """Thread-safe; one per process (the polls are shared by every request of the tenant)."""

    def __init__(
        self,
        client_factory: Callable[[], Any],
        store: CacheStore,
        tenant: str,
        *,
        refresh_seconds: float = 60.0,
        retry_seconds: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client_factory = client_factory
        self._store = store
        self._tenant = tenant
        self.refresh_seconds = refresh_seconds
        self.retry_seconds = retry_seconds
        self._clock = clock
        self._polled: dict[str, _Polled] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.polls = 0  # ListDataSources rounds made (tests and the benchmark read it)

    def _lock(self, knowledge_base_id: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(knowledge_base_id, threading.Lock())

    def _jobs(self, knowledge_base_id: str) -> dict[str, tuple[str, float]]:
        with self._lock(knowledge_base_id):
            polled = self._polled.get(knowledge_base_id)
            now = self._clock()
            if polled is not None:
                wait = self.retry_seconds if polled.failed else self.refresh_seconds
                if now - polled.at < wait:
                    if polled.failed:
                        raise VersionUnavailable(f"knowledge base {knowledge_base_id}: last version read failed")
                    return polled.jobs
            self.polls += 1
            try:
                jobs = latest_complete_jobs(self._client_factory(), knowledge_base_id)
            except Exception as error:
                self._polled[knowledge_base_id] = _Polled(now, {}, failed=True)
                raise VersionUnavailable(f"knowledge base {knowledge_base_id}: {type(error).__name__}") from error
            self._polled[knowledge_base_id] = _Polled(now, jobs)
            return jobs

    def versions(self, knowledge_base_ids: Sequence[str]) -> dict[str, str]:
        """knowledge base id -> version; raises VersionUnavailable when any cannot be read."""
        try:
            marks = self._store.version_marks(self._tenant)
        except Exception as error:
            raise VersionUnavailable(f"published versions: {type(error).__name__}") from error
        out = {}
        for knowledge_base_id in knowledge_base_ids:
            own = [mark for mark in marks if mark.knowledge_base_id == knowledge_base_id]
            out[knowledge_base_id] = combine(self._jobs(knowledge_base_id), own)
        return out
