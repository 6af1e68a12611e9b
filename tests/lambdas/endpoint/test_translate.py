"""Bedrock events -> endpoint events: aliases, step counting, deduplication, citations."""

from __future__ import annotations

from contract.events import ResultEvent, TextEvent, TraceEvent
from lambdas.endpoint.translate import Translator

ALIASES = {"KB1": "docs", "KB2": "tickets"}


def trace(step, status, **attributes):
    return {
        "traceEvent": {
            "id": "1",
            "timestamp": 0,
            "attributes": {"step": step, "status": status, "message": "m", **attributes},
        }
    }


def retrieve(text, *ids):
    return {"retrieve": {"inputQuery": {"text": text}, "sourceRetrievers": [{"identifier": i} for i in ids]}}


def item(kb, chunk, text="t", doc="d"):
    return {
        "content": {"text": text, "mimeType": "text/plain"},
        "sourceRetriever": {"identifier": kb},
        "metadata": {"x-amz-bedrock-kb-chunk-id": chunk, "x-amz-bedrock-kb-source-uri": f"s3://b/{doc}"},
    }


def test_sub_queries_carry_aliases_and_unknown_ids_stay_raw():
    (event,) = Translator(ALIASES).translate(trace("Retrieval", "IN_PROGRESS", actions=[retrieve("q", "KB1", "KBX")]))
    assert isinstance(event, TraceEvent)
    assert event.subQueries[0].text == "q" and event.subQueries[0].knowledgeBases == ["docs", "KBX"]


def test_planning_steps_count_once_per_step_even_with_two_events_each():
    translator = Translator(ALIASES)
    for status in ("IN_PROGRESS", "SUCCEEDED", "IN_PROGRESS", "SUCCEEDED", "SUCCEEDED"):
        translator.translate(trace("Planning", status))
    assert translator.stats.iterations == 3  # the lone SUCCEEDED is a step of its own


def test_sub_queries_count_retrieve_actions_of_retrieval_steps_once():
    translator = Translator(ALIASES)
    translator.translate(trace("SpeculativeRetrieval", "IN_PROGRESS", actions=[retrieve("q", "KB1")]))
    translator.translate(trace("SpeculativeRetrieval", "SUCCEEDED", actions=[retrieve("q", "KB1")]))
    translator.translate(trace("Planning", "SUCCEEDED", actions=[retrieve("a", "KB1"), retrieve("b", "KB2")]))
    translator.translate(trace("Retrieval", "IN_PROGRESS", actions=[retrieve("a", "KB1")]))
    translator.translate(trace("Retrieval", "SUCCEEDED", actions=[retrieve("a", "KB1")]))
    translator.translate(trace("Retrieval", "FAILED", actions=[retrieve("b", "KB2")], failures=[{"message": "boom"}]))
    assert translator.stats.sub_queries == 3


def test_guardrail_warnings_documents_and_failures_are_reported():
    translator = Translator(ALIASES)
    (event,) = translator.translate(
        trace(
            "FullDocumentExpansion",
            "SUCCEEDED",
            actions=[
                {
                    "fullDocumentExpansion": {
                        "documentId": "api/keys.md",
                        "sourceRetriever": {"identifier": "KB1"},
                    }
                }
            ],
            warnings=[{"guardrail": {"action": "INTERVENED", "id": "g", "version": "1"}}],
            failures=[{"message": "partial"}],
            retrievalResponse=[item("KB1", "c1"), item("KB1", "c2")],
        )
    )
    assert event.documents == ["api/keys.md"] and event.failures == ["partial"] and event.retrievedCount == 2
    assert event.guardrail[0].action == "INTERVENED" and translator.stats.guardrail_interventions == 1


def test_results_are_deduplicated_and_citations_repointed():
    translator = Translator(ALIASES)
    (event,) = translator.translate(
        {
            "result": {
                "results": [
                    item("KB1", "c1", doc="a"),
                    item("KB2", "c9", doc="b"),
                    item("KB1", "c1", doc="a"),
                    item("KB1", "c2", doc="a"),
                ],
                "generatedResponse": {
                    "answer": "x y",
                    "citations": [
                        {
                            "startIndex": 0,
                            "endIndex": 1,
                            "references": [{"resultIndex": 2}, {"resultIndex": 0}],
                        },
                        {
                            "startIndex": 2,
                            "endIndex": 3,
                            "references": [{"resultIndex": 3}, {"resultIndex": 99}],
                        },
                    ],
                },
            }
        }
    )
    assert isinstance(event, ResultEvent)
    assert [(r.knowledgeBase, r.metadata["x-amz-bedrock-kb-chunk-id"]) for r in event.results] == [
        ("docs", "c1"),
        ("tickets", "c9"),
        ("docs", "c2"),
    ]
    assert [c.results for c in event.citations] == [[0], [2]]
    assert event.answer == "x y"
    assert (
        translator.stats.results,
        translator.stats.distinct_documents,
        translator.stats.cited_results,
    ) == (3, 2, 2)


def test_response_text_becomes_deltas_and_unknown_members_are_skipped():
    translator = Translator(ALIASES)
    assert translator.translate({"responseEvent": {"text": "Hel"}}) == [TextEvent("Hel")]
    assert translator.translate({"responseEvent": {"text": ""}}) == []
    assert translator.translate({"somethingNew": {}}) == []
