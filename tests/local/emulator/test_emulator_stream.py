"""AgenticRetrieveStream through the unmodified boto3 client: every member, the planner, ACLs, filters."""

from __future__ import annotations

import re
import time

import pytest

from local.emulator import kb_id_for
from local.emulator.answer import NOTHING_FOUND
from tests.local.emulator_helpers import MULTI_HOP, finished, request, result, retriever, run, traces

STEPS_IN_ORDER = ["SpeculativeRetrieval", "Planning", "Retrieval", "FullDocumentExpansion"]


def planning_queries(events) -> list[list[str]]:
    return [[a["retrieve"]["inputQuery"]["text"] for a in t.get("actions", [])] for t in finished(events, "Planning")]


def test_every_event_member_and_step_parses(bedrock):
    events = run(bedrock, **request("Summarize BulkExport and list all its limits"))
    assert {next(iter(e)) for e in events} == {"traceEvent", "responseEvent", "result"}
    assert next(iter(events[-1])) == "result"
    steps = [t["step"] for t in traces(events)]
    assert set(steps) == set(STEPS_IN_ORDER)
    for event in events:
        if "traceEvent" in event:
            assert event["traceEvent"]["id"] and isinstance(event["traceEvent"]["timestamp"], int)
    expansion = finished(events, "FullDocumentExpansion")[0]
    detail = expansion["actions"][0]["fullDocumentExpansion"]
    assert detail["sourceRetriever"]["identifier"] in {kb_id_for("docs"), kb_id_for("tickets")}
    assert all(
        r["metadata"]["x-amz-bedrock-kb-document-id"] == detail["documentId"] for r in expansion["retrievalResponse"]
    )


def test_each_step_goes_in_progress_then_succeeded(bedrock):
    attributes = traces(run(bedrock, **request(MULTI_HOP)))
    for started, ended in zip(attributes[::2], attributes[1::2], strict=True):
        assert (started["status"], ended["status"]) == ("IN_PROGRESS", "SUCCEEDED")
        assert started["step"] == ended["step"]


def test_speculative_retrieval_uses_the_original_query_and_is_not_an_iteration(bedrock):
    events = run(bedrock, **request("How long are exports kept?", max_iterations=1))
    first = traces(events)[0]
    assert first["step"] == "SpeculativeRetrieval"
    assert first["actions"][0]["retrieve"]["inputQuery"]["text"] == "How long are exports kept?"
    assert len(finished(events, "Planning")) == 1


def test_zero_iterations_is_speculative_retrieval_only(bedrock):
    events = run(bedrock, **request(MULTI_HOP, max_iterations=0))
    assert {t["step"] for t in traces(events)} == {"SpeculativeRetrieval"}
    assert result(events)["results"]


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5])
def test_planning_steps_never_exceed_max_agent_iteration(bedrock, cap):
    assert 1 <= len(finished(run(bedrock, **request(MULTI_HOP, max_iterations=cap)), "Planning")) <= cap


def test_multi_hop_follows_the_error_code_in_the_ticket_to_its_runbook_then_stops(bedrock):
    events = run(bedrock, **request(MULTI_HOP, max_iterations=3))
    planning = finished(events, "Planning")
    assert any(q.startswith("ACME-4012") for q in planning_queries(events)[0])  # the code found in the ticket
    assert "actions" not in planning[-1] and "sufficient" in planning[-1]["message"]
    documents = [r["metadata"]["x-amz-bedrock-kb-document-id"] for r in result(events)["results"]]
    assert documents[:2] == ["TCK-1183.md", "runbooks/bulk-export.md"]  # the supporting passages first
    answer = result(events)["generatedResponse"]["answer"]
    assert "Team Orion" in answer and "SkyLedger 4.2.1" in answer


def test_a_question_its_first_evidence_answers_stops_at_the_first_plan(bedrock):
    events = run(bedrock, **request("What are the rate limits of the Pro plan?"))
    (planning,) = finished(events, "Planning")
    assert "actions" not in planning and "sufficient" in planning["message"]
    assert not finished(events, "Retrieval")
    generated = result(events)["generatedResponse"]
    assert generated["answer"] == "Pro plan: 1,000 requests per minute."
    assert [c["references"][0]["resultIndex"] for c in generated["citations"]] == [0]


def test_multi_hop_questions_take_more_planning_steps_than_single_hop_ones(bedrock):
    single = finished(run(bedrock, **request("How many rows can one BulkExport contain?")), "Planning")
    multi = finished(run(bedrock, **request(MULTI_HOP)), "Planning")
    three_hops = "Who leads the team that owns the service migrated under ADR-007?"
    deep = finished(run(bedrock, **request(three_hops, ("handbook", "wiki"), 4)), "Planning")
    assert len(single) == 1 and 2 <= len(multi) <= 3 and 2 <= len(deep) <= 4
    assert all("actions" not in steps[-1] for steps in (single, multi, deep))


def test_a_question_the_corpus_cannot_answer_says_so_without_citations_and_stops(bedrock):
    events = run(bedrock, **request("What is the phone number of Acme support?"))
    planning = finished(events, "Planning")
    assert 1 <= len(planning) < 3 and "actions" not in planning[-1]
    assert planning[-1]["message"].startswith("No further leads in the evidence")
    generated = result(events)["generatedResponse"]
    assert generated == {"answer": NOTHING_FOUND, "citations": []}
    assert result(events)["results"]  # what was retrieved is still there


def test_comparison_across_knowledge_bases_routes_each_side_by_description(bedrock):
    events = run(bedrock, **request("Compare the WebhookRelay retry attempts in the documentation with the runbook"))
    plan = finished(events, "Planning")[0]
    routes = {
        a["retrieve"]["inputQuery"]["text"]: [s["identifier"] for s in a["retrieve"]["sourceRetrievers"]]
        for a in plan["actions"]
    }
    assert routes == {
        "WebhookRelay retry attempts documentation": [kb_id_for("docs")],
        "runbook retry attempts": [kb_id_for("tickets")],
    }
    answer = result(events)["generatedResponse"]["answer"]
    assert "8 delivery attempts" in answer
    documents = {r["metadata"]["x-amz-bedrock-kb-document-id"] for r in result(events)["results"]}
    assert {"signalbox/webhook-relay.md", "runbooks/webhook-relay.md"} <= documents


def test_routing_reads_the_descriptions_in_the_request(bedrock):
    swapped = request("Compare the WebhookRelay retry attempts in the documentation with the runbook")
    swapped["retrievers"] = [
        retriever("docs", "Closed customer support tickets and runbooks."),
        retriever("tickets", "Public product documentation and API reference."),
    ]
    plan = finished(run(bedrock, **swapped), "Planning")[0]
    first_route = plan["actions"][0]["retrieve"]["sourceRetrievers"]
    assert first_route == [{"identifier": kb_id_for("tickets")}]


def test_routing_falls_back_to_every_retriever_without_descriptions(bedrock):
    plain = request("How do I configure SSO, SCIM and audit logs?")
    plain["retrievers"] = [retriever("docs", ""), retriever("tickets", "")]
    plan = finished(run(bedrock, **plain), "Planning")[0]
    assert len(plan["actions"]) == 3
    for action in plan["actions"]:
        assert len(action["retrieve"]["sourceRetrievers"]) == 2


def test_results_are_deduplicated_by_chunk_and_name_their_knowledge_base(bedrock):
    events = run(bedrock, **request("SkyLedger vs PipeDream retry"))
    retrieved = [
        r["metadata"]["x-amz-bedrock-kb-chunk-id"]
        for t in finished(events, "Retrieval")
        for r in t["retrievalResponse"]
    ]
    assert len(retrieved) > len(set(retrieved))  # sub-queries found the same chunks...
    final = [r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in result(events)["results"]]
    assert len(final) == len(set(final))  # ...the result lists each once
    for item in result(events)["results"]:
        folder = item["metadata"]["x-amz-bedrock-kb-source-uri"].split("/")[2].removeprefix("akb-local-")
        assert item["sourceRetriever"]["identifier"] == kb_id_for(folder)
        assert item["content"]["text"]


def test_result_metadata_has_the_service_keys_and_the_documents_attributes(bedrock):
    events = run(bedrock, **request("BulkExport row limit", ("docs",)))
    item = next(
        r
        for r in result(events)["results"]
        if r["metadata"]["x-amz-bedrock-kb-document-id"] == "skyledger/bulk-export.md"
    )
    metadata = item["metadata"]
    assert metadata["x-amz-bedrock-kb-source-uri"] == "s3://akb-local-docs/skyledger/bulk-export.md"
    assert metadata["x-amz-bedrock-kb-chunk-id"].startswith("docs/skyledger/bulk-export.md#")
    assert (metadata["product"], metadata["year"], metadata["tags"]) == (
        "skyledger",
        2024,
        ["export", "billing"],
    )


def test_answer_is_streamed_in_pieces_and_cites_the_results(bedrock):
    events = run(bedrock, **request("How many rows can one BulkExport contain and how long are exports kept?"))
    pieces = [e["responseEvent"]["text"] for e in events if "responseEvent" in e]
    generated = result(events)["generatedResponse"]
    assert len(pieces) > 2 and "".join(pieces) == generated["answer"]
    assert generated["citations"]
    for citation in generated["citations"]:
        span = generated["answer"][citation["startIndex"] : citation["endIndex"]]
        (reference,) = citation["references"]
        assert span in result(events)["results"][reference["resultIndex"]]["content"]["text"]


def test_without_generate_response_there_is_no_answer(bedrock):
    events = run(bedrock, **request("BulkExport row limit", generateResponse=False))
    assert not [e for e in events if "responseEvent" in e]
    assert "generatedResponse" not in result(events) and result(events)["results"]


def test_retrieval_instruction_is_reported_as_applied(bedrock):
    events = run(
        bedrock,
        **request("exports", retrievalInstructionConfiguration={"retrievalInstructionId": "abc", "version": "2"}),
    )
    assert finished(events, "Planning")[0]["appliedInstruction"] == {"id": "abc", "version": "2"}


ROADMAP = "When will the BulkExport row limit be raised to 2,000,000 rows in SkyLedger 5.0?"


@pytest.mark.parametrize(("user", "visible"), [(None, False), ("mallory", False), ("alice", True)])
def test_acl_protected_documents_need_a_listed_user(bedrock, user, visible):
    extra = {"userContext": {"userId": user}} if user else {}
    events = run(bedrock, **request(ROADMAP, ("docs",), **extra))
    seen = {
        r["metadata"]["x-amz-bedrock-kb-document-id"] for t in traces(events) for r in t.get("retrievalResponse", [])
    }
    seen |= {r["metadata"]["x-amz-bedrock-kb-document-id"] for r in result(events)["results"]}
    assert ("internal/roadmap-2025.md" in seen) is visible


def test_metadata_filter_limits_each_retriever(bedrock):
    signalbox_only = {
        "andAll": [
            {"equals": {"key": "product", "value": "signalbox"}},
            {"greaterThanOrEquals": {"key": "year", "value": 2023}},
        ]
    }
    body = request("retry attempts and retry budget", max_iterations=2)
    body["retrievers"] = [
        retriever("docs", filter=signalbox_only),
        retriever("tickets", filter={"listContains": {"key": "tags", "value": "retry"}}),
    ]
    events = run(bedrock, **body)
    items = [r for t in traces(events) for r in t.get("retrievalResponse", [])] + result(events)["results"]
    assert items
    for item in items:
        if item["sourceRetriever"]["identifier"] == kb_id_for("docs"):
            assert item["metadata"]["product"] == "signalbox"
        else:
            assert "retry" in item["metadata"]["tags"]


def test_max_number_of_results_caps_each_retrieval_and_the_result(bedrock):
    body = request("webhook retries and export limits and rate limits")
    body["retrievers"] = [retriever("docs", maxNumberOfResults=2), retriever("tickets", maxNumberOfResults=1)]
    events = run(bedrock, **body)
    caps = {kb_id_for("docs"): 2, kb_id_for("tickets"): 1}
    for trace in finished(events, "Retrieval") + finished(events, "SpeculativeRetrieval"):
        for kb_id, cap in caps.items():
            assert sum(r["sourceRetriever"]["identifier"] == kb_id for r in trace["retrievalResponse"]) <= cap
    final = result(events)["results"]
    for kb_id, cap in caps.items():
        assert 0 < sum(r["sourceRetriever"]["identifier"] == kb_id for r in final) <= cap


def test_events_are_flushed_as_they_are_produced(bedrock, emulator):
    emulator.set_faults(delay_ms=40)
    arrivals = []
    start = time.monotonic()
    for _ in bedrock.agentic_retrieve_stream(**request("How long are exports kept?", max_iterations=1))["stream"]:
        arrivals.append(time.monotonic() - start)
    assert len(arrivals) >= 6
    assert arrivals[-1] - arrivals[0] >= 0.04 * (len(arrivals) - 1) * 0.8
    assert arrivals[0] < arrivals[-1] / 2  # the first event did not wait for the last


def test_follow_up_history_uses_the_last_user_message(bedrock):
    body = request("What is ACME-2204?")
    body["messages"] = [
        {"role": "user", "content": {"text": "Hello"}},
        {"role": "assistant", "content": {"text": "Hi, how can I help?"}},
        *body["messages"],
    ]
    events = run(bedrock, **body)
    assert traces(events)[0]["actions"][0]["retrieve"]["inputQuery"]["text"] == "What is ACME-2204?"


def _agrees(count: int, noun_phrase: str, singular: str, plural: str) -> bool:
    return noun_phrase == (singular if count == 1 else plural)


def test_trace_messages_read_as_sentences_with_counts_that_agree(bedrock):
    events = run(bedrock, **request(MULTI_HOP, max_iterations=3))
    speculative = finished(events, "SpeculativeRetrieval")[0]
    count = len(speculative["retrievalResponse"])
    assert speculative["message"] == f"Retrieved {count} result{'' if count == 1 else 's'} for the original query"
    (first, *_) = finished(events, "Planning")
    match = re.fullmatch(
        r"Split the question into (\d+) (sub-quer(?:y|ies)); Following (\d+) (new leads?) found in the evidence: .+",
        first["message"],
    )
    assert match, first["message"]  # the multi-part, multi-hop question splits and follows a lead
    assert int(match[1]) + int(match[3]) == len(first["actions"])
    assert _agrees(int(match[1]), match[2], "sub-query", "sub-queries")
    assert _agrees(int(match[3]), match[4], "new lead", "new leads")
    for trace in traces(events):
        assert "for with" not in trace["message"]
        for number, noun in re.findall(r"\b(\d+) (results?|chunks?|sub-quer(?:y|ies))\b", trace["message"]):
            singular = {"result": "result", "results": "result", "chunk": "chunk", "chunks": "chunk"}.get(
                noun, "sub-query"
            )
            assert _agrees(int(number), noun, singular, "sub-queries" if singular == "sub-query" else singular + "s")
