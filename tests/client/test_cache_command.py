"""`akb cache stats|flush` and the versions `akb ingest` publishes, on the SQLite store `akb local` uses."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner

from client import cache_admin
from client.cli import main
from client.commands import ingest as ingest_command
from client.ingestion_jobs import JobResult
from lambdas.endpoint.cache.store import SqliteStore
from tests.children import wait_until
from tests.conftest import EXAMPLE_CONFIG, example_project


@pytest.fixture
def local_store(tmp_path, monkeypatch) -> SqliteStore:
    monkeypatch.setenv(cache_admin.LOCAL_CACHE_DIR_ENV, str(tmp_path))
    return SqliteStore(cache_admin.local_cache_path("dev", "acme"))


def _cache(*args):
    return CliRunner().invoke(main, ["cache", *args, "--env", "dev", "--config", str(EXAMPLE_CONFIG), "--local"])


def test_stats_show_entries_hit_rate_and_published_versions(local_store):
    local_store.put("acme", "k1", "x" * 40, time.time() + 60, ["docs", "tickets"])
    for counter in ("hits", "hits", "hits", "misses"):
        local_store.count("acme", counter)
    cache_admin.publish_direct_version(local_store, "acme", "KB12345678", "DS12345678")
    result = _cache("stats", "--tenant", "acme")
    assert result.exit_code == 0, result.output
    assert "1 live, 0 expired, 40 bytes" in result.output
    assert "hit rate       75.0% (3 hits, 1 misses)" in result.output
    assert "published      KB12345678/DS12345678: job direct-" in result.output


def test_flush_by_knowledge_base_then_all(local_store):
    local_store.put("acme", "docs", "1", time.time() + 60, ["docs"])
    local_store.put("acme", "tickets", "2", time.time() + 60, ["tickets"])
    result = _cache("flush", "--tenant", "acme", "--kb", "docs")
    assert result.exit_code == 0 and "Flushed 1 entry of dev/acme (docs)" in result.output
    assert local_store.get("acme", "docs") is None and local_store.get("acme", "tickets") == "2"
    assert (
        "Flushed 1 entry" in _cache("flush", "--tenant", "acme").output and local_store.get("acme", "tickets") is None
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (["stats", "--tenant", "globex"], "tenant globex has no `cache:` block"),
        (["stats", "--tenant", "nobody"], "tenant 'nobody' is not deployed in environment dev"),
        (
            ["flush", "--tenant", "acme", "--kb", "wiki"],
            "tenant acme has no knowledge base 'wiki' (aliases: docs, tickets)",
        ),
    ],
)
def test_mistakes_are_one_line_naming_what_exists(local_store, args, message):
    result = _cache(*args)
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output


def test_akb_ingest_publishes_a_completed_jobs_version_and_not_a_failed_one(local_store, monkeypatch):
    from datetime import UTC, datetime

    job = {"knowledgeBaseId": "KB12345678", "dataSourceId": "DS12345678", "ingestionJobId": "JOB1234567"}
    job["updatedAt"] = datetime(2026, 6, 1, tzinfo=UTC)
    published = []

    def follow(status):
        deployed = ingest_command.ingest.Deployed("KB12345678", "DS12345678")
        monkeypatch.setattr(ingest_command.ingest, "read_deployed", lambda ssm, target: deployed)
        monkeypatch.setattr(ingest_command.ingest, "start_job", lambda agent, deployed, description: "JOB1234567")
        monkeypatch.setattr(
            ingest_command.ingest, "follow_job", lambda *args, **kwargs: JobResult({**job, "status": status})
        )
        target = ingest_command.ingest.resolve_target(example_project(), "acme", "docs", None, needs_s3=False)

        def publish(finished):
            published.append(finished["ingestionJobId"])
            return cache_admin.publish_job_version(local_store, "acme", finished)

        return ingest_command.run(None, None, None, target, [], interval=0, timeout=1, publish=publish)

    follow("FAILED")
    assert published == [] and local_store.version_marks("acme") == []
    follow("COMPLETE")
    (mark,) = local_store.version_marks("acme")
    assert published == ["JOB1234567"] and (mark.job_id, mark.updated_at) == (
        "JOB1234567",
        job["updatedAt"].timestamp(),
    )


def test_direct_ingestion_bumps_the_version_itself(local_store):
    first = cache_admin.publish_direct_version(local_store, "acme", "KB12345678", "DS12345678")
    wait_until(lambda: time.time() > first.updated_at, "the clock to pass the first version's time")
    second = cache_admin.publish_direct_version(local_store, "acme", "KB12345678", "DS12345678")
    assert second.updated_at > first.updated_at and local_store.version_marks("acme") == [second]
