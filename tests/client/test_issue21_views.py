"""Issue 21 in the client: trace details and non-text results in the text views, `--more` pages."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner
from rich.console import Console

from client.cli import main
from client.render import ViewRenderer, content_of, footer, step_lines
from contract.events import (
    AppliedInstruction,
    CodeExecution,
    DoneEvent,
    MemoryRetrieve,
    ResultEvent,
    ResultItem,
    RetrievalSource,
    TraceEvent,
)
from tests.client.stub_endpoint import Reply, sse, stub_endpoint
from tests.client.test_ask import akb_ask

IMAGE = ResultItem(
    "docs", "", documentId="diagrams/sync-topology.png", mimeType="image/png", contentType="IMAGE", byteSize=109
)


def test_step_lines_show_code_execution_memory_instruction_sources_and_warnings():
    event = TraceEvent(
        step="CodeExecution",
        status="SUCCEEDED",
        elapsedMs=5,
        codeExecutions=[CodeExecution(["docs/plans-and-pricing.md"])],
        memoryRetrieves=[MemoryRetrieve("rate limits", "mem-1", namespace="/actors/alice/")],
        appliedInstruction=AppliedInstruction("ri1", "2"),
        retrievalSources=[RetrievalSource("docs", "BedrockKnowledgeBase")],
        warnings=["results were truncated"],
    )
    lines = step_lines(event)
    assert "    code execution over docs/plans-and-pricing.md" in lines
    assert '    memory "rate limits" -> /actors/alice/' in lines
    assert "    instruction ri1 v2" in lines
    assert "    sources read: docs (BedrockKnowledgeBase)" in lines
    assert "    warning: results were truncated" in lines


def test_a_non_text_result_shows_a_placeholder_never_an_empty_line():
    assert content_of(IMAGE) == "[image result: image/png, 109 bytes]"
    assert content_of(ResultItem("docs", "plain text", mimeType="text/plain", contentType="TEXT")) == "plain text"
    out = io.StringIO()
    view = ViewRenderer(Console(file=out, highlight=False))
    view.handle(ResultEvent(results=[IMAGE]))
    view.close()
    assert "[1] docs | diagrams/sync-topology.png | [image result: image/png, 109 bytes]" in out.getvalue()


def test_the_footer_says_when_more_results_wait():
    done = DoneEvent("r1", "complete", 1, 1000, 10, nextToken="p2")
    assert footer(done).endswith("| more results: --more 1")
    assert "more results" not in footer(DoneEvent("r1", "complete", 1, 1000, 10))


def test_more_follows_next_token_for_at_most_the_pages_asked():
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(ResultEvent(results=[]), DoneEvent("r", "complete", 0, 1, 5, nextToken="p2"))])
        result = CliRunner().invoke(main, ["ask", "--url", stub.url, "--json", "--more", "2", "q"])
    assert result.exit_code == 0, result.output
    bodies = [json.loads(request.body) for request in stub.requests]
    assert [body.get("nextToken") for body in bodies] == [None, "p2", "p2"]
    assert all(body["question"] == "q" for body in bodies)


def test_more_stops_when_no_token_comes_back():
    with stub_endpoint() as stub:
        stub.reply = Reply(chunks=[sse(ResultEvent(results=[]), DoneEvent("r", "complete", 0, 1, 5))])
        result = CliRunner().invoke(main, ["ask", "--url", stub.url, "--json", "--more", "3", "q"])
    assert result.exit_code == 0 and len(stub.requests) == 1


def test_real_endpoint_more_fetches_the_next_page(endpoint):
    run = akb_ask(
        "--url",
        endpoint.url,
        "--json",
        "--max-results",
        "1",
        "--more",
        "1",
        "Summarize BulkExport and list all its limits",
    )
    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    dones = [event for event in events if event["type"] == "done"]
    results = [event for event in events if event["type"] == "result"]
    assert len(dones) == 2 and dones[0]["nextToken"]
    first = {r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in results[0]["results"]}
    second = {r["metadata"]["x-amz-bedrock-kb-chunk-id"] for r in results[1]["results"]}
    assert second and not first & second
