"""`akb ingest`: target resolution, upload planning, and the AWS calls in order.

The AWS calls are exercised with botocore's Stubber on real boto3 clients (a stand-in: there is no
AWS account here), so request shapes are validated against the service models, but nothing is sent.
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime

import pytest
from botocore.stub import ANY, Stubber
from click.testing import CliRunner

from client import ingestion_jobs as ingest
from client.cli import main
from client.commands import ingest as ingest_command
from client.exit_codes import ExitCode
from tests.client.aws_stubs import shared_session
from tests.conftest import EXAMPLE_CONFIG, example_project

KB, DS, JOB, BUCKET = "KB12345678", "DS12345678", "JOB1234567", "akb-dev-acme-documents"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def clients():
    session = shared_session()
    made = {name: session.client(name) for name in ("s3", "ssm", "bedrock-agent")}
    stubbers = {name: Stubber(client) for name, client in made.items()}
    for stubber in stubbers.values():
        stubber.activate()
    yield made, stubbers
    for stubber in stubbers.values():
        stubber.deactivate()


@pytest.fixture
def documents(tmp_path):
    root = tmp_path / "docs"
    (root / "guides").mkdir(parents=True)
    (root / "intro.md").write_text("# Intro")
    (root / "guides" / "setup.txt").write_text("setup")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref")
    return root


def _target(alias="docs", source=None, needs_s3=True) -> ingest.Target:
    return ingest.resolve_target(example_project(), "acme", alias, source, needs_s3=needs_s3)


def _job(status: str, failed: int = 0, reasons=()) -> dict:
    return {
        "ingestionJob": {
            "knowledgeBaseId": KB,
            "dataSourceId": DS,
            "ingestionJobId": JOB,
            "status": status,
            "statistics": {
                "numberOfDocumentsScanned": 2,
                "numberOfNewDocumentsIndexed": 2 - failed,
                "numberOfDocumentsFailed": failed,
            },
            "failureReasons": list(reasons),
            "startedAt": NOW,
            "updatedAt": NOW,
        }
    }


def _expect_parameters(stubber, prefix="docs/"):
    base = "/akb/dev/acme/kb/docs"
    names = [f"{base}/id", f"{base}/data-source/0/id", f"{base}/data-source/0/bucket", f"{base}/data-source/0/prefix"]
    values = [KB, DS, BUCKET, prefix]
    stubber.add_response(
        "get_parameters",
        {"Parameters": [{"Name": n, "Value": v, "Type": "String"} for n, v in zip(names, values, strict=True)]},
        {"Names": names},
    )


def _expect_job(stubbers, uploads: list[str], statuses: list[tuple[str, int]]):
    for key in uploads:
        stubbers["s3"].add_response("put_object", {}, {"Bucket": BUCKET, "Key": key, "Body": ANY, "ContentType": ANY})
    stubbers["bedrock-agent"].add_response(
        "start_ingestion_job",
        _job("STARTING"),
        {"knowledgeBaseId": KB, "dataSourceId": DS, "clientToken": ANY, "description": ANY},
    )
    for status, failed in statuses:
        stubbers["bedrock-agent"].add_response(
            "get_ingestion_job",
            _job(status, failed),
            {"knowledgeBaseId": KB, "dataSourceId": DS, "ingestionJobId": JOB},
        )


# --- which data source ------------------------------------------------------------------------


def test_an_alias_with_one_s3_source_needs_no_source_index():
    target = _target("tickets")  # s3 + web: only one can take uploads
    assert (target.source_index, target.source_type, target.prefix) == (0, "s3", "tickets/")


def test_a_sync_of_an_alias_with_several_sources_asks_which_one():
    with pytest.raises(ingest.IngestError, match=r"several sources \(0: s3, 1: web\); choose one with --source N"):
        _target("tickets", needs_s3=False)
    assert _target("tickets", source=1, needs_s3=False).source_type == "web"


def test_uploading_to_a_connector_source_is_refused_with_the_alternative():
    with pytest.raises(ingest.IngestError, match="is web, not s3"):
        _target("tickets", source=1)
    project = example_project()
    with pytest.raises(ingest.IngestError, match=r"has no s3 source.*run without PATH to start a sync"):
        ingest.resolve_target(project, "globex", "wiki", None, needs_s3=True)


@pytest.mark.parametrize(
    ("tenant", "alias", "source", "message"),
    [
        ("initech", "docs", None, "tenant 'initech' is not deployed in environment dev"),
        ("acme", "wiki", None, "tenant acme has no knowledge base 'wiki' (aliases: docs, tickets)"),
        ("acme", "docs", 3, "--source must be 0-0"),
    ],
)
def test_unknown_targets_are_named_with_what_exists(tenant, alias, source, message):
    with pytest.raises(ingest.IngestError, match=re.escape(message)):
        ingest.resolve_target(example_project(), tenant, alias, source, needs_s3=True)


# --- which files --------------------------------------------------------------------------------


def test_directories_keep_relative_paths_under_the_prefix_and_skip_dotfiles(documents):
    single = documents / "intro.md"
    uploads = ingest.plan_uploads([documents / "guides", single], "docs/")
    assert [u.key for u in uploads] == ["docs/setup.txt", "docs/intro.md"]
    assert [u.key for u in ingest.plan_uploads([documents], "docs/")] == ["docs/guides/setup.txt", "docs/intro.md"]


def test_two_files_with_the_same_key_are_refused(documents):
    with pytest.raises(ingest.IngestError, match=r"would both be uploaded as docs/intro\.md"):
        ingest.plan_uploads([documents / "intro.md", documents / "intro.md"], "docs/")


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(ingest.IngestError, match=r"nope\.md: no such file or directory"):
        ingest.plan_uploads([tmp_path / "nope.md"], "docs/")


# --- the AWS calls (Stubber) -------------------------------------------------------------------


def test_identifiers_come_from_the_published_ssm_parameters(clients):
    made, stubbers = clients
    _expect_parameters(stubbers["ssm"])
    assert ingest.read_deployed(made["ssm"], _target()) == ingest.Deployed(KB, DS, BUCKET, "docs/")
    stubbers["ssm"].assert_no_pending_responses()


def test_missing_parameters_point_at_the_stack_to_deploy(clients):
    made, stubbers = clients
    stubbers["ssm"].add_response("get_parameters", {"Parameters": [], "InvalidParameters": ["x"]}, None)
    with pytest.raises(ingest.IngestError, match=r"/akb/dev/acme/kb/docs/id.*is stack dev-acme deployed"):
        ingest.read_deployed(made["ssm"], _target())


def test_a_prefix_that_differs_from_the_deployed_one_stops_before_uploading(clients):
    made, stubbers = clients
    _expect_parameters(stubbers["ssm"], prefix="old-docs/")
    with pytest.raises(ingest.IngestError, match="deploy the stack first"):
        ingest.read_deployed(made["ssm"], _target())


def test_upload_then_ingest_then_follow_until_complete(clients, documents, capsys):
    made, stubbers = clients
    _expect_parameters(stubbers["ssm"])
    _expect_job(stubbers, ["docs/guides/setup.txt", "docs/intro.md"], [("IN_PROGRESS", 0), ("COMPLETE", 0)])
    uploads = ingest.plan_uploads([documents], "docs/")
    result = ingest_command.run(
        made["s3"], made["ssm"], made["bedrock-agent"], _target(), uploads, interval=0, timeout=60, sleep=lambda _: None
    )
    assert result.ok and result.status == "COMPLETE"
    for stubber in stubbers.values():
        stubber.assert_no_pending_responses()
    out = capsys.readouterr().out
    assert f"Uploading 2 file(s) to s3://{BUCKET}/docs/" in out
    assert out.index("IN_PROGRESS") < out.index("COMPLETE")


def test_failed_documents_are_listed_with_their_reason(clients, documents, capsys):
    made, stubbers = clients
    _expect_parameters(stubbers["ssm"])
    _expect_job(stubbers, ["docs/intro.md"], [("COMPLETE", 1)])
    failed = {
        "knowledgeBaseId": KB,
        "dataSourceId": DS,
        "status": "FAILED",
        "statusReason": "Unsupported file type",
        "identifier": {"dataSourceType": "S3", "s3": {"uri": f"s3://{BUCKET}/docs/intro.md"}},
        "updatedAt": NOW,
    }
    indexed = {
        **failed,
        "status": "INDEXED",
        "statusReason": "",
        "identifier": {"dataSourceType": "S3", "s3": {"uri": f"s3://{BUCKET}/docs/ok.md"}},
    }
    stubbers["bedrock-agent"].add_response(
        "list_knowledge_base_documents",
        {"documentDetails": [indexed, failed]},
        {"knowledgeBaseId": KB, "dataSourceId": DS},
    )
    result = ingest_command.run(
        made["s3"],
        made["ssm"],
        made["bedrock-agent"],
        _target(),
        ingest.plan_uploads([documents / "intro.md"], "docs/"),
        interval=0,
        timeout=60,
        sleep=lambda _: None,
    )
    assert not result.ok
    assert result.failed_documents == [failed]
    assert f"FAILED  s3://{BUCKET}/docs/intro.md  Unsupported file type" in capsys.readouterr().out


def test_when_documents_cannot_be_listed_the_job_reasons_still_show(clients):
    made, stubbers = clients
    stubbers["bedrock-agent"].add_client_error(
        "list_knowledge_base_documents", "ValidationException", "not supported for this connector"
    )
    documents, note = ingest.failed_documents(made["bedrock-agent"], ingest.Deployed(KB, DS))
    assert documents == [] and "ValidationException" in note and "failureReasons" in note


def test_following_stops_at_the_timeout_and_says_the_job_keeps_running(clients):
    made, stubbers = clients
    for _ in range(3):
        stubbers["bedrock-agent"].add_response("get_ingestion_job", _job("IN_PROGRESS"), None)
    ticks = iter([0, 10, 20, 30])
    result = ingest.follow_job(
        made["bedrock-agent"],
        ingest.Deployed(KB, DS),
        JOB,
        on_update=lambda _: None,
        interval=10,
        timeout=25,
        sleep=lambda _: None,
        clock=lambda: next(ticks),
    )
    assert result.status == "IN_PROGRESS" and not result.ok and "keeps running" in result.note


# --- the command line ---------------------------------------------------------------------------


def test_dry_run_prints_the_plan_without_calling_aws(documents, monkeypatch):
    monkeypatch.setattr(ingest, "make_clients", lambda region: pytest.fail("dry run must not create clients"))
    result = _ingest("--dry-run", str(documents))
    assert result.exit_code == 0, result.output
    assert "/akb/dev/acme/kb/docs/data-source/0/bucket" in result.output
    assert f"{documents / 'intro.md'} -> docs/intro.md" in result.output
    assert "region us-west-2" in result.output


def test_command_exits_6_when_the_job_failed(clients, documents, monkeypatch):
    made, stubbers = clients
    monkeypatch.setattr(ingest, "make_clients", lambda region: (made["s3"], made["ssm"], made["bedrock-agent"]))
    _expect_parameters(stubbers["ssm"])
    _expect_job(stubbers, ["docs/intro.md"], [("FAILED", 0)])
    result = _ingest("--interval", "0", str(documents / "intro.md"))
    assert result.exit_code == ExitCode.CHECKS_FAILED and "Job FAILED." in result.output


def test_bad_input_is_one_line_without_a_stack_trace(tmp_path):
    result = _ingest(str(tmp_path / "missing"))
    assert result.exit_code == 1
    assert "no such file or directory" in result.output and "Traceback" not in result.output


def _ingest(*args):
    """`akb ingest --env dev --tenant acme --kb docs --config <example> ARGS...`"""
    return CliRunner().invoke(
        main,
        ["ingest", "--env", "dev", "--tenant", "acme", "--kb", "docs", "--config", str(EXAMPLE_CONFIG), *args],
    )


def _dry_run(*paths):
    return _ingest("--dry-run", *map(str, paths))


# Tests run as root here, and root reads a chmod 000 file: unreadable files are made with a broken
# symbolic link and with /proc/self/mem (a regular file whose first byte fails with EIO even for root).
def test_dry_run_reports_each_unreadable_file_on_its_own_line_and_plans_nothing(documents):
    (documents / "gone.md").symlink_to(documents / "deleted.md")
    (documents / "guides" / "mem.md").symlink_to("/proc/self/mem")
    result = _dry_run(documents)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "Plan (dry run" not in result.output
    lines = result.output.strip().splitlines()
    assert lines == [
        f"akb ingest: {documents / 'gone.md'}: cannot read (broken symbolic link to {documents / 'deleted.md'})",
        f"akb ingest: {documents / 'guides' / 'mem.md'}: cannot read (Input/output error)",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod 000 files; covered above with other unreadable files")
def test_dry_run_reports_a_file_without_read_permission(documents):
    locked = documents / "intro.md"
    locked.chmod(0)
    result = _dry_run(locked)
    assert result.exit_code == 1 and f"{locked}: cannot read (Permission denied)" in result.output


def test_readable_files_are_planned_as_before(documents):
    result = _dry_run(documents)
    assert result.exit_code == 0 and f"{documents / 'guides' / 'setup.txt'} -> docs/guides/setup.txt" in result.output
