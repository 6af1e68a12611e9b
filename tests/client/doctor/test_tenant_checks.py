"""Stack status, retrieval instruction review and last ingestion jobs: each check both ways."""

from __future__ import annotations

from datetime import UTC, datetime

from client.doctor import tenant_checks as checks
from client.doctor.findings import CallFailed, Level
from tests.client.doctor.scenario import checkup

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
PREFIX = "/akb/dev/acme"
INSTRUCTION_ID = "abcde12345"
# acme: docs (one s3 source), tickets (an s3 and a web source)
SOURCES = [
    ("docs", 0, "KBDOCS0001", "DSDOCS0001"),
    ("tickets", 0, "KBTICK0001", "DSTICK0001"),
    ("tickets", 1, "KBTICK0001", "DSTICK0002"),
]


def _stack(stubs, status: str | None, name: str = "dev-acme") -> None:
    if status is None:
        stubs.error(
            "cloudformation",
            "describe_stacks",
            "ValidationError",
            message=f"Stack with id {name} does not exist",
            params={"StackName": name},
        )
    else:
        stubs.respond(
            "cloudformation",
            "describe_stacks",
            {"Stacks": [{"StackName": name, "StackStatus": status, "CreationTime": NOW}]},
            {"StackName": name},
        )


def _parameters(stubs, *, instruction: bool = True, drop: str | None = None) -> None:
    values = {f"{PREFIX}/instruction/id": INSTRUCTION_ID} if instruction else {}
    for alias, index, kb, ds in SOURCES:
        values[f"{PREFIX}/kb/{alias}/id"] = kb
        values[f"{PREFIX}/kb/{alias}/data-source/{index}/id"] = ds
    values.pop(drop or "", None)
    parameters = [{"Name": n, "Value": v, "Type": "String"} for n, v in values.items()]
    stubs.respond(
        "ssm",
        "get_parameters_by_path",
        {"Parameters": parameters[:4], "NextToken": "next"},
        {"Path": PREFIX, "Recursive": True},
    )
    stubs.respond(
        "ssm",
        "get_parameters_by_path",
        {"Parameters": parameters[4:]},
        {"Path": PREFIX, "Recursive": True, "NextToken": "next"},
    )


def _deployed(stubs, status: str = "UPDATE_COMPLETE"):
    c = checkup(stubs)
    _stack(stubs, status)
    list(checks.check_tenant_stack(c, "acme"))
    return c


def test_a_tenant_not_deployed_yet_is_ok_and_nothing_else_is_read(stubs):
    c = checkup(stubs)
    _stack(stubs, None)
    [finding] = checks.check_tenant_stack(c, "acme")
    assert finding.level is Level.OK and "not deployed yet" in finding.message
    assert list(checks.check_retrieval_instruction(c, "acme")) == []
    assert list(checks.check_ingestion(c, "acme")) == []
    assert set(stubs.clients) == {"cloudformation"}


def test_stack_statuses_map_to_levels_with_the_fix():
    cases = {
        "CREATE_COMPLETE": Level.OK,
        "UPDATE_COMPLETE": Level.OK,
        "UPDATE_IN_PROGRESS": Level.WARN,
        "UPDATE_ROLLBACK_COMPLETE": Level.WARN,
        "ROLLBACK_COMPLETE": Level.FAIL,
        "UPDATE_ROLLBACK_FAILED": Level.FAIL,
        "DELETE_FAILED": Level.FAIL,
    }
    for status, level in cases.items():
        finding = checks.status_finding("dev-acme", status)
        assert finding.level is level, status
    assert "delete it" in checks.status_finding("dev-acme", "ROLLBACK_COMPLETE").message
    assert "continue-update-rollback" in checks.status_finding("dev-acme", "UPDATE_ROLLBACK_FAILED").message


def test_the_platform_stack_is_checked_too(stubs):
    _stack(stubs, "CREATE_COMPLETE", "dev-platform")
    [finding] = checks.check_platform_stack(checkup(stubs))
    assert finding.level is Level.OK and "dev-platform" in finding.message


def test_a_stack_that_failed_creation_reads_no_resources(stubs):
    c = _deployed(stubs, "ROLLBACK_COMPLETE")
    assert list(checks.check_ingestion(c, "acme")) == []


def _instruction(status: str, last: str, reasons=None) -> dict:
    found = {
        "retrievalInstructionId": INSTRUCTION_ID,
        "retrievalInstructionArn": f"arn:aws:bedrock:us-west-2:123456789012:retrieval-instruction/{INSTRUCTION_ID}",
        "name": "akb-dev-acme",
        "status": status,
        "lastTransitionStatus": last,
        "createdAt": NOW,
        "updatedAt": NOW,
    }
    if reasons:
        found["lastTransitionStatusReasons"] = reasons
    return found


def test_an_active_instruction_passes(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    stubs.respond(
        "bedrock-agent",
        "get_retrieval_instruction",
        _instruction("ACTIVE", "CREATE_SUCCESSFUL"),
        {"retrievalInstructionId": INSTRUCTION_ID},
    )
    [finding] = checks.check_retrieval_instruction(c, "acme")
    assert finding.level is Level.OK and "ACTIVE" in finding.message
    stubs.assert_all_used()


def test_an_instruction_under_review_warns_that_requests_fail_until_active(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    stubs.respond("bedrock-agent", "get_retrieval_instruction", _instruction("INACTIVE", "CREATING"))
    [finding] = checks.check_retrieval_instruction(c, "acme")
    assert finding.level is Level.WARN and "requests fail until it is ACTIVE" in finding.message


def test_a_rejected_instruction_fails_with_the_reasons_without_foreign_arns(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    reasons = [
        {"fieldName": "persona", "code": "CONTENT_REJECTED", "message": "persona is not allowed"},
        {"code": "CLIENT_ERROR", "message": "key arn:aws:kms:us-west-2:999999999999:key/abc is disabled"},
    ]
    stubs.respond("bedrock-agent", "get_retrieval_instruction", _instruction("INACTIVE", "CREATE_FAILED", reasons))
    [finding] = checks.check_retrieval_instruction(c, "acme")
    assert finding.level is Level.FAIL
    assert "persona: CONTENT_REJECTED persona is not allowed" in finding.message
    assert "999999999999" not in finding.message and "arn:aws:kms" not in finding.message
    assert "config/tenants/acme.yaml" in finding.message


def test_an_active_instruction_whose_update_was_rejected_warns(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    stubs.respond(
        "bedrock-agent",
        "get_retrieval_instruction",
        _instruction(
            "ACTIVE", "UPDATE_FAILED", [{"fieldName": "answerPolicy", "code": "CONTENT_REJECTED", "message": "no"}]
        ),
    )
    [finding] = checks.check_retrieval_instruction(c, "acme")
    assert finding.level is Level.WARN and "previous content" in finding.message


def test_a_missing_instruction_parameter_fails_naming_it(stubs):
    c = _deployed(stubs)
    _parameters(stubs, instruction=False)
    [finding] = checks.check_retrieval_instruction(c, "acme")
    assert finding.level is Level.FAIL and f"{PREFIX}/instruction/id not found" in finding.message


def _jobs(stubs, *summaries: dict, params=None) -> None:
    stubs.respond("bedrock-agent", "list_ingestion_jobs", {"ingestionJobSummaries": list(summaries)}, params)


def _job(kb: str, ds: str, status: str, failed: int = 0) -> dict:
    return {
        "knowledgeBaseId": kb,
        "dataSourceId": ds,
        "ingestionJobId": "JOB0000001",
        "status": status,
        "startedAt": NOW,
        "updatedAt": NOW,
        "statistics": {"numberOfNewDocumentsIndexed": 7, "numberOfDocumentsFailed": failed},
    }


def test_each_source_reports_its_last_job_newest_first(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    for _alias, _index, kb, ds in SOURCES:
        params = {
            "knowledgeBaseId": kb,
            "dataSourceId": ds,
            "maxResults": 1,
            "sortBy": {"attribute": "STARTED_AT", "order": "DESCENDING"},
        }
        _jobs(stubs, _job(kb, ds, "COMPLETE"), params=params)
    findings = list(checks.check_ingestion(c, "acme"))
    assert [f.level for f in findings] == [Level.OK] * 3
    assert "acme/tickets source 1 (web)" in findings[2].message and "2026-01-01 12:00 UTC" in findings[2].message
    stubs.assert_all_used()


def test_never_ingested_failed_and_partial_jobs_are_reported(stubs):
    c = _deployed(stubs)
    _parameters(stubs)
    _jobs(stubs)  # docs: never ingested
    _jobs(stubs, _job("KBTICK0001", "DSTICK0001", "FAILED"))
    _jobs(stubs, _job("KBTICK0001", "DSTICK0002", "COMPLETE", failed=2))
    never, failed, partial = checks.check_ingestion(c, "acme")
    assert never.level is Level.WARN and "akb ingest --env dev --tenant acme --kb docs --source 0" in never.message
    assert failed.level is Level.FAIL and "get-ingestion-job" in failed.message
    assert partial.level is Level.WARN and "2 failed documents" in partial.message


def test_a_running_job_warns(stubs):
    finding = checks.job_finding(
        checkup(stubs), "acme", "acme/docs source 0 (s3)", "docs", 0, _job("K", "D", "IN_PROGRESS")
    )
    assert finding.level is Level.WARN and "IN_PROGRESS" in finding.message


def test_a_missing_data_source_parameter_fails_for_that_source_only(stubs):
    c = _deployed(stubs)
    _parameters(stubs, drop=f"{PREFIX}/kb/docs/data-source/0/id")
    _jobs(stubs, _job("KBTICK0001", "DSTICK0001", "COMPLETE"))
    _jobs(stubs, _job("KBTICK0001", "DSTICK0002", "COMPLETE"))
    missing, *rest = checks.check_ingestion(c, "acme")
    assert missing.level is Level.FAIL and "kb/docs/data-source/0/id not found" in missing.message
    assert [f.level for f in rest] == [Level.OK, Level.OK]


def test_stack_access_denied_reaches_the_runner_with_the_action(stubs):
    stubs.error("cloudformation", "describe_stacks", "AccessDenied", status=403)
    try:
        list(checks.check_tenant_stack(checkup(stubs), "acme"))
    except CallFailed as failure:
        assert failure.action == "cloudformation:DescribeStacks"
    else:
        raise AssertionError("expected CallFailed")
