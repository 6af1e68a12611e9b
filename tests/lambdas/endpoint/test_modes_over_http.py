"""`retrieve` and `auto` through the real endpoint (uvicorn) and the emulator, read with the real client."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest

from client.endpoint_client import Client, EndpointHTTPError
from contract.events import DoneEvent, ResultEvent, TextEvent, TraceEvent
from contract.settings import RoutingSettings
from tests.endpoint_server import start_endpoint, tenant_settings


def ask(url: str, question: str, **options):
    with Client(url) as client:
        return list(client.query(question, **options))


def test_retrieve_mode_streams_a_trace_per_knowledge_base_a_fused_result_and_done(emulator, endpoint):
    emulator.reset()
    events = ask(endpoint.url, "How do I rotate an API key?", mode="retrieve")
    traces = [e for e in events if isinstance(e, TraceEvent)]
    result = next(e for e in events if isinstance(e, ResultEvent))
    done = events[-1]
    aliases = [r.alias for r in endpoint.settings.retrievers]
    assert sorted(t.subQueries[0].knowledgeBases[0] for t in traces) == sorted(aliases)
    assert all(t.step == "Retrieval" and t.status == "SUCCEEDED" for t in traces)
    assert not any(isinstance(e, TextEvent) for e in events) and result.answer is None
    assert result.note and "no generated answer" in result.note
    assert result.results[0].documentId == "api/authentication.md"
    assert isinstance(done, DoneEvent) and done.mode == "retrieve" and done.stopReason == "complete"
    assert done.iterations == 0
    assert done.estimatedCostUsd == pytest.approx(len(aliases) * endpoint.settings.retrieve_price_per_1000_usd / 1000)

    journal = httpx.get(f"{emulator.url}/_emulator/requests").json()
    retrieves = [r for r in journal if r["path"].endswith("/retrieve")]
    assert len(retrieves) == len(aliases) and not any(r["path"] == "/agenticRetrieveStream" for r in journal)
    for record in retrieves:
        assert record["body"]["retrievalQuery"] == {"text": "How do I rotate an API key?"}
        config = record["body"]["retrievalConfiguration"]["managedSearchConfiguration"]
        assert config["numberOfResults"] == endpoint.settings.max_results


def test_auto_sends_a_short_question_to_retrieve_and_says_why_first(emulator, endpoint):
    events = ask(endpoint.url, "How do I rotate an API key?", mode="auto")
    first = events[0]
    assert isinstance(first, TraceEvent) and first.step == "Routing"
    assert first.message.startswith("auto -> retrieve: ") and "7 words <= 12" in first.message
    assert events[-1].mode == "retrieve"
    assert events[-1].estimatedCostUsd == pytest.approx(0.002)  # two knowledge bases, no planner


def test_auto_sends_a_comparison_to_agentic(emulator, endpoint):
    emulator.reset()
    events = ask(endpoint.url, "Compare SSO on the Pro and Enterprise plans", mode="auto")
    assert events[0].step == "Routing" and "comparison cue 'compare'" in events[0].message
    assert any(isinstance(e, TraceEvent) and e.step == "Planning" for e in events)
    done = events[-1]
    assert done.mode == "agentic" and done.iterations >= 1
    assert any(r["path"] == "/agenticRetrieveStream" for r in emulator.requests())


def test_the_tenant_default_mode_applies_when_the_request_names_none(emulator):
    settings = tenant_settings(routing=RoutingSettings(default_mode="auto"))
    with start_endpoint(emulator, settings) as endpoint:
        events = ask(endpoint.url, "What does error ACME-2204 mean?")
    assert events[0].step == "Routing" and events[-1].mode == "retrieve"


def test_without_a_tenant_default_requests_stay_agentic(endpoint):
    events = ask(endpoint.url, "What does error ACME-2204 mean?")
    assert events[-1].mode == "agentic" and not any(getattr(e, "step", None) == "Routing" for e in events)


def test_an_unknown_mode_is_a_400_naming_the_modes(endpoint):
    with pytest.raises(EndpointHTTPError) as caught:
        ask(endpoint.url, "q", mode="fast")
    assert caught.value.status == 400 and "agentic, auto, retrieve" in caught.value.message


@pytest.mark.parametrize("mode", ["agentic", "retrieve"])
def test_max_results_applies_per_knowledge_base_not_to_the_whole_result(endpoint, mode):
    """Documented in docs/endpoint.md and `akb ask --help`: two knowledge bases, maxResults 3 -> up to 6."""
    events = ask(endpoint.url, "exports and webhooks", mode=mode, max_results=3, knowledge_bases=["docs", "tickets"])
    results = next(e for e in events if isinstance(e, ResultEvent)).results
    per_kb = Counter(r.knowledgeBase for r in results)
    assert 3 < len(results) <= 6
    assert set(per_kb) == {"docs", "tickets"} and max(per_kb.values()) <= 3
