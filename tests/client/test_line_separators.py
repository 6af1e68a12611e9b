"""Every character Python's `str.splitlines()` treats as a line end, in the question and in a passage, through
`akb ask`, `akb mcp` and the Python client against `akb local` (its corpus given one extra document with
`--corpus`): the stream is split only where SSE and NDJSON end lines, so nothing breaks.

Before, the client split the stream with httpx's `iter_lines()`, and U+2028, U+2029 or U+0085 in an event
("bad_event: event data is not JSON") ended `akb ask` with exit 4 and `akb mcp` with an error result.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from client.endpoint_client import Client
from tests.akb_local import LocalOptions, run_akb_local

REPO = Path(__file__).resolve().parents[2]
# U+000D alone is a line end in SSE too, and JSON always escapes it; the emulator reads documents with
# universal newlines, so in the passage it arrives as LF. Every other one must arrive as written.
SEPARATORS = "\u2028\u2029\u0085\u000b\u000c\u001c\u001d\u001e"
EVERY_LINE_END = SEPARATORS + "\r"
QUESTION = f"What is the zebracorn{EVERY_LINE_END} rotation policy?"
PASSAGE = "The zebracorn key rotation policy:" + "".join(f" step{i}{sep}done" for i, sep in enumerate(SEPARATORS))


@pytest.fixture(scope="module")
def local_url(tmp_path_factory) -> Iterator[str]:
    corpus = tmp_path_factory.mktemp("corpus")
    for alias in ("docs", "tickets"):  # acme's knowledge bases, as `akb local` serves them by default
        shutil.copytree(REPO / "local" / "corpus" / alias, corpus / alias)
    (corpus / "docs" / "zebracorn.md").write_text(f"# Zebracorn rotation\n\n{PASSAGE} End.\n", newline="")
    cache = tmp_path_factory.mktemp("cache")  # its own result cache: every answer from the source
    with run_akb_local(LocalOptions(args=("--corpus", str(corpus))), cache) as running:
        yield running.url


def _has_the_passage(text: str) -> bool:
    return PASSAGE in text


@pytest.mark.parametrize("framing", ["sse", "ndjson"])
def test_the_python_client_reads_every_separator_in_question_and_passage(local_url, framing):
    with Client(local_url, format=framing) as client:  # type: ignore[arg-type]
        answer = client.ask(QUESTION)
    assert answer.complete
    assert any(_has_the_passage(result.text) for result in answer.results)


@pytest.mark.parametrize("framing", ["sse", "ndjson"])
def test_akb_ask_prints_the_passage_and_exits_0(local_url, framing):
    child = subprocess.run(
        [sys.executable, "-m", "client", "ask", "--local", "--format", framing, "--output", "json", QUESTION],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_URL": local_url},
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr.decode()
    events = [json.loads(line) for line in child.stdout.decode().split("\n") if line]  # NDJSON: LF only
    [result] = [event for event in events if event["type"] == "result"]
    assert any(_has_the_passage(item["text"]) for item in result["results"])
    assert events[-1]["type"] == "done" and events[-1]["stopReason"] == "complete"


def test_akb_ask_text_view_exits_0_with_the_source(local_url):
    """The view flattens whitespace in its snippets (as before); what matters is that the stream was read."""
    child = subprocess.run(
        [sys.executable, "-m", "client", "ask", "--local", QUESTION],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_URL": local_url},
        capture_output=True,
        timeout=120,
    )
    assert child.returncode == 0, child.stderr.decode()
    assert "zebracorn.md" in child.stdout.decode() and "stop complete" in child.stdout.decode()


def test_akb_mcp_ask_returns_the_passage(local_url):
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "client", "mcp", "--local"],
        env={"AKB_LOCAL_URL": local_url, "PYTHONPATH": str(REPO), "AKB_CONFIG": str(REPO / "config")},
        cwd=str(REPO),
    )

    async def run() -> Any:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("ask", {"question": QUESTION})

    result: Any = anyio.run(run)
    assert not result.is_error, result.content
    # The tool's sources are snippets with whitespace flattened (client/render.py `snippet`), as before.
    [source] = [s for s in result.structured_content["sources"] if s["document"].endswith("zebracorn.md")]
    assert source["text"].startswith("# Zebracorn rotation The zebracorn key rotation policy: step0 done step1 done")
