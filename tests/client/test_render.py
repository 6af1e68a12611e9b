"""What `akb ask` shows: citations placed, steps described, plain lines outside a terminal."""

from __future__ import annotations

import io
import json

from rich.console import Console

from client.render import JsonRenderer, QuietRenderer, ViewRenderer, cite, footer, snippet, step_lines
from contract.events import (
    Citation,
    DoneEvent,
    ErrorEvent,
    GuardrailWarning,
    SubQuery,
    TraceEvent,
    event_from_dict,
)
from tests.client.stub_endpoint import sample_events


def _render(renderer_factory, events):
    out = io.StringIO()
    renderer = renderer_factory(out)
    for event in events:
        renderer.handle(event)
    renderer.close()
    return out.getvalue()


def _plain(out):
    return ViewRenderer(Console(file=out, highlight=False))  # a StringIO is not a terminal


def test_cite_inserts_markers_at_end_offsets_numbered_from_one():
    answer = "Limits are 100/min. Back off on 429."
    citations = [Citation(0, 19, [0]), Citation(20, 36, [1, 0]), Citation(20, 36, [2])]
    assert cite(answer, citations, result_count=3) == "Limits are 100/min.[1] Back off on 429.[2][1][3]"


def test_cite_clamps_offsets_and_ignores_unknown_result_indexes():
    assert cite("abc", [Citation(0, 99, [0, 7]), Citation(0, -4, [5])], result_count=1) == "abc[1]"


def test_step_lines_describe_sub_queries_counts_failures_and_guardrail():
    event = TraceEvent(
        step="Retrieval",
        status="FAILED",
        elapsedMs=812,
        message="one retriever failed",
        subQueries=[SubQuery("refund policy", ["handbook", "wiki"])],
        retrievedCount=4,
        documents=["a", "b", "c"],
        failures=["wiki: throttled"],
        guardrail=[GuardrailWarning("NONE", "gr-1", "2"), GuardrailWarning("INTERVENED", "gr-1", "2")],
    )
    assert step_lines(event) == [
        "! Retrieval failed (812 ms): one retriever failed",
        '    query "refund policy" -> handbook, wiki',
        "    retrieved 4 from 3 documents",
        "    failure: wiki: throttled",
        "    guardrail INTERVENED (gr-1 v2)",
    ]


def test_plain_view_is_line_based_without_escape_codes_and_shows_the_answer_once():
    text = _render(_plain, sample_events())
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0] == "> Planning started (3 ms)"
    assert '    query "429 handling" -> docs, wiki' in lines
    assert "The limit is 100 requests per minute.[1][2]" in lines
    assert text.count("The limit is 100 requests") == 1
    assert "[1] docs | api/rate-limits.md | Each API key may send 100 requests per minute." in lines
    assert "[2] wiki | s3://b/w.md | Clients should back off on 429." in lines
    assert lines[-1].startswith("1 iteration | first event 3 ms | duration 0.12 s | est. cost $0.0060")
    # Order: trace, then answer, then sources, then footer.
    order = [lines.index(x) for x in ("+ Retrieval succeeded (90 ms)", "Answer", "Sources (2)")]
    assert order == sorted(order)


def test_plain_view_does_not_wrap_long_lines():
    long_answer = "word " * 60
    events = [event_from_dict("text", {"delta": long_answer}), sample_events()[-1]]
    lines = _render(_plain, events).splitlines()
    assert lines[lines.index("Answer") + 1].rstrip() == long_answer.rstrip()


def test_error_event_is_shown_after_the_partial_answer():
    events = [
        event_from_dict("text", {"delta": "Partial"}),
        ErrorEvent(code="deadline", message="the request ran out of time", retryable=True),
        DoneEvent(requestId="r", stopReason="deadline", iterations=2, durationMs=2900, timeToFirstEventMs=10),
    ]
    lines = _render(_plain, events).splitlines()
    assert lines[lines.index("Partial") + 1] == "error deadline: the request ran out of time (retryable)"
    assert "stop deadline" in lines[-1]


def test_terminal_view_ends_with_the_cited_answer_and_a_sources_table():
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system="standard")
    renderer = ViewRenderer(console)
    for event in sample_events():
        renderer.handle(event)
    renderer.close()
    text = out.getvalue()
    assert "\x1b[" in text  # styled
    assert "The limit is 100 requests per minute.[1][2]" in text
    assert "api/rate-limits.md" in text and "knowledge base" in text


def test_json_renderer_writes_one_parseable_line_per_event():
    lines = _render(JsonRenderer, sample_events()).splitlines()
    assert [json.loads(line)["type"] for line in lines] == [e.type for e in sample_events()]
    assert [event_from_dict(d.pop("type"), d) for d in map(json.loads, lines)] == sample_events()


def test_quiet_renderer_prints_only_the_answer():
    assert _render(QuietRenderer, sample_events()) == "The limit is 100 requests per minute.\n"


def test_footer_and_snippet_formats():
    done = DoneEvent(requestId="r9", stopReason="complete", iterations=3, durationMs=1530, timeToFirstEventMs=None)
    assert footer(done) == "3 iterations | duration 1.53 s | mode agentic | stop complete | request r9"
    assert snippet("a\n\n b   c") == "a b c"
    assert snippet("x" * 200, limit=10) == "xxxxxxx..."


def test_footer_marks_an_estimate_that_leaves_the_planner_model_out():
    base = {"requestId": "r9", "stopReason": "complete", "iterations": 1, "durationMs": 900, "estimatedCostUsd": 0.001}
    assert "est. cost $0.0010 (excl. planner model) |" in footer(
        DoneEvent(**base, estimatedCostExcludesPlannerModel=True)
    )
    assert "est. cost $0.0010 |" in footer(DoneEvent(**base))


def test_sub_queries_announced_at_a_steps_start_are_not_repeated_at_its_end():
    sub = [SubQuery("rotate API key", ["docs"])]
    events = [
        TraceEvent(step="Retrieval", status="IN_PROGRESS", elapsedMs=1, subQueries=sub),
        TraceEvent(step="Retrieval", status="SUCCEEDED", elapsedMs=2, subQueries=sub, retrievedCount=3),
        TraceEvent(step="Retrieval", status="IN_PROGRESS", elapsedMs=3, subQueries=sub),
    ]
    text = _render(_plain, events)
    assert text.count('query "rotate API key" -> docs') == 2  # both starts, not the end
    assert "    retrieved 3" in text.splitlines()


def test_a_partial_answer_is_marked_with_the_knowledge_bases_that_failed():
    events = [
        event_from_dict("result", {"results": [{"knowledgeBase": "docs", "text": "Keys rotate weekly."}]}),
        event_from_dict(
            "done",
            {
                "requestId": "r",
                "stopReason": "partial",
                "iterations": 0,
                "durationMs": 90,
                "timeToFirstEventMs": 40,
                "mode": "retrieve",
                "partial": True,
                "failedKnowledgeBases": ["tickets"],
            },
        ),
    ]
    lines = _render(_plain, events).splitlines()
    assert lines[-2] == (
        "PARTIAL ANSWER (stop partial): knowledge bases tickets failed; results and answer may be missing parts"
    )
    assert "stop partial" in lines[-1]
    complete = _render(_plain, sample_events())
    assert "PARTIAL" not in complete
