"""Content versions: the latest COMPLETE ingestion job per data source, polled at most once a minute,
published marks seen at once, and never guessed when they cannot be read."""

from __future__ import annotations

import pytest
from botocore.stub import Stubber

from lambdas.endpoint.cache.store import SqliteStore, VersionMark
from lambdas.endpoint.cache.versions import ContentVersions, VersionUnavailable
from local.emulator import kb_id_for
from local.emulator.ids import data_source_id_for

DOCS = kb_id_for("docs")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingClient:
    """The emulator's real bedrock-agent client, counting the ListDataSources rounds it is asked for."""

    def __init__(self, client) -> None:
        self._client = client
        self.rounds = 0

    def get_paginator(self, name):
        self.rounds += name == "list_data_sources"
        return self._client.get_paginator(name)

    def list_ingestion_jobs(self, **kwargs):
        return self._client.list_ingestion_jobs(**kwargs)


@pytest.fixture
def versions(emulator):
    clock, client, store = Clock(), CountingClient(emulator.client("bedrock-agent")), SqliteStore(":memory:")
    return ContentVersions(lambda: client, store, "acme", refresh_seconds=60, clock=clock), clock, client, store


def test_the_version_is_stable_while_nothing_is_ingested(versions):
    reader, _, _, _ = versions
    assert reader.versions([DOCS]) == reader.versions([DOCS])


def test_ingestion_jobs_are_read_at_most_once_per_refresh_interval(versions, emulator):
    reader, clock, client, _ = versions
    before = reader.versions([DOCS])
    emulator.complete_ingestion(DOCS)
    clock.now += 59
    assert reader.versions([DOCS]) == before and client.rounds == 1  # not polled again yet
    clock.now += 2
    assert reader.versions([DOCS]) != before and client.rounds == 2  # the completed job is the new version


def test_a_running_job_is_not_a_new_version_until_it_completes(versions, emulator):
    reader, clock, _, _ = versions
    agent = emulator.client("bedrock-agent")
    before = reader.versions([DOCS])
    job = agent.start_ingestion_job(knowledgeBaseId=DOCS, dataSourceId=data_source_id_for("docs"))["ingestionJob"]
    clock.now += 61
    assert job["status"] == "IN_PROGRESS" and reader.versions([DOCS]) == before


def test_a_published_mark_is_seen_at_once_and_a_poll_that_catches_up_changes_nothing(versions, emulator):
    reader, clock, _, store = versions
    before = reader.versions([DOCS])
    (job,) = emulator.complete_ingestion(DOCS)["completed"]
    from datetime import datetime

    updated = datetime.fromisoformat(job["updatedAt"]).timestamp()
    store.publish_version("acme", VersionMark(DOCS, job["dataSourceId"], job["ingestionJobId"], updated))
    published = reader.versions([DOCS])
    assert published != before  # no poll needed
    clock.now += 61
    assert reader.versions([DOCS]) == published  # the poll sees the same job: no second invalidation


def test_a_direct_ingestion_mark_newer_than_any_job_wins(versions):
    reader, _, _, store = versions
    before = reader.versions([DOCS])
    store.publish_version("acme", VersionMark(DOCS, data_source_id_for("docs"), "direct-1", 4_000_000_000.0))
    assert reader.versions([DOCS]) != before


def test_an_unreadable_version_is_never_guessed_and_not_retried_at_once(emulator):
    client = emulator.client("bedrock-agent")
    clock = Clock()
    with Stubber(client) as stub:
        stub.add_client_error("list_data_sources", "ThrottlingException", http_status_code=429)
        reader = ContentVersions(lambda: client, SqliteStore(":memory:"), "acme", retry_seconds=10, clock=clock)
        with pytest.raises(VersionUnavailable, match="ThrottlingException"):
            reader.versions([DOCS])
        with pytest.raises(VersionUnavailable, match="last version read failed"):
            reader.versions([DOCS])  # within retry_seconds: no second call (the Stubber has none queued)
        stub.assert_no_pending_responses()
