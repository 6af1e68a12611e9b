"""Retrieve mode's pieces: the request it builds, RRF fusion of real emulator results, failures."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from contract.events import ResultEvent, TraceEvent
from contract.settings import Retriever, RoutingSettings
from lambdas.endpoint.fusion import reciprocal_rank_fusion
from lambdas.endpoint.modes import CallContext, retrieve
from lambdas.endpoint.request import Query
from lambdas.endpoint.retry import RetryPolicy
from tests.endpoint_server import emulator_client, tenant_settings

SETTINGS = tenant_settings(("docs", "tickets", "wiki"), routing=RoutingSettings(rrf_k=60))


def query(question: str, aliases=("docs", "tickets", "wiki"), max_results: int = 3, **fields) -> Query:
    base = Query(((("user", question)),), tuple(aliases), True, 3, max_results, None, "retrieve", None)
    return replace(base, **fields)


def run(emulator, settings, q, user_id=None):
    request = retrieve.build_request(q, settings, user_id)
    alias_of = {r.knowledge_base_id: r.alias for r in settings.retrievers}
    call = CallContext(settings, emulator_client(emulator.url), alias_of, time.monotonic(), RetryPolicy.once())
    upstream = retrieve.RetrieveMode().open(request, call)
    return list(upstream), upstream.stats


def test_build_request_is_one_retrieve_call_per_knowledge_base():
    guarded = replace(SETTINGS, guardrail_id="gr1", guardrail_version="2")
    request = retrieve.build_request(
        query("SCIM", ("docs", "wiki"), 4, filter={"equals": {"key": "product", "value": "x"}}), guarded, "alice"
    )
    docs = SETTINGS.retriever("docs").knowledge_base_id
    assert list(request["calls"]) == ["docs", "wiki"]
    assert request["calls"]["docs"] == {
        "knowledgeBaseId": docs,
        "retrievalQuery": {"text": "SCIM"},
        "retrievalConfiguration": {
            "managedSearchConfiguration": {"numberOfResults": 4, "filter": {"equals": {"key": "product", "value": "x"}}}
        },
        "guardrailConfiguration": {"guardrailId": "gr1", "guardrailVersion": "2"},
        "userContext": {"userId": "alice"},
    }
    assert request["rrfK"] == 60 and "2 knowledge bases" in request["note"]


def test_botocore_accepts_the_built_call():
    import botocore.session
    from botocore.validate import validate_parameters

    model = botocore.session.get_session().get_service_model("bedrock-agent-runtime")
    call = retrieve.build_request(query("q", ("docs",)), SETTINGS, "bob")["calls"]["docs"]
    validate_parameters(call, model.operation_model("Retrieve").input_shape)  # raises when invalid


def test_one_trace_per_knowledge_base_then_a_fused_result_without_answer(emulator):
    events, stats = run(emulator, SETTINGS, query("How do I rotate an API key?"))
    traces, result = events[:-1], events[-1]
    assert all(isinstance(t, TraceEvent) and t.step == "Retrieval" and t.status == "SUCCEEDED" for t in traces)
    assert sorted(t.subQueries[0].knowledgeBases[0] for t in traces) == ["docs", "tickets", "wiki"]
    assert isinstance(result, ResultEvent) and result.answer is None and result.citations == []
    assert "no generated answer" in result.note and "k=60" in result.note
    assert result.results[0].documentId == "api/authentication.md"
    assert stats.mode == "retrieve" and stats.iterations == 0 and stats.sub_queries == 3
    assert retrieve.estimated_cost_usd(stats, SETTINGS) == pytest.approx(0.003)


def test_the_fused_order_is_rrf_of_the_per_knowledge_base_lists(emulator):
    q = query("webhook signature retries", ("docs", "tickets"), 5)
    events, _ = run(emulator, SETTINGS, q)
    client = emulator_client(emulator.url)
    calls = retrieve.build_request(q, SETTINGS, None)["calls"]
    lists = {alias: client.retrieve(**call)["retrievalResults"] for alias, call in calls.items()}
    expected = reciprocal_rank_fusion(lists, lambda r: r["metadata"]["x-amz-bedrock-kb-chunk-id"], k=60)
    result = events[-1]
    assert [r.metadata["x-amz-bedrock-kb-chunk-id"] for r in result.results] == [e.key for e in expected]
    assert {r.knowledgeBase for r in result.results} == {"docs", "tickets"}
    assert result.results[0].metadata[retrieve.RRF_SCORE_KEY] == pytest.approx(expected[0].score, abs=1e-6)


def test_a_chunk_found_by_two_knowledge_bases_is_one_result_that_names_both():
    hit = {
        "content": {"text": "t"},
        "metadata": {"x-amz-bedrock-kb-chunk-id": "c1", "x-amz-bedrock-kb-document-id": "a.md"},
    }
    other = {"content": {"text": "u"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "c2"}}
    items = retrieve.fuse({"docs": [other, hit], "wiki": [hit]}, k=60)
    assert [i.metadata["x-amz-bedrock-kb-chunk-id"] for i in items] == ["c1", "c2"]
    assert items[0].metadata[retrieve.FOUND_IN_KEY] == ["docs", "wiki"] and items[0].knowledgeBase == "wiki"
    assert items[0].documentId == "a.md"


def test_a_failing_knowledge_base_is_a_failed_trace_and_the_others_still_count(emulator):
    broken = replace(SETTINGS, retrievers=[*SETTINGS.retrievers[:1], Retriever("ghost", "NOTAKB0000", "gone")])
    events, stats = run(emulator, broken, query("API key", ("docs", "ghost")))
    failed = [e for e in events if isinstance(e, TraceEvent) and e.status == "FAILED"]
    assert len(failed) == 1 and failed[0].subQueries[0].knowledgeBases == ["ghost"]
    assert failed[0].failures[0].startswith("upstream_not_found: ")
    assert isinstance(events[-1], ResultEvent) and events[-1].results and stats.sub_queries == 1


def test_when_every_knowledge_base_fails_open_raises_before_any_event(emulator):
    broken = replace(SETTINGS, retrievers=[Retriever("ghost", "NOTAKB0000", "gone")])
    with pytest.raises(Exception, match=r"ResourceNotFound|not found"):
        run(emulator, broken, query("q", ("ghost",)))
