"""docs/evaluation.md's sample results are what a fresh run of the sample evaluation renders, and
records are never resumed across targets or retrieval settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from client.commands.eval import command
from client.evaluation.doc_table import BEGIN, END, generated_section, render_markdown, write
from client.evaluation.runner import Record, pending
from client.evaluation.target_key import retrieval_settings_hash, target_key
from schema import load_project
from schema.eval_dataset import load_dataset
from tests.conftest import REPO

SAMPLE = REPO / "local" / "eval" / "sample.jsonl"
PAGE = REPO / "docs" / "evaluation.md"


@pytest.mark.slow  # `akb eval --local` starts the endpoint as a child process
def test_the_pages_sample_results_match_a_fresh_run(tmp_path):
    out = tmp_path / "fresh"
    result = CliRunner().invoke(
        command, ["--local", "--dataset", str(SAMPLE), "--out", str(out)], catch_exceptions=False, terminal_width=200
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert generated_section(PAGE.read_text(encoding="utf-8")) == render_markdown(report), (
        "run `make eval-doc` and commit docs/evaluation.md (and docs/img/eval-emulator-*.png)"
    )


def test_update_doc_rewrites_only_the_generated_section_and_a_page_without_one_is_refused(tmp_path):
    report = {
        "questions": 1,
        "ks": [5],
        "modes": ["retrieve"],
        "overall": {
            "retrieve": {
                "recall": {"5": 1.0},
                "precision": {"5": 0.2},
                "hit": {"5": 1.0},
                "completeness": {"5": 1.0},
                "mrr": 1.0,
                "abstention": None,
                "falseAbstention": 0.0,
                "iterations": 0.0,
                "completeStop": 1.0,
                "citedSources": None,
                "costUsdPerQuestion": 0.004,
                "errors": 0,
            }
        },
        "byType": {},
        "byHops": {},
    }
    page = tmp_path / "page.md"
    page.write_text(f"# Intro\n\n{BEGIN}\n| stale |\n{END}\n\nafter\n", encoding="utf-8")
    assert write(page, report) is True and write(page, report) is False
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Intro\n\n") and text.endswith("\n\nafter\n") and "| stale |" not in text
    assert "| retrieve | 5 | 1.00 | 0.20 | 1.00 | 1.00 | 1.00 | - | 0.00 |" in text
    bare = tmp_path / "bare.md"
    bare.write_text("# nothing generated here\n", encoding="utf-8")
    refused = CliRunner().invoke(command, ["--local", "--dataset", str(SAMPLE), "--update-doc", str(bare)])
    assert refused.exit_code == 2 and "BEGIN SAMPLE RESULTS" in refused.output


def test_records_of_another_target_or_other_retrieval_settings_are_asked_again():
    items = load_dataset(SAMPLE)[:2]
    here = target_key("local", "acme", "aaaa")
    done = {(i.id, "agentic"): Record(i.id, "agentic", i.fingerprint(), here) for i in items}
    assert pending(items, ["agentic"], done, here) == []
    assert len(pending(items, ["agentic"], done, target_key("local", "acme", "bbbb"))) == 2  # settings changed
    assert len(pending(items, ["agentic"], done, target_key("url", "http://127.0.0.1:9"))) == 2  # other target


def test_the_settings_hash_follows_what_shapes_retrieval(tmp_path):
    project = load_project(REPO / "config", "dev")
    acme = retrieval_settings_hash(project, "acme")
    assert acme != retrieval_settings_hash(project, "globex")
    changed = project.tenants["acme"].model_copy(
        update={"retrieval": project.tenants["acme"].retrieval.model_copy(update={"max_agent_iteration": 5})}
    )
    project.tenants["acme"] = changed
    assert retrieval_settings_hash(project, "acme") != acme


@pytest.mark.slow  # `akb eval --local` starts the endpoint as a child process
@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_a_resumed_local_run_reuses_records_only_for_the_same_tenant(tmp_path, tenant):
    out = tmp_path / "out"
    args = ["--local", "--dataset", str(SAMPLE), "--out", str(out), "--modes", "retrieve", "--limit", "2"]
    first = CliRunner().invoke(command, [*args, "--tenant", tenant], catch_exceptions=False, terminal_width=200)
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(command, [*args, "--tenant", tenant], catch_exceptions=False, terminal_width=200)
    assert "resuming: 2 of 2 already in" in again.output
    other = "globex" if tenant == "acme" else "acme"
    switched = CliRunner().invoke(command, [*args, "--tenant", other], catch_exceptions=False, terminal_width=200)
    assert "resuming" not in switched.output  # the other tenant's records are not reused
    report = json.loads((out / "report.json").read_text())
    assert report["targetKey"].startswith(f"local:{other}@")
