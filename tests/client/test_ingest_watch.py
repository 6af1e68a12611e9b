"""`akb ingest --wait` reads failed documents from the ingestion logs; `akb ingest --status` lists the last
jobs. AWS calls go through botocore's Stubber on real boto3 clients (a stand-in: no AWS account here)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from botocore.stub import Stubber
from click.testing import CliRunner

from client import ingestion_jobs as ingest
from client import ingestion_log_reader as reader
from client.cli import main
from client.commands import ingest as ingest_command
from contract import ingestion_events as events
from schema import load_project
from tests.client.aws_stubs import shared_session
from tests.conftest import EXAMPLE_CONFIG

KB, DS, JOB, OTHER = "KB12345678", "DS12345678", "JOB1234567", "JOB7654321"
GROUP = "/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/akb-dev-acme"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def stubbed():
    session = shared_session()
    clients = {name: session.client(name) for name in ("logs", "ssm", "bedrock-agent")}
    stubbers = {name: Stubber(client) for name, client in clients.items()}
    for stubber in stubbers.values():
        stubber.activate()
    yield clients, stubbers
    for stubber in stubbers.values():
        stubber.assert_no_pending_responses()
        stubber.deactivate()


def _document_event(uri: str, status: str, reasons: list[str], job: str = JOB) -> str:
    """The shape of the Bedrock user guide's knowledge-bases-logging page."""
    return json.dumps(
        {
            "event_timestamp": 1767225600000,
            "event_type": events.RESOURCE_STATUS_CHANGED,
            "event_version": "1.0",
            "level": "ERROR" if "FAILED" in status else "INFO",
            "event": {
                "ingestion_job_id": job,
                "data_source_id": DS,
                "knowledge_base_arn": f"arn:aws:bedrock:us-west-2:123456789012:knowledge-base/{KB}",
                "document_location": {"type": "S3", "s3_location": {"uri": uri}},
                "status": status,
                "status_reasons": reasons,
            },
        }
    )


def _managed_event(document_id: str, status: str) -> str:
    """The shape AWS's managed-knowledge-base sample reads (event.document_id, event.index_status.Status)."""
    return json.dumps(
        {
            "event_type": events.RESOURCE_STATUS_CHANGED,
            "event": {"ingestion_job_id": JOB, "document_id": document_id, "index_status": {"Status": status}},
        }
    )


def test_failed_documents_come_from_the_jobs_log_events_in_either_shape(stubbed):
    clients, stubbers = stubbed
    messages = [
        _document_event("s3://b/docs/ok.md", "INDEXING_COMPLETED", []),
        _document_event("s3://b/docs/scan.pdf", "EMBEDDING_FAILED", ["Unsupported file: encrypted PDF"]),
        _managed_event("docs/table.xlsx", "FAILED"),
        "not json at all",
        json.dumps({"event_type": events.JOB_STATUS_CHANGED, "event": {"ingestion_job_status": "COMPLETE"}}),
    ]
    stubbers["logs"].add_response(
        "filter_log_events",
        {"events": [{"message": m, "timestamp": 1} for m in messages]},
        {"logGroupName": GROUP, "startTime": 1000, "filterPattern": events.job_events_pattern(JOB)},
    )
    documents, note = reader.failed_documents_from_logs(clients["logs"], GROUP, JOB, 1000)
    assert note is None
    assert [(d.document, d.status, d.reasons) for d in documents] == [
        ("s3://b/docs/scan.pdf", "EMBEDDING_FAILED", ("Unsupported file: encrypted PDF",)),
        ("docs/table.xlsx", "FAILED", ()),
    ]


def test_one_failed_event_gives_one_document(stubbed):
    clients, stubbers = stubbed
    stubbers["logs"].add_response(
        "filter_log_events",
        {"events": [{"message": _document_event("s3://b/a.md", "EMBEDDING_FAILED", ["x"])}]},
    )
    documents, _ = reader.failed_documents_from_logs(clients["logs"], GROUP, JOB, 0)
    assert len(documents) == 1


def test_a_missing_log_group_says_delivery_is_off_instead_of_failing(stubbed):
    clients, stubbers = stubbed
    stubbers["logs"].add_client_error("filter_log_events", "ResourceNotFoundException", "no such group")
    documents, note = reader.failed_documents_from_logs(clients["logs"], GROUP, JOB, 0)
    assert documents == [] and "ingestion_logs off" in note


def test_job_filter_pattern_cannot_be_widened_by_a_crafted_job_id():
    assert events.job_events_pattern('JOB" || $.x = "y') == '{ $.event.ingestion_job_id = "JOBxy" }'


def _job(status: str, failed: int) -> dict:
    return {
        "knowledgeBaseId": KB,
        "dataSourceId": DS,
        "ingestionJobId": JOB,
        "status": status,
        "statistics": {
            "numberOfDocumentsScanned": 3,
            "numberOfNewDocumentsIndexed": 3 - failed,
            "numberOfDocumentsFailed": failed,
        },
        "startedAt": NOW,
        "updatedAt": NOW,
    }


def _expect_ids(stubber, alias="docs", index=0, s3=True):
    base = f"/akb/dev/acme/kb/{alias}"
    names = [f"{base}/id", f"{base}/data-source/{index}/id"]
    values = [KB, DS]
    if s3:
        names += [f"{base}/data-source/{index}/bucket", f"{base}/data-source/{index}/prefix"]
        values += ["bucket", "docs/"]
    stubber.add_response(
        "get_parameters",
        {"Parameters": [{"Name": n, "Value": v, "Type": "String"} for n, v in zip(names, values, strict=True)]},
        {"Names": names},
    )


def test_wait_prints_statistics_and_the_failed_documents_from_the_logs_and_is_not_ok(stubbed, capsys):
    clients, stubbers = stubbed
    _expect_ids(stubbers["ssm"])
    stubbers["bedrock-agent"].add_response("start_ingestion_job", {"ingestionJob": _job("STARTING", 0)})
    stubbers["bedrock-agent"].add_response("get_ingestion_job", {"ingestionJob": _job("COMPLETE", 1)})
    stubbers["bedrock-agent"].add_response("list_knowledge_base_documents", {"documentDetails": []})
    seen = []

    def logs_reader(job_id, start_ms):
        seen.append(job_id)
        return [events.FailedDocument("s3://b/docs/scan.pdf", "EMBEDDING_FAILED", ("encrypted PDF",))], None

    target = ingest.resolve_target(load_project(EXAMPLE_CONFIG, "dev"), "acme", "docs", None, needs_s3=False)
    result = ingest_command.run(
        None, clients["ssm"], clients["bedrock-agent"], target, [], interval=0, timeout=60, logs_reader=logs_reader
    )
    out = capsys.readouterr().out
    assert not result.ok and seen == [JOB]
    assert "Job COMPLETE.  scanned 3  added 2  modified 0  deleted 0  failed 1" in out
    assert "1 document(s) not indexed (from the ingestion logs):" in out
    assert "EMBEDDING_FAILED  s3://b/docs/scan.pdf  encrypted PDF" in out


def test_status_lists_each_sources_last_jobs_and_exits_1_when_the_latest_left_documents_out(stubbed, capsys):
    clients, stubbers = stubbed
    project = load_project(EXAMPLE_CONFIG, "dev")
    _expect_ids(stubbers["ssm"])
    stubbers["bedrock-agent"].add_response(
        "list_ingestion_jobs",
        {"ingestionJobSummaries": [_job("COMPLETE", 1), {**_job("COMPLETE", 0), "ingestionJobId": OTHER}]},
        {
            "knowledgeBaseId": KB,
            "dataSourceId": DS,
            "sortBy": {"attribute": "STARTED_AT", "order": "DESCENDING"},
            "maxResults": 3,
        },
    )
    target = ingest.resolve_target(project, "acme", "docs", 0, needs_s3=False)
    assert ingest_command.print_status(clients["ssm"], clients["bedrock-agent"], [target]) == 1
    out = capsys.readouterr().out
    assert "docs source 0 (s3):" in out
    assert f"{JOB}  COMPLETE    2026-01-01T00:00:00+00:00  scanned 3  added 2" in out
    assert out.index(JOB) < out.index(OTHER)


def test_status_of_a_source_without_jobs_says_so(stubbed, capsys):
    clients, stubbers = stubbed
    _expect_ids(stubbers["ssm"])
    stubbers["bedrock-agent"].add_response("list_ingestion_jobs", {"ingestionJobSummaries": []})
    target = ingest.resolve_target(load_project(EXAMPLE_CONFIG, "dev"), "acme", "docs", 0, needs_s3=False)
    assert ingest_command.print_status(clients["ssm"], clients["bedrock-agent"], [target]) == 0
    assert "no ingestion job yet" in capsys.readouterr().out


def test_ingest_without_kb_and_without_status_is_a_usage_error():
    result = CliRunner().invoke(main, ["ingest", "--config", str(EXAMPLE_CONFIG), "--tenant", "acme"])
    assert result.exit_code == 2 and "--kb ALIAS is required" in result.output


def test_status_of_an_unknown_alias_is_named():
    result = CliRunner().invoke(
        main, ["ingest", "--config", str(EXAMPLE_CONFIG), "--tenant", "acme", "--kb", "nope", "--status"]
    )
    assert result.exit_code == 2 and "no knowledge base 'nope'" in result.output
    assert "Traceback" not in result.output
