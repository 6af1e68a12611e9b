"""Ingestion log delivery per knowledge base, over botocore's Stubber: found from the knowledge base's ARN,
then events since the newest ingestion job started; each way it can fail has its case."""

from __future__ import annotations

from datetime import UTC, datetime

from client.doctor.findings import Level
from client.verify import delivery_checks
from tests.client.doctor.scenario import project_with
from tests.client.verify.conftest import parameter, verification

KB_ARN = "arn:aws:bedrock:us-west-2:123456789012:knowledge-base/KBDOCS0001"
STARTED = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _one_kb_project():
    from tests.conftest import example_project

    first = example_project().tenants["acme"].knowledge_bases[0]
    return project_with(acme={"knowledge_bases": [first]}), first


def _deliveries(stubs, *, source: bool = True, delivery: bool = True) -> None:
    sources = [{"name": "akb-dev-acme-docs-ingestion", "resourceArns": [KB_ARN], "logType": "APPLICATION_LOGS"}]
    stubs.respond("logs", "describe_delivery_sources", {"deliverySources": sources if source else []})
    deliveries = [{"id": "d1", "deliverySourceName": "akb-dev-acme-docs-ingestion", "deliveryDestinationArn": "x"}]
    stubs.respond("logs", "describe_deliveries", {"deliveries": deliveries if delivery else []})


def _jobs(stubs, alias: str, started: datetime | None) -> None:
    parameter(stubs, "acme", f"kb/{alias}/id", "KBDOCS0001")
    parameter(stubs, "acme", f"kb/{alias}/data-source/0/id", "DS00000001")
    summary = {
        "knowledgeBaseId": "KBDOCS0001",
        "dataSourceId": "DS00000001",
        "ingestionJobId": "J1",
        "status": "COMPLETE",
        "startedAt": started,
        "updatedAt": started,
    }
    stubs.respond("bedrock-agent", "list_ingestion_jobs", {"ingestionJobSummaries": [summary] if started else []})


AN_HOUR_LATER = STARTED.timestamp() + 3600


def _run(stubs, *, events: bool | None, started=STARTED, now=AN_HOUR_LATER, **delivery):
    project, kb = _one_kb_project()
    _deliveries(stubs, **delivery)
    parameter(stubs, "acme", f"kb/{kb.alias}/arn", KB_ARN)
    if delivery.get("source", True) and delivery.get("delivery", True):
        _jobs(stubs, kb.alias, started)
    if events is not None:
        found = [{"message": "{}", "timestamp": 1}] if events else []
        stubs.respond("logs", "filter_log_events", {"events": found})
    [finding] = delivery_checks.check_ingestion_logs(verification(stubs, project=project, clock=lambda: now), "acme")
    stubs.assert_all_used()
    return finding


def test_a_delivery_with_events_after_the_last_ingestion_is_ok(stubs):
    finding = _run(stubs, events=True)
    assert finding.level is Level.OK and "2026-11-30 12:00" in finding.message


def test_a_delivery_without_events_since_an_old_ingestion_fails_pointing_at_the_resource_policy(stubs):
    finding = _run(stubs, events=False)
    assert finding.level is Level.FAIL and "delivery.logs.amazonaws.com" in finding.message


def test_a_recent_ingestion_without_events_only_warns(stubs):
    assert _run(stubs, events=False, now=STARTED.timestamp() + 60).level is Level.WARN


def test_no_delivery_source_for_the_knowledge_base_fails(stubs):
    finding = _run(stubs, events=None, source=False)
    assert finding.level is Level.FAIL and "ingestion_logs: true" in finding.message


def test_a_source_that_delivers_nowhere_fails(stubs):
    assert _run(stubs, events=None, delivery=False).level is Level.FAIL


def test_no_ingestion_yet_warns_with_the_command_to_run(stubs):
    finding = _run(stubs, events=None, started=None)
    assert finding.level is Level.WARN and "akb ingest" in finding.message
