"""The emulator's answer: the answering sentence first, only sentences bearing on the question, each
cited, a few sources, and a plain "not found" when nothing supports the question."""

from __future__ import annotations

import pytest

from local.emulator.agentic_stream import AgenticRun
from local.emulator.answer import NOTHING_FOUND, compose_answer, missing_part, stream_pieces
from local.emulator.corpus import load_corpus
from local.emulator.index import KnowledgeBaseIndex
from local.emulator.sufficiency import needs_for
from tests.local.emulator_helpers import request


@pytest.fixture(scope="module")
def indexes():
    return {kb_id: KnowledgeBaseIndex(kb) for kb_id, kb in load_corpus().items()}


def generated(indexes, question, folders=("docs", "tickets"), cap=3):
    """The result event of one in-process run: (results, generatedResponse)."""
    messages = list(AgenticRun(request(question, folders, cap), indexes).messages())
    result = messages[-1].body
    return result["results"], result["generatedResponse"]


@pytest.mark.parametrize(
    ("question", "first_sentence"),
    [
        ("What are the rate limits of the Pro plan?", "Pro plan: 1,000 requests per minute."),
        ("How do I rotate an API key?", "To rotate a key without downtime, create a second key"),
        ("How long are exports kept?", "Exports are kept for 7 days."),
        ("Which regions does TaxEngine support?", "Supported regions: all US states"),
        ("How many rows can one BulkExport contain?", "One export can contain at most 500,000 rows."),
    ],
)
def test_the_sentence_that_answers_comes_first(indexes, question, first_sentence):
    _, answer = generated(indexes, question)
    assert answer["answer"].startswith(first_sentence)
    assert len(answer["answer"]) < 300  # focused: not a page of loosely related sentences


def test_every_sentence_is_cited_and_each_citation_spans_text_of_its_result(indexes):
    results, answer = generated(indexes, "Which team owns the feature behind the error in ticket TCK-1183?")
    covered = 0
    for citation in answer["citations"]:
        span = answer["answer"][citation["startIndex"] : citation["endIndex"]]
        (reference,) = citation["references"]
        assert span and span in results[reference["resultIndex"]]["content"]["text"]
        covered += len(span) + 1
    assert covered == len(answer["answer"]) + 1  # the spans (and the spaces between) are the whole answer


@pytest.mark.parametrize(
    "question",
    [
        "What are the rate limits of the Pro plan?",
        "Which team owns the feature behind the error in ticket TCK-1183, and which version fixed it?",
        "Compare the WebhookRelay retry attempts in the documentation with the runbook",
    ],
)
def test_an_answer_cites_a_few_sources_and_the_rest_stay_retrieved_results(indexes, question):
    results, answer = generated(indexes, question)
    cited = {c["references"][0]["resultIndex"] for c in answer["citations"]}
    assert 1 <= len(cited) <= 5
    assert len(results) > len(cited)


def test_a_question_nothing_supports_gets_the_not_found_answer_alone(indexes):
    _, answer = generated(indexes, "How many engineers work in Team Vega?")
    assert answer == {"answer": NOTHING_FOUND, "citations": []}


def test_a_part_nothing_supports_is_named_after_the_parts_that_are_answered(indexes):
    question = "How long are exports kept and what is the phone number of Acme support?"
    _, answer = generated(indexes, question)
    (unsupported,) = [n for n in needs_for(question) if "phone" in n.text]
    assert answer["answer"].startswith("Exports are kept for 7 days.")
    assert answer["answer"].endswith(missing_part(unsupported))
    last_cited = max(c["endIndex"] for c in answer["citations"])
    assert last_cited < len(answer["answer"]) - len(missing_part(unsupported))  # that sentence is not cited


def test_without_evidence_the_answer_is_not_found():
    assert compose_answer([], [], []).text == NOTHING_FOUND


def test_stream_pieces_rebuild_the_answer_exactly():
    text = "one two three four five six seven eight nine ten eleven twelve thirteen"
    pieces = stream_pieces(text, words_per_piece=4)
    assert len(pieces) == 4 and "".join(pieces) == text
