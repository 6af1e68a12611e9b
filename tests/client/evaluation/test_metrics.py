"""Metric functions against hand-computed examples (the Recall@5 = 2/3 example of docs/evaluation.md included)."""

from __future__ import annotations

import pytest

from client.evaluation.scores import (
    RankedDocument,
    abstained,
    complete_at,
    hit_at,
    judge,
    percentile,
    precision_at,
    rank_documents,
    recall_at,
    reciprocal_rank,
)
from contract.events import ResultItem


def doc(name: str, text: str = "") -> RankedDocument:
    return RankedDocument(name, frozenset({name}), text)


SEED_RANKING = [doc("A"), doc("B"), doc("X"), doc("Y"), doc("Z")]


def test_worked_example_gold_abc_top5_has_a_and_b():
    judged = judge(["A", "B", "C"], [], SEED_RANKING)
    assert recall_at(judged, 5) == pytest.approx(2 / 3)
    assert precision_at(judged, 5) == pytest.approx(2 / 5)
    assert hit_at(judged, 5) == 1.0
    assert complete_at(judged, 5) == 0.0
    assert reciprocal_rank(judged) == 1.0


def test_metrics_at_smaller_k_and_mrr_of_a_late_first_hit():
    judged = judge(["B", "Z"], [], SEED_RANKING)  # B at rank 2, Z at rank 5
    assert judged.gold_ranks == (2, 5)
    assert recall_at(judged, 1) == 0.0 and hit_at(judged, 1) == 0.0
    assert recall_at(judged, 2) == 0.5 and precision_at(judged, 2) == 0.5
    assert recall_at(judged, 5) == 1.0 and complete_at(judged, 5) == 1.0 and complete_at(judged, 4) == 0.0
    assert reciprocal_rank(judged) == 0.5
    assert reciprocal_rank(judge(["Q"], [], SEED_RANKING)) == 0.0


def test_precision_divides_by_k_even_when_fewer_documents_came_back():
    judged = judge(["A"], [], [doc("A")])
    assert precision_at(judged, 5) == pytest.approx(1 / 5)
    assert precision_at(judged, 1) == 1.0


def test_spans_match_returned_text_ignoring_case_and_whitespace():
    ranking = [doc("X", "Refunds are issued\n within  30 days."), doc("A")]
    judged = judge(["A"], ["refunds are issued within 30 days"], ranking)
    assert judged.gold_ranks == (2, 1)
    assert judged.relevant == (True, True)
    assert recall_at(judged, 1) == 0.5


def test_a_gold_item_with_alternatives_is_found_by_any_of_them():
    judged = judge(["A", ["C", "Y"]], [], SEED_RANKING)  # Y (rank 4) stands in for C
    assert judged.gold_ranks == (1, 4)
    assert recall_at(judged, 3) == 0.5 and recall_at(judged, 5) == 1.0
    assert complete_at(judged, 5) == 1.0


def test_bad_k_and_missing_gold_are_errors():
    judged = judge([], [], SEED_RANKING)
    with pytest.raises(ValueError, match="undefined without gold"):
        recall_at(judged, 5)
    with pytest.raises(ValueError, match="k must be >= 1"):
        precision_at(judged, 0)


def test_ranking_is_distinct_documents_in_first_appearance_order():
    results = [
        ResultItem("docs", "one", {"x-amz-bedrock-kb-document-id": "billing.md"}),
        ResultItem("tickets", "two", {"x-amz-bedrock-kb-document-id": "TCK-1.md"}),
        ResultItem("docs", "three", {"x-amz-bedrock-kb-document-id": "billing.md"}),
        ResultItem("wiki", "four", {"x-amz-bedrock-kb-source-uri": "s3://bucket/tenant/wiki/oncall.md"}),
    ]
    ranking = rank_documents(results)
    assert [d.key for d in ranking] == ["docs/billing.md", "tickets/TCK-1.md", "s3://bucket/tenant/wiki/oncall.md"]
    assert ranking[0].text == "one\nthree"
    judged = judge(["docs/billing.md", "wiki/oncall.md", "billing.md"], [], ranking)
    assert judged.gold_ranks == (1, 3, 1)


def test_documents_with_the_same_name_in_two_knowledge_bases_stay_distinct():
    results = [
        ResultItem("docs", "a", {"x-amz-bedrock-kb-document-id": "readme.md"}),
        ResultItem("wiki", "b", {"x-amz-bedrock-kb-document-id": "readme.md"}),
    ]
    ranking = rank_documents(results)
    assert len(ranking) == 2
    assert judge(["wiki/readme.md"], [], ranking).gold_ranks == (2,)


def test_gold_does_not_match_a_name_that_merely_ends_with_the_same_letters():
    ranking = [RankedDocument("k", frozenset({"s3://b/mydocs/billing.md", "mydocs/billing.md"}))]
    assert judge(["docs/billing.md"], [], ranking).gold_ranks == (None,)


def test_abstention_means_no_results_or_a_blank_generated_answer():
    assert abstained(0, None) and abstained(0, "text") and abstained(3, "  ")
    assert not abstained(3, None)  # retrieve mode: results, no answer -> did not abstain
    assert not abstained(1, "The answer.")


def test_nearest_rank_percentile():
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile([5, 1, 3, 2, 4], 95) == 5
    assert percentile([7], 95) == 7
    assert percentile([], 50) is None
