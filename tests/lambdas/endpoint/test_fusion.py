"""Reciprocal Rank Fusion against hand-computed scores, and chunk deduplication."""

from __future__ import annotations

import pytest

from lambdas.endpoint.fusion import chunk_key, reciprocal_rank_fusion


def _ident(item: str) -> str:
    return item


def test_rrf_matches_hand_computed_scores_and_order():
    # k=60: a = 1/61 + 1/63, b = 1/62 + 1/61, c = 1/63, d = 1/62  ->  b > a > d > c
    fused = reciprocal_rank_fusion({"docs": ["a", "b", "c"], "tickets": ["b", "d", "a"]}, _ident, k=60)
    assert [f.key for f in fused] == ["b", "a", "d", "c"]
    scores = {f.key: f.score for f in fused}
    assert scores["a"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["c"] == pytest.approx(1 / 63)
    assert scores["d"] == pytest.approx(1 / 62)


def test_rrf_keeps_every_list_and_rank_an_item_was_found_in():
    fused = reciprocal_rank_fusion({"docs": ["a", "b"], "tickets": ["c", "b"]}, _ident)
    by_key = {f.key: f for f in fused}
    assert by_key["b"].ranks == {"docs": 2, "tickets": 2}
    assert by_key["b"].sources == ["docs", "tickets"]
    assert by_key["a"].ranks == {"docs": 1}


def test_k_changes_how_much_the_top_rank_dominates():
    lists = {"x": ["a", "b", "c"], "y": ["c", "b", "z"], "w": ["b"]}
    # small k: a rank-1 hit counts a lot; b is found 3 times at ranks 2, 2, 1
    small = [f.key for f in reciprocal_rank_fusion(lists, _ident, k=0)]
    assert small[0] == "b"  # 1/2 + 1/2 + 1 = 2
    assert small[1:3] == ["c", "a"]  # c = 1/3 + 1 > a = 1


def test_ties_break_by_best_rank_then_list_order():
    fused = reciprocal_rank_fusion({"first": ["a", "b"], "second": ["b", "a"]}, _ident, k=0)
    assert fused[0].score == fused[1].score
    assert [f.key for f in fused] == ["a", "b"]


def test_a_repeated_item_within_one_list_keeps_its_best_rank():
    fused = reciprocal_rank_fusion({"docs": ["a", "a", "b"]}, _ident, k=60)
    by_key = {f.key: f for f in fused}
    assert by_key["a"].ranks == {"docs": 1}
    assert by_key["a"].score == pytest.approx(1 / 61)
    assert by_key["b"].ranks == {"docs": 3}


def test_weights_scale_each_lists_contribution():
    fused = reciprocal_rank_fusion({"x": ["a"], "y": ["b"]}, _ident, k=0, weights={"y": 2.0})
    assert [f.key for f in fused] == ["b", "a"]
    assert fused[0].score == pytest.approx(2.0)


def test_negative_k_is_rejected():
    with pytest.raises(ValueError, match="k must be >= 0"):
        reciprocal_rank_fusion({"x": ["a"]}, _ident, k=-1)


def test_chunk_key_prefers_the_chunk_id_and_falls_back_to_a_content_hash():
    with_id = {"content": {"text": "x"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "docs/a.md#0"}}
    assert chunk_key(with_id) == "docs/a.md#0"
    one = {"content": {"text": "same words"}, "metadata": {}}
    two = {"content": {"text": "same words"}}
    other = {"content": {"text": "other words"}}
    assert chunk_key(one) == chunk_key(two) != chunk_key(other)
    assert chunk_key(one).startswith("sha256:")


def test_results_deduplicate_by_chunk_across_knowledge_bases():
    shared = {"content": {"text": "t"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "c1"}}
    copy = {"content": {"text": "t"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "c1"}, "score": 0.1}
    fused = reciprocal_rank_fusion({"docs": [shared], "wiki": [{"content": {"text": "u"}}, copy]}, chunk_key)
    assert len(fused) == 2
    assert fused[0].key == "c1" and fused[0].sources == ["docs", "wiki"]
    assert fused[0].item is shared  # the first copy seen is the one kept
