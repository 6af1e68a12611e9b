"""`make scan`'s triage: every checkov finding is fixed or skipped with a reason listed in docs/security.md."""

from __future__ import annotations

import pytest

from security.checkov_scan import Finding, Skip, failed_checks, load_skips, triage
from tests.conftest import REPO

ENDPOINT = "AWS::Lambda::Function.EndpointFunction897CE2B6"


def test_every_skip_has_a_reason_and_is_listed_in_docs_security():
    security = (REPO / "docs" / "security.md").read_text()
    skips = load_skips()
    assert skips
    for skip in skips:
        assert len(skip.reason) > 40, skip
        logical_id = skip.resource.split(".", 1)[1]
        assert f"| {skip.check_id} | `{logical_id}` |" in security, f"docs/security.md does not list {skip}"


def test_a_skip_without_a_reason_is_an_error(tmp_path):
    path = tmp_path / "skips.yaml"
    path.write_text(f"- check: CKV_AWS_116\n  resource: {ENDPOINT}\n  reason: ' '\n")
    with pytest.raises(ValueError, match="non-empty reason"):
        load_skips(path)


def test_triage_reports_unexplained_findings_and_stale_skips():
    dlq = Finding("CKV_AWS_116", "DLQ", ENDPOINT, "dev-acme.template.json")
    vpc = Finding("CKV_AWS_117", "VPC", ENDPOINT, "dev-acme.template.json")
    skips = [Skip("CKV_AWS_116", ENDPOINT, "sync only"), Skip("CKV_AWS_21", "AWS::S3::Bucket.Gone*", "old")]
    unexplained, unused = triage([dlq, vpc], skips)
    assert unexplained == [vpc]
    assert unused == [skips[1]]


def test_a_skip_names_one_check_on_matching_resources_only():
    skip = Skip("CKV_AWS_116", "AWS::Lambda::Function.Endpoint*", "sync only")
    assert skip.matches(Finding("CKV_AWS_116", "", ENDPOINT, "t"))
    assert not skip.matches(Finding("CKV_AWS_117", "", ENDPOINT, "t"))
    assert not skip.matches(Finding("CKV_AWS_116", "", "AWS::Lambda::Function.Other", "t"))


def test_failed_checks_are_read_from_a_report_with_one_or_several_frameworks():
    # The shape of `checkov -o json` (results.failed_checks[] with check_id, check_name, resource, file_path).
    part = {
        "check_type": "cloudformation",
        "results": {
            "failed_checks": [
                {"check_id": "CKV_AWS_116", "check_name": "DLQ", "resource": ENDPOINT, "file_path": "/a.json"}
            ],
            "passed_checks": [],
        },
    }
    assert failed_checks(part) == failed_checks([part, {"check_type": "secrets", "results": {}}])
    (finding,) = failed_checks(part)
    assert (finding.check_id, finding.resource) == ("CKV_AWS_116", ENDPOINT)
