"""`akb eval --gate --local` end to end: the emulator and the tenant's endpoint (a child process started through
lambdas/run.sh, like `akb local`, on a free port), acme's shipped golden set and thresholds, a local baseline file.

The example passes and its run becomes the baseline; the same tenant with its iteration cap cut to 1 fails,
naming the complete rate against both its threshold and that baseline; a baseline better than the run fails it
on the baseline alone; a broken golden set stops before anything starts, naming the file and the line.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from client.commands.eval import command
from client.evaluation.gate_command import GATE_FAILED_EXIT
from tests.schema.conftest import ConfigCopy

# `--local` starts the endpoint as a child process (lambdas/run.sh): not for `make test-fast`.
pytestmark = pytest.mark.slow


def run_gate(*args: str):
    return CliRunner().invoke(command, ["--gate", *args], catch_exceptions=False, terminal_width=200)


@pytest.fixture(scope="module")
def passing(tmp_path_factory):
    """One passing run of the example config, promoted: its output folder and baseline file."""
    root = tmp_path_factory.mktemp("gate")
    out, baseline = root / "out", root / "baseline.json"
    result = run_gate(
        "--local", "--tenant", "acme", "--out", str(out), "--baseline-file", str(baseline), "--promote-baseline"
    )
    return result, out, baseline


def test_the_example_passes_its_thresholds_and_becomes_the_baseline(passing):
    result, out, baseline = passing
    assert result.exit_code == 0, result.output
    assert "quality gate: PASS" in result.output and "promoted: this run is the new baseline" in result.output
    gate = json.loads((out / "gate.json").read_text())
    assert gate["passed"] and gate["tenant"] == "acme" and gate["questions"] == 29
    assert {c["figure"] for c in gate["checks"]} == {
        "Recall5",
        "MRR",
        "CompleteRate",
        "AnswerP95Seconds",
        "CostPerQuestion",
    }
    stored = json.loads(baseline.read_text())
    assert stored["modes"]["agentic"]["CompleteRate"] == 1.0 and len(stored["goldenSet"]) == 16
    assert stored["target"].startswith("local:acme@")
    markdown = (out / "gate.md").read_text()
    assert "![Recall by hop count per mode](recall_by_hops.png)" in markdown
    assert (out / "recall_by_hops.png").read_bytes()[:4] == b"\x89PNG"
    assert "<testsuite" in (out / "gate-junit.xml").read_text()


def test_a_degraded_iteration_cap_fails_naming_the_complete_rate(passing, config_copy: ConfigCopy, tmp_path):
    _result, _out, baseline = passing
    config_copy.edit("tenants", "acme", lambda data: data["retrieval"].update(max_agent_iteration=1))
    before = baseline.read_text()
    result = run_gate(
        "--local",
        "--tenant",
        "acme",
        "--config",
        str(config_copy.root),
        "--out",
        str(tmp_path / "o"),
        "--baseline-file",
        str(baseline),
        "--promote-baseline",
    )
    assert result.exit_code == GATE_FAILED_EXIT, result.output
    assert "regressed: Complete rate (agentic): " in result.output
    assert "is below the threshold 0.9" in result.output
    assert "regressed against the baseline 1" in result.output
    assert "quality gate: FAIL" in result.output and "not promoted" in result.output
    assert baseline.read_text() == before  # a failing run never becomes the baseline
    junit = (tmp_path / "o" / "gate-junit.xml").read_text()
    assert 'name="Complete rate"><failure message=' in junit


def test_a_better_baseline_fails_the_same_run_on_the_baseline_alone(passing, tmp_path):
    _result, out, baseline = passing
    better = json.loads(baseline.read_text())
    better["modes"]["agentic"]["Recall5"] = 1.0
    raised = tmp_path / "better.json"
    raised.write_text(json.dumps(better))
    # the same --out: the records are resumed, nothing is asked again
    result = run_gate("--local", "--tenant", "acme", "--out", str(out), "--baseline-file", str(raised))
    assert result.exit_code == GATE_FAILED_EXIT, result.output
    assert "resuming: 29 of 29" in result.output
    regressions = [line for line in result.output.splitlines() if line.startswith("regressed:")]
    assert len(regressions) == 1 and regressions[0].startswith("regressed: Recall@5 (agentic): ")
    assert "regressed against the baseline 1 (the tolerance allows down to 0.95)" in regressions[0]


def test_a_malformed_golden_set_is_named_by_file_and_line_before_anything_starts(config_copy: ConfigCopy, tmp_path):
    golden = config_copy.root / "quality" / "acme.jsonl"
    lines = golden.read_text().splitlines()
    lines[2] = '{"question": "What?", "type": "single", "documents": ["wiki/x.md"]}'
    lines[4] = "{not json"
    golden.write_text("\n".join(lines) + "\n")
    result = run_gate("--local", "--tenant", "acme", "--config", str(config_copy.root), "--out", str(tmp_path / "o"))
    assert result.exit_code == 1, result.output
    tenant_file = config_copy.root / "tenants" / "acme.yaml"
    assert f"{tenant_file}: quality.golden_set: {golden}:5: not valid JSON" in result.output
    assert f"{golden}:3: documents: knowledge base wiki is not one of this tenant's (docs, tickets)" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "o").exists()


def test_the_gate_refuses_options_that_would_change_what_it_measures(config_copy: ConfigCopy):
    result = run_gate("--local", "--tenant", "acme", "--limit", "3")
    assert result.exit_code == 2 and "remove --limit" in result.output
    result = run_gate("--url", "http://127.0.0.1:9", "--tenant", "acme")
    assert result.exit_code == 2 and "configured tenant" in result.output
    result = CliRunner().invoke(command, ["--local", "--tenant", "acme", "--promote-baseline", "--dataset", "x.jsonl"])
    assert result.exit_code == 2 and "need --gate" in result.output
    config_copy.edit("tenants", "acme", lambda data: data.pop("quality"))
    result = run_gate("--local", "--tenant", "acme", "--config", str(config_copy.root))
    assert result.exit_code == 1 and "has no quality: block" in result.output
