"""`akb eval` end to end: real endpoint (uvicorn) + emulator, real client, table, JSON and PNGs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from client.commands.eval import command
from schema.eval_dataset import load_dataset
from tests.conftest import REPO

SAMPLE = REPO / "local" / "eval" / "sample.jsonl"
# gold only in docs/ and tickets/: the session endpoint's two knowledge bases
SLICE = ("s01", "m03", "m04", "c04", "u01")


@pytest.fixture
def small_dataset(tmp_path):
    lines = [line for line in SAMPLE.read_text().splitlines() if json.loads(line)["id"] in SLICE]
    path = tmp_path / "slice.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_eval(*args: str):
    result = CliRunner().invoke(command, list(args), catch_exceptions=False, terminal_width=200)
    return result


def test_eval_of_five_questions_in_three_modes_writes_table_json_and_charts(endpoint, small_dataset, tmp_path):
    out = tmp_path / "out"
    result = run_eval(
        "--dataset", str(small_dataset), "--url", endpoint.url, "--out", str(out), "--k", "5,10", "--concurrency", "3"
    )
    assert result.exit_code == 0, result.output
    for text in (
        "Retrieval quality by mode (5 questions)",
        "Cost and latency by mode",
        "Recall@5 by type",
        "Recall@5 by hops",
        "auto routed:",
    ):
        assert text in result.output

    report = json.loads((out / "report.json").read_text())
    assert report["modes"] == ["agentic", "retrieve", "auto"] and report["questions"] == 5
    for mode in report["modes"]:
        summary = report["overall"][mode]
        assert summary["errors"] == 0 and summary["answerable"] == 4 and summary["unanswerable"] == 1
        assert 0 < summary["recall"]["10"] <= 1 and summary["costUsdPerQuestion"] > 0
    assert report["overall"]["retrieve"]["iterations"] == 0
    assert report["overall"]["agentic"]["costUsdPerQuestion"] > report["overall"]["retrieve"]["costUsdPerQuestion"]
    assert sum(report["routedTo"]["auto"].values()) == 5
    assert set(report["byType"]) == {"single", "multi-hop", "comparison", "unanswerable"}

    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 15
    retrieve_s01 = next(r for r in records if r["id"] == "s01" and r["mode"] == "retrieve")
    assert retrieve_s01["documents"][0] == "docs/api/authentication.md" and retrieve_s01["gold_ranks"] == [1]
    assert retrieve_s01["answer"] is None and "no generated answer" in retrieve_s01["note"]
    assert all(r["routing"].startswith("auto -> ") for r in records if r["mode"] == "auto")
    for chart in ("recall_by_hops.png", "cost_vs_recall.png"):
        assert (out / chart).read_bytes()[:4] == b"\x89PNG"

    again = run_eval("--dataset", str(small_dataset), "--url", endpoint.url, "--out", str(out))
    assert again.exit_code == 0 and "resuming: 15 of 15" in again.output
    assert len((out / "records.jsonl").read_text().splitlines()) == 15  # nothing asked twice


def test_eval_local_starts_and_stops_its_own_emulator_and_endpoint_process(small_dataset, tmp_path):
    out = tmp_path / "local"
    result = run_eval(
        "--dataset", str(small_dataset), "--local", "--modes", "retrieve", "--limit", "2", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    assert "local emulator numbers" in result.output
    report = json.loads((out / "report.json").read_text())
    assert report["questions"] == 2 and "disclaimer" in report and "local emulator" in report["target"]
    assert report["overall"]["retrieve"]["errors"] == 0
    log = (out / "endpoint.log").read_text()
    assert '"stop_reason"' in log  # the endpoint's own done record, kept out of the terminal


def test_eval_local_with_a_tenant_whose_documents_carry_acls_answers_as_a_vouched_caller(small_dataset, tmp_path):
    # acme has user_context: caller; an unvouched caller would get 403 user_identity_unverified on every question
    out = tmp_path / "acme"
    flags = ["--local", "--tenant", "acme", "--modes", "retrieve", "--limit", "2"]
    result = run_eval("--dataset", str(small_dataset), *flags, "--out", str(out))
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2 and all(r["error"] is None for r in records), records
    assert any(r["documents"] for r in records)


def test_a_broken_dataset_is_reported_by_line_and_field_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "type": "single"}\n{"question": "", "type": "x"}\n')
    result = run_eval("--dataset", str(bad), "--url", "http://127.0.0.1:9")
    assert result.exit_code == 1
    assert "bad.jsonl:1: documents: an answerable question needs gold evidence" in result.output
    assert "bad.jsonl:2: question: required" in result.output and "Traceback" not in result.output


def test_an_unreachable_endpoint_fails_every_record_and_exits_1(small_dataset, tmp_path):
    result = run_eval(
        "--dataset",
        str(small_dataset),
        "--url",
        "http://127.0.0.1:9",
        "--modes",
        "retrieve",
        "--out",
        str(tmp_path / "o"),
    )
    assert result.exit_code == 6 and "every request failed" in result.output
    records = (tmp_path / "o" / "records.jsonl").read_text().splitlines()
    assert len(records) == 5 and all(json.loads(r)["error"].startswith("EndpointConnectionError") for r in records)


def test_the_slice_is_part_of_the_sample():
    assert {item.id for item in load_dataset(SAMPLE)} >= set(SLICE)


@pytest.mark.parametrize("kind", ["regular file", "under /proc"])
def test_an_unusable_out_path_is_one_line_naming_it_and_exit_2(small_dataset, tmp_path, kind):
    if kind == "regular file":
        out = tmp_path / "taken"
        out.write_text("not a directory")
    else:
        out = tmp_path.joinpath("/proc/nope")
    result = run_eval("--dataset", str(small_dataset), "--url", "http://127.0.0.1:9", "--out", str(out))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and str(out) in lines[0]


def test_tables_piped_to_another_program_keep_every_header_whole(endpoint, small_dataset, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "client",
            "eval",
            "--dataset",
            str(small_dataset),
            "--url",
            endpoint.url,
            "--modes",
            "agentic,retrieve,auto",
            "--limit",
            "2",
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    headers = (
        "Recall",
        "Precision",
        "Complete",
        "Abstain",
        "False abstain",
        "Iterations",
        "TTFE p50 ms",
        "$/question",
        "$ total",
        "errors",
    )
    assert [h for h in headers if h not in done.stdout] == []
    assert "…" not in done.stdout


def test_eval_local_agent_mode_adds_an_agent_column_judged_from_the_agents_search(small_dataset, tmp_path):
    out = tmp_path / "agent"
    result = run_eval(
        "--dataset", str(small_dataset), "--local", "--modes", "agentic,agent", "--limit", "2", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["modes"] == ["agentic", "agent"]
    assert report["overall"]["agent"]["errors"] == 0
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    agent = [r for r in records if r["mode"] == "agent"]
    assert len(agent) == 2 and all(r["documents"] and r["answer"] and r["stop_reason"] == "complete" for r in agent)


def test_eval_agent_mode_against_a_url_names_what_it_needs(small_dataset, tmp_path):
    out = str(tmp_path / "out")  # not eval-out/ in the working directory (the repository)
    result = run_eval("--dataset", str(small_dataset), "--url", "http://127.0.0.1:9", "--modes", "agent", "--out", out)
    assert result.exit_code == 1 and "--modes agent needs --local or --env/--tenant" in result.output
