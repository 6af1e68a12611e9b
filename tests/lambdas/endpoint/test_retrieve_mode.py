"""Retrieve mode: real boto3 against the local emulator, one Retrieve per knowledge base, RRF-fused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lambdas.endpoint.events import ResultEvent, TraceEvent
from lambdas.endpoint.fusion import reciprocal_rank_fusion
from lambdas.endpoint.retrieve_mode import (
    FOUND_IN_KEY,
    SEARCH_CONFIGURATION,
    RetrieveQuery,
    RetrieveStats,
    fuse,
    retrieve_request,
    run_retrieve,
)
from lambdas.endpoint.settings import Retriever, RoutingSettings, TenantSettings
from local.emulator.handle import start_emulator


@pytest.fixture(scope="module")
def emulator():
    handle = start_emulator(delay_ms=0)
    yield handle
    handle.stop()


@pytest.fixture
def settings(emulator):
    emulator.reset()
    retrievers = [Retriever(alias, kb_id, alias) for alias, kb_id in sorted(emulator.knowledge_bases.items())]
    return TenantSettings(tenant="acme", environment="local", retrievers=retrievers, routing=RoutingSettings(rrf_k=60))


def _describe(error: BaseException) -> str:
    return type(error).__name__


def _run(emulator, settings, query):
    stats = RetrieveStats()
    events = list(run_retrieve(emulator.client(), settings, query, stats, _describe))
    return events, stats


def test_one_retrieval_trace_per_knowledge_base_then_a_fused_result_without_an_answer(emulator, settings):
    query = RetrieveQuery("How do I rotate an API key?", ("docs", "tickets", "wiki"), max_results=3)
    events, stats = _run(emulator, settings, query)
    traces, result = events[:-1], events[-1]
    assert all(isinstance(e, TraceEvent) and e.step == "Retrieval" and e.status == "SUCCEEDED" for e in traces)
    assert sorted(t.subQueries[0].knowledgeBases[0] for t in traces) == ["docs", "tickets", "wiki"]
    assert isinstance(result, ResultEvent)
    assert result.answer is None and "no generated answer" in result.note and "k=60" in result.note
    assert result.results[0].documentId == "api/authentication.md"
    assert stats.calls == 3 and stats.estimated_cost_usd(settings) == pytest.approx(0.003)


def test_the_request_bodies_reach_the_emulator_as_built(emulator, settings):
    query = RetrieveQuery("SCIM provisioning", ("docs", "tickets"), max_results=4, user_id="alice",
                          filter={"equals": {"key": "product", "value": "skyledger"}})
    _run(emulator, settings, query)
    bodies = {r["path"]: r["body"] for r in emulator.requests() if r["path"].endswith("/retrieve")}
    assert len(bodies) == 2
    body = bodies[f"/knowledgebases/{emulator.knowledge_bases['docs']}/retrieve"]
    assert body["retrievalQuery"] == {"text": "SCIM provisioning"}
    assert body["retrievalConfiguration"][SEARCH_CONFIGURATION]["numberOfResults"] == 4
    assert body["retrievalConfiguration"][SEARCH_CONFIGURATION]["filter"]["equals"]["key"] == "product"
    assert body["userContext"] == {"userId": "alice"}


def test_the_fused_order_is_reciprocal_rank_fusion_of_the_per_knowledge_base_lists(emulator, settings):
    question = "webhook signature retries"
    query = RetrieveQuery(question, ("docs", "tickets"), max_results=5)
    events, _ = _run(emulator, settings, query)
    client = emulator.client()
    lists = {
        alias: client.retrieve(**retrieve_request(emulator.knowledge_bases[alias], query, settings))["retrievalResults"]
        for alias in ("docs", "tickets")
    }
    expected = reciprocal_rank_fusion(lists, lambda r: r["metadata"]["x-amz-bedrock-kb-chunk-id"], k=60)
    result = events[-1]
    assert [r.metadata["x-amz-bedrock-kb-chunk-id"] for r in result.results] == [e.key for e in expected]
    assert {r.knowledgeBase for r in result.results} == {"docs", "tickets"}


def test_a_chunk_found_by_two_knowledge_bases_is_one_result_that_names_both():
    hit = {"content": {"text": "t"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "c1",
                                                  "x-amz-bedrock-kb-document-id": "a.md"}}
    other = {"content": {"text": "u"}, "metadata": {"x-amz-bedrock-kb-chunk-id": "c2"}}
    items = fuse({"docs": [other, hit], "wiki": [hit]}, k=60)
    assert [i.metadata["x-amz-bedrock-kb-chunk-id"] for i in items] == ["c1", "c2"]
    assert items[0].metadata[FOUND_IN_KEY] == ["docs", "wiki"] and items[0].knowledgeBase == "wiki"
    assert items[0].documentId == "a.md"


def test_guardrail_goes_with_every_call_when_the_tenant_has_one(settings):
    guarded = replace(settings, guardrail_id="gr-1", guardrail_version="3")
    request = retrieve_request("KB", RetrieveQuery("q", ("docs",), 5), guarded)
    assert request["guardrailConfiguration"] == {"guardrailId": "gr-1", "guardrailVersion": "3"}
    assert "guardrailConfiguration" not in retrieve_request("KB", RetrieveQuery("q", ("docs",), 5), settings)


def test_a_failing_knowledge_base_is_a_failed_trace_and_the_others_still_answer(emulator, settings):
    broken = replace(settings, retrievers=[*settings.retrievers[:1], Retriever("ghost", "NOTAKB0000", "gone")])
    events, stats = _run(emulator, broken, RetrieveQuery("API key", (broken.retrievers[0].alias, "ghost"), 3))
    failed = [e for e in events if isinstance(e, TraceEvent) and e.status == "FAILED"]
    assert len(failed) == 1 and failed[0].subQueries[0].knowledgeBases == ["ghost"]
    assert failed[0].failures == ["ResourceNotFoundException"]
    assert isinstance(events[-1], ResultEvent) and stats.calls == 1 and stats.failed == 1


def test_when_every_knowledge_base_fails_the_first_error_is_raised_after_the_traces(emulator, settings):
    broken = replace(settings, retrievers=[Retriever("ghost", "NOTAKB0000", "gone")])
    stats = RetrieveStats()
    stream = run_retrieve(emulator.client(), broken, RetrieveQuery("q", ("ghost",), 3), stats, _describe)
    first = next(stream)
    assert first.status == "FAILED"
    with pytest.raises(Exception, match=r"ResourceNotFound|not found"):
        next(stream)
