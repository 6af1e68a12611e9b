"""Report aggregation against hand-computed numbers; tables and charts render from it."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from client.evaluation.charts import write_charts
from client.evaluation.report import build_report, render_tables
from client.evaluation.runner import Record
from schema.eval_dataset import parse_lines

ITEMS = parse_lines(
    [
        json.dumps({"id": "s", "question": "single?", "type": "single", "documents": ["A"]}),
        json.dumps({"id": "m", "question": "multi?", "type": "multi-hop", "documents": ["A", "B", "C"]}),
        json.dumps({"id": "u", "question": "none?", "type": "unanswerable"}),
    ]
)


def rec(id_, mode, gold_ranks, relevant, cost, *, abstained=False, error=None, routed=None, duration=100.0):
    return Record(
        id_,
        mode,
        "f",
        gold_ranks=gold_ranks,
        relevant=relevant,
        cost_usd=cost,
        abstained=abstained,
        error=error,
        routed_mode=routed or mode,
        iterations=1,
        duration_ms=duration,
        time_to_first_event_ms=duration / 10,
    )


RECORDS = [
    rec("s", "agentic", [1], [True], 0.005),
    rec("m", "agentic", [1, 2, 4], [True, True, False, True], 0.007),
    rec("u", "agentic", [], [False], 0.005, abstained=True),
    rec("s", "retrieve", [2], [False, True], 0.002),
    rec("m", "retrieve", [1, 2, None], [True, True, False, False, False], 0.002),  # docs/evaluation.md's worked example
    rec("u", "retrieve", [], [False, False], 0.002),
    rec("s", "auto", [None], [], None, error="ThrottlingException: slow down"),
    rec("m", "auto", [1, 2, 4], [True, True, False, True], 0.007, routed="agentic"),
    rec("u", "auto", [], [], 0.001, abstained=True, routed="retrieve"),
]


@pytest.fixture(scope="module")
def report():
    return build_report(ITEMS, RECORDS, ["agentic", "retrieve", "auto"], [1, 5], {"dataset": "t.jsonl"})


def test_overall_metrics_average_over_answerable_questions(report):
    retrieve = report["overall"]["retrieve"]
    assert retrieve["recall"] == {
        "1": pytest.approx((0 + 1 / 3) / 2, abs=1e-4),
        "5": pytest.approx((1 + 2 / 3) / 2, abs=1e-4),
    }
    assert retrieve["precision"]["5"] == pytest.approx((1 / 5 + 2 / 5) / 2)
    assert retrieve["hit"]["1"] == 0.5 and retrieve["completeness"]["5"] == 0.5
    assert retrieve["mrr"] == pytest.approx((1 / 2 + 1) / 2)
    assert retrieve["abstention"] == 0.0 and report["overall"]["agentic"]["abstention"] == 1.0
    assert retrieve["costUsdPerQuestion"] == pytest.approx(0.002) and retrieve["costUsdTotal"] == pytest.approx(0.006)


def test_a_failed_request_counts_as_an_empty_result_and_is_counted(report):
    auto = report["overall"]["auto"]
    assert auto["errors"] == 1
    assert auto["recall"]["5"] == pytest.approx((0 + 1) / 2)
    assert auto["costUsdPerQuestion"] == pytest.approx(0.004)  # errors carry no cost


def test_breakdowns_by_type_and_hops_and_where_auto_sent_questions(report):
    assert set(report["byType"]) == {"single", "multi-hop", "unanswerable"}
    assert report["byHops"]["3"]["retrieve"]["recall"]["5"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["byHops"]["1"]["agentic"]["recall"]["1"] == 1.0
    assert report["routedTo"] == {"auto": {"agentic": 1, "retrieve": 1}}
    assert report["dataset"] == "t.jsonl" and report["questions"] == 3


def test_tables_render_every_mode_and_group(report):
    buffer = io.StringIO()
    render_tables(report, Console(file=buffer, width=250, color_system=None))
    text = buffer.getvalue()
    expected_parts = (
        "Recall@1 by type",
        "Complete",
        "False abstain",
        "$ total",
        "agentic",
        "retrieve",
        "auto",
        "multi-hop",
        "abstain 1.00",
        "auto routed: agentic 1, retrieve 1",
        "$0.0020",
    )
    for expected in expected_parts:
        assert expected in text


def test_charts_are_png_files(report, tmp_path):
    paths = write_charts(report, tmp_path)
    assert [p.name for p in paths] == ["recall_by_hops.png", "cost_vs_recall.png"]
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
