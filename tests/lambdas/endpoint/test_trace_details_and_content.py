"""Issue 21: trace details (codeExecution, memoryRetrieve, appliedInstruction, retrievalMetadata,
plain warnings), non-text results, and pagination, from Bedrock's events to the endpoint's."""

from __future__ import annotations

import base64

from contract.events import ResultEvent, TraceEvent, event_from_dict, event_to_dict
from lambdas.endpoint.translate import INLINE_BYTES_LIMIT, Translator

ALIASES = {"KB1": "docs", "KB2": "tickets"}


def trace(step: str, status: str, **attributes):
    return {"traceEvent": {"id": "1", "timestamp": 0, "attributes": {"step": step, "status": status, **attributes}}}


def test_code_execution_memory_retrieve_instruction_and_sources_become_trace_fields():
    (event,) = Translator(ALIASES).translate(
        trace(
            "CodeExecution",
            "SUCCEEDED",
            message="m",
            actions=[
                {
                    "codeExecution": {
                        "documents": [{"documentId": "plans.md", "sourceRetriever": {"identifier": "KB1"}}]
                    }
                },
                {"memoryRetrieve": {"inputQuery": {"text": "rate limits"}, "memoryId": "mem-1", "namespace": "/a/b"}},
            ],
            appliedInstruction={"id": "ri1", "version": "2"},
            retrievalMetadata=[{"identifier": "KB2", "retrievalType": "BedrockKnowledgeBase"}],
            warnings=[{"message": {"message": "results were truncated"}}],
        )
    )
    assert isinstance(event, TraceEvent)
    assert event.codeExecutions[0].documents == ["docs/plans.md"]
    memory = event.memoryRetrieves[0]
    assert (memory.query, memory.memoryId, memory.namespace, memory.strategyId) == (
        "rate limits",
        "mem-1",
        "/a/b",
        None,
    )
    assert (event.appliedInstruction.id, event.appliedInstruction.version) == ("ri1", "2")
    assert [(s.source, s.retrievalType) for s in event.retrievalSources] == [("tickets", "BedrockKnowledgeBase")]
    assert event.warnings == ["results were truncated"]


def test_new_trace_fields_survive_the_wire_and_stay_out_when_unset():
    (event,) = Translator(ALIASES).translate(
        trace("Planning", "SUCCEEDED", message="m", appliedInstruction={"id": "ri1"})
    )
    wire = event_to_dict(event)
    assert wire["appliedInstruction"] == {"id": "ri1", "version": None}
    assert not {"codeExecutions", "memoryRetrieves", "retrievalSources", "warnings"} & wire.keys()
    assert event_from_dict("trace", wire) == event


def test_expanded_documents_name_their_knowledge_base():
    action = {"fullDocumentExpansion": {"documentId": "d.md", "sourceRetriever": {"identifier": "KB2"}}}
    (event,) = Translator(ALIASES).translate(trace("FullDocumentExpansion", "SUCCEEDED", message="m", actions=[action]))
    assert (event.documents, event.documentSources) == (["d.md"], ["tickets"])


def image(kb: str, data: bytes, chunk: str = "c1"):
    return {
        "content": {"byteContent": data, "mimeType": "image/png"},
        "sourceRetriever": {"identifier": kb},
        "metadata": {"x-amz-bedrock-kb-chunk-id": chunk, "x-amz-bedrock-kb-document-id": "diagram.png"},
    }


def test_a_small_image_keeps_its_type_and_rides_inline_as_base64():
    (event,) = Translator(ALIASES).translate({"result": {"results": [image("KB1", b"\x89PNG-small")]}})
    assert isinstance(event, ResultEvent)
    (item,) = event.results
    assert (item.mimeType, item.contentType, item.byteSize, item.text) == ("image/png", "IMAGE", 10, "")
    assert base64.b64decode(item.byteContent) == b"\x89PNG-small"


def test_a_large_image_is_summarized_by_type_size_and_source_never_inlined():
    data = b"\x00" * (INLINE_BYTES_LIMIT + 1)
    (event,) = Translator(ALIASES).translate({"result": {"results": [image("KB1", data)]}})
    (item,) = event.results
    assert item.byteContent is None
    assert (item.contentType, item.byteSize, item.knowledgeBase, item.documentId) == (
        "IMAGE",
        INLINE_BYTES_LIMIT + 1,
        "docs",
        "diagram.png",
    )
    assert "byteContent" not in event_to_dict(event)["results"][0]


def test_text_results_keep_their_mime_type_and_older_fields_unchanged():
    raw = {"content": {"text": "t", "mimeType": "text/plain"}, "sourceRetriever": {"identifier": "KB1"}}
    (event,) = Translator(ALIASES).translate({"result": {"results": [raw]}})
    wire = event_to_dict(event)["results"][0]
    assert wire == {
        "knowledgeBase": "docs",
        "text": "t",
        "metadata": {},
        "documentId": None,
        "mimeType": "text/plain",
        "contentType": "TEXT",
    }


def test_the_results_next_token_is_kept_for_done():
    translator = Translator(ALIASES)
    translator.translate({"result": {"results": [], "nextToken": "page-2"}})
    assert translator.stats.next_token == "page-2"
