"""The gate's verdict over a report: thresholds, the baseline and its tolerance, unmeasured figures, failed requests."""

from __future__ import annotations

from typing import Any

import pytest

from client.evaluation.gate import BASELINE_VERSION, baseline_record, check_figure, evaluate, golden_set_fingerprint
from client.evaluation.gate import BY_NAME as FIGURES
from client.evaluation.gate_report import as_json, junit, markdown, rows
from schema.eval_dataset import parse_lines
from schema.quality_config import Quality

QUALITY = Quality.model_validate(
    {
        "golden_set": "quality/t.jsonl",
        "thresholds": {
            "min_recall_at_5": 0.8,
            "min_mrr": 0.7,
            "min_complete_rate": 0.9,
            "max_p95_seconds": 10,
            "max_cost_per_question_usd": 0.01,
        },
        "tolerance": {"max_drop": 0.05, "max_latency_increase_percent": 50, "max_cost_increase_percent": 10},
    }
)


def summary(recall=0.9, mrr=0.8, complete=1.0, p95_ms=2000.0, cost=0.004, errors=0) -> dict[str, Any]:
    return {
        "recall": {"5": recall, "10": recall},
        "mrr": mrr,
        "completeStop": complete,
        "durationMsP95": p95_ms,
        "costUsdPerQuestion": cost,
        "errors": errors,
    }


def report(**figures: Any) -> dict[str, Any]:
    return {"overall": {"agentic": summary(**figures)}}


def baseline(fingerprint: str = "f" * 16, **figures: float) -> dict[str, Any]:
    values = {"Recall5": 0.9, "MRR": 0.8, "CompleteRate": 1.0, "AnswerP95Seconds": 2.0, "CostPerQuestion": 0.004}
    return {"version": BASELINE_VERSION, "goldenSet": fingerprint, "modes": {"agentic": {**values, **figures}}}


def failed(result) -> dict[str, tuple[str, ...]]:
    return {check.figure: check.crossed for check in result.checks if not check.passed}


def test_a_run_within_every_threshold_and_tolerance_passes():
    result = evaluate(report(), QUALITY, "f" * 16, baseline())
    assert result.passed and result.regressions() == [] and result.baseline_note is None
    assert len(result.checks) == 5 and all(check.baseline is not None for check in result.checks)


def test_a_figure_past_its_threshold_fails_naming_figure_mode_and_threshold():
    result = evaluate(report(mrr=0.65, p95_ms=12_000), QUALITY, "f" * 16, None)
    assert not result.passed
    assert failed(result) == {"MRR": ("threshold",), "AnswerP95Seconds": ("threshold",)}
    assert "MRR (agentic): 0.65 is below the threshold 0.7" in result.regressions()
    assert "p95 time to answer (agentic): 12 s is above the threshold 10 s" in result.regressions()
    assert result.baseline_note.startswith("no baseline yet")


def test_a_drop_beyond_the_tolerance_fails_against_the_baseline_only():
    # 0.84 passes its threshold 0.8 but fell 0.06 from 0.9: more than max_drop 0.05
    result = evaluate(report(recall=0.84), QUALITY, "f" * 16, baseline())
    assert failed(result) == {"Recall5": ("baseline",)}
    assert result.regressions() == [
        "Recall@5 (agentic): 0.84 regressed against the baseline 0.9 (the tolerance allows down to 0.85)"
    ]


def test_within_the_tolerance_is_no_regression_and_rises_are_bounded_in_percent():
    assert evaluate(report(recall=0.86), QUALITY, "f" * 16, baseline()).passed
    # cost: +10 % allowed from 0.004 -> 0.0044; latency: +50 % from 2 s -> 3 s
    result = evaluate(report(cost=0.0045, p95_ms=3100), QUALITY, "f" * 16, baseline())
    assert failed(result) == {"CostPerQuestion": ("baseline",), "AnswerP95Seconds": ("baseline",)}


def test_locally_latency_is_held_to_its_threshold_but_not_to_the_baseline():
    result = evaluate(report(p95_ms=3100), QUALITY, "f" * 16, baseline(), local=True)
    assert result.passed
    latency = next(c for c in result.checks if c.figure == "AnswerP95Seconds")
    assert latency.baseline == 2.0 and latency.allowed is None


def test_a_baseline_of_another_golden_set_is_not_compared():
    result = evaluate(report(recall=0.81), QUALITY, "0" * 16, baseline())
    assert result.passed and "another golden set" in (result.baseline_note or "")
    assert all(check.baseline is None for check in result.checks)


def test_an_unmeasured_figure_with_a_bound_fails_and_one_without_passes():
    result = evaluate(report(cost=None), QUALITY, "f" * 16, None)
    assert failed(result) == {"CostPerQuestion": ("unmeasured",)}
    unbounded = Quality.model_validate({"golden_set": "q/t.jsonl"})
    assert check_figure("agentic", FIGURES["CostPerQuestion"], None, None, unbounded).passed


def test_a_failed_request_fails_the_gate_even_when_every_figure_passes():
    result = evaluate(report(errors=2), QUALITY, "f" * 16, None)
    assert not result.passed and all(check.passed for check in result.checks)
    assert result.regressions() == ["requests (agentic): 2 failed; rerun the same command to retry only those"]


def test_a_mode_missing_from_the_report_is_an_error_not_a_pass():
    with pytest.raises(ValueError, match="no mode auto"):
        evaluate(report(), Quality.model_validate({"golden_set": "q/t.jsonl", "modes": ["auto"]}), "f" * 16, None)


def test_the_promoted_record_holds_the_figures_and_the_golden_set():
    result = evaluate(report(), QUALITY, "f" * 16, None)
    record = baseline_record(result, "local:acme@abc")
    assert record["modes"]["agentic"] == {
        "Recall5": 0.9,
        "MRR": 0.8,
        "CompleteRate": 1.0,
        "AnswerP95Seconds": 2.0,
        "CostPerQuestion": 0.004,
    }
    assert record["goldenSet"] == "f" * 16 and record["target"] == "local:acme@abc"
    assert evaluate(report(), QUALITY, "f" * 16, record).baseline_note is None  # it compares next time


def test_the_golden_set_fingerprint_follows_questions_and_labels():
    items = parse_lines(['{"question": "a?", "type": "single", "documents": ["d/x.md"]}'])
    relabelled = parse_lines(['{"question": "a?", "type": "single", "documents": ["d/y.md"]}'])
    assert golden_set_fingerprint(items) == golden_set_fingerprint(list(items))
    assert golden_set_fingerprint(items) != golden_set_fingerprint(relabelled)


def test_the_reports_name_each_failed_figure():
    result = evaluate(report(recall=0.84, errors=1), QUALITY, "f" * 16, baseline())
    meta = {
        "environment": "dev",
        "tenant": "t",
        "target": "x",
        "goldenSet": "q.jsonl",
        "questions": 3,
        "generatedAt": "now",
    }
    table = {row[1]: row[-1] for row in rows(result)}
    assert table["Recall@5"] == "FAIL (baseline)" and table["MRR"] == "PASS"
    assert table["Failed requests"] == "FAIL (requests)"
    assert "**quality gate: FAIL (2 regression(s))**" in markdown(result, meta)
    document = as_json(result, meta)
    assert document["passed"] is False and document["failedRequests"] == {"agentic": 1}
    xml = junit(result, meta).decode()
    assert 'tests="6" failures="2"' in xml and xml.count("<failure ") == 2
