"""`akb mcp` end to end: the official MCP client (stdio and Streamable HTTP) -> `akb mcp --local` ->
`akb local` (the real endpoint in front of the emulator), all real processes on 127.0.0.1."""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from click.testing import CliRunner

from client.cli import main
from client.mcp_tools import Outcome, ToolCatalogue, incomplete_result
from contract.events import DoneEvent, ErrorEvent, TextEvent
from schema import load_project
from tests.akb_local import AkbLocal
from tests.children import Child, free_port

if TYPE_CHECKING:  # the MCP client SDK is imported by the tests that use it (a unit-test run skips its import)
    from mcp.client.session import ClientSession

REPO = Path(__file__).resolve().parents[2]
EMULATOR_DELAY_MS = 60  # between emulator events: the planner's steps arrive visibly apart
QUESTION = "How do I rotate an API key?"
# acme-app's session names are user ids (its trust policy pins them: config/tenants/acme.yaml).
CALLER = "arn:aws:sts::123456789012:assumed-role/acme-app/frank"

# `akb local` (dev environment, tenant acme: user_context caller; caller acme-app/frank), one for the module.
pytestmark = pytest.mark.akb_local(tenant="acme", delay_ms=EMULATOR_DELAY_MS, caller_arn=CALLER)


@dataclass
class Progress:
    """Progress notifications as the client received them, with when."""

    seen: list[tuple[float, float, str | None]] = field(default_factory=list)

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.seen.append((time.monotonic(), progress, message))


@dataclass
class StdioSession:
    """The official MCP client's session over stdio with one `akb mcp --local` for the module's tests.
    It lives on the event loop of an anyio portal thread; `run(body)` awaits `body(session)` there."""

    portal: Any
    session: ClientSession

    def run(self, body: Callable[[ClientSession], Awaitable[Any]]) -> Any:
        return self.portal.call(body, self.session)


@asynccontextmanager
async def _connected(local: AkbLocal) -> AsyncIterator[ClientSession]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "client", "mcp", "--local"],
        env={"AKB_LOCAL_URL": local.url, "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@pytest.fixture(scope="module")
def mcp_stdio(akb_local) -> Iterator[StdioSession]:
    from anyio.from_thread import start_blocking_portal

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(_connected(akb_local)) as session:
        yield StdioSession(portal, session)


def test_tools_are_listed_with_the_tenants_knowledge_base_descriptions(mcp_stdio):
    tools = mcp_stdio.run(lambda session: session.list_tools())
    by_name = {tool.name: tool for tool in tools.tools}
    assert set(by_name) == {"ask", "search"}
    acme = load_project(REPO / "config", "dev").tenants["acme"]
    for kb in acme.knowledge_bases:  # the agent chooses knowledge bases by these sentences
        assert f"- {kb.alias}: {kb.description}" in by_name["ask"].description
        assert f"- {kb.alias}: {kb.description}" in by_name["search"].description
    assert by_name["ask"].input_schema["required"] == ["question"]
    assert by_name["ask"].input_schema["properties"]["mode"]["anyOf"][0]["enum"] == ["agentic", "retrieve", "auto"]


def test_ask_streams_planner_steps_as_progress_then_answers_with_numbered_sources(akb_local, mcp_stdio):
    progress = Progress()

    async def ask(session: ClientSession) -> tuple[Any, float]:
        result = await session.call_tool("ask", {"question": QUESTION}, progress_callback=progress)
        return result, time.monotonic()

    result, returned_at = mcp_stdio.run(ask)
    assert not result.is_error, result.content
    text = result.content[0].text
    assert "[1]" in text.split("Sources:")[0]  # the answer cites its sources by number
    assert "Sources:\n[1] docs · api/authentication.md" in text
    structured = result.structured_content
    assert structured["answer"] and structured["sources"][0]["number"] == 1 and structured["mode"] == "agentic"
    steps = [message for _, _, message in progress.seen]
    assert any(message.startswith("> Planning started") for message in steps)
    assert any(f'query "{QUESTION}"' in message for message in steps)  # the queries run are shown
    assert [value for _, value, _ in progress.seen] == sorted({value for _, value, _ in progress.seen})
    # Streamed while the tool ran: the first step arrived long before the result (the emulator
    # pauses between every one of the ~8 later events), not in a burst at the end.
    assert returned_at - progress.seen[0][0] > 3 * EMULATOR_DELAY_MS / 1000
    # The end user is the one the endpoint derived from the verified caller, not one the agent chose.
    assert akb_local.sent()[-1]["userContext"] == {"userId": "frank"}


def test_search_returns_passages_and_no_answer(mcp_stdio):
    result = mcp_stdio.run(lambda s: s.call_tool("search", {"question": QUESTION, "max_results": 2}))
    assert not result.is_error, result.content
    assert result.structured_content["answer"] is None and result.structured_content["mode"] == "retrieve"
    text = result.content[0].text
    assert text.startswith("Note: retrieve mode") and "\n\nSources:\n[1] " in text  # no answer before the sources
    assert 1 <= len(result.structured_content["sources"]) <= 4  # 2 per knowledge base, 2 knowledge bases


def test_a_forged_user_id_is_refused_by_the_endpoint_and_reported_as_a_tool_error(mcp_stdio):
    arguments = {"question": QUESTION, "user_id": "ceo@acme.example"}
    result = mcp_stdio.run(lambda s: s.call_tool("ask", arguments))
    assert result.is_error
    text = result.content[0].text
    assert "403 user_id_not_allowed" in text and "user_context: caller" in text
    assert "Traceback" not in text


def test_an_unknown_knowledge_base_is_a_clear_tool_error(mcp_stdio):
    arguments = {"question": QUESTION, "knowledge_bases": ["payroll"]}
    result = mcp_stdio.run(lambda s: s.call_tool("ask", arguments))
    assert result.is_error and "payroll" in result.content[0].text


def test_a_stream_that_fails_midway_gives_an_error_and_no_partial_answer(akb_local, mcp_stdio):
    faults = akb_local.faults
    faults.set(error_after_events=3, error_type="internalServerException")
    try:
        # A question no other test asks: the tenant's result cache must not answer it from an earlier run.
        question = QUESTION + " Answer for the midway-failure test."
        result = mcp_stdio.run(lambda s: s.call_tool("ask", {"question": question}))
    finally:
        faults.reset()
    assert result.is_error
    assert "No answer is given" in result.content[0].text and "Sources:" not in result.content[0].text


def test_streamable_http_serves_the_same_tools_on_loopback(akb_local):
    port = free_port()
    command = [sys.executable, "-m", "client", "mcp", "--local", "--http", "--port", str(port)]
    progress = Progress()
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def run() -> tuple[list[str], Any]:
        url = f"http://127.0.0.1:{port}/mcp"
        async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            # A question of its own: a cached answer would replay no planner progress.
            question = QUESTION + " Over Streamable HTTP."
            return names, await session.call_tool("ask", {"question": question}, progress_callback=progress)

    with Child(command, env=akb_local.client_env()) as server:
        server.wait_for_port(port)
        names, result = anyio.run(run)
    assert sorted(names) == ["ask", "search"]
    assert not result.is_error and "Sources:\n[1] " in result.content[0].text
    assert any(message.startswith("> Planning started") for _, _, message in progress.seen)


def test_catalogue_describes_each_knowledge_base_of_the_tenant():
    project = load_project(REPO / "config", "dev")
    catalogue = ToolCatalogue.from_tenant("globex", project.tenants["globex"])
    description = catalogue.ask_description()
    assert "Globex engineering knowledge assistant (globex)" in description
    assert "- wiki: Team wiki pages about services, owners and incidents." in description
    assert "run with --tenant" in ToolCatalogue().search_description()  # --url alone: no tenant file


def test_an_answer_that_ended_in_an_error_is_never_returned_as_an_answer():
    outcome = Outcome()
    for event in (
        TextEvent("Half an ans"),
        ErrorEvent("throttled", "Bedrock throttled the request", retryable=True),
        DoneEvent("req-1", "error", 1, 10, 5),
    ):
        outcome.add(event)
    result = incomplete_result(outcome)
    assert result is not None and result.is_error
    text = result.content[0].text
    assert "throttled" in text and "req-1" in text and "may succeed if retried" in text
    assert "Half an ans" not in text


def test_a_non_loopback_http_host_needs_an_explicit_opt_in():
    outcome = CliRunner().invoke(main, ["mcp", "--local", "--http", "--host", "0.0.0.0"])
    assert outcome.exit_code == 2 and "--allow-remote" in outcome.output


def test_an_endpoint_must_be_chosen():
    outcome = CliRunner().invoke(main, ["mcp"])
    assert outcome.exit_code == 2 and "exactly one of --url, --env/--tenant or --local" in outcome.output


def test_an_unknown_tenant_names_the_known_ones():
    outcome = CliRunner().invoke(main, ["mcp", "--local", "--tenant", "initech"])
    assert outcome.exit_code == 1 and "tenant 'initech' is not in environment 'dev' (tenants: acme, globex)" in (
        outcome.output
    )


def test_ask_with_a_session_id_continues_that_users_conversation(mcp_stdio):
    session = f"mcp-{uuid.uuid4().hex[:12]}"
    progress = Progress()

    async def two_turns(s: ClientSession) -> tuple[Any, Any]:
        first = await s.call_tool("ask", {"question": QUESTION, "session_id": session})
        second = await s.call_tool(
            "ask", {"question": "And without downtime?", "session_id": session}, progress_callback=progress
        )
        return first, second

    first, second = mcp_stdio.run(two_turns)
    assert not first.is_error, first.content[0].text
    assert first.structured_content["session"] == {"sessionId": session, "persistence": "default"}
    assert not second.is_error, second.content[0].text
    assert second.structured_content["session"]["sessionId"] == session
    # The second turn started from the restored session (the emulator's SessionHistoryLoad step).
    assert any("SessionHistoryLoad" in (message or "") for _, _, message in progress.seen), progress.seen


def test_a_malformed_session_id_is_refused_by_the_tool_naming_the_argument(mcp_stdio):
    result = mcp_stdio.run(lambda s: s.call_tool("ask", {"question": QUESTION, "session_id": "no spaces"}))
    assert result.is_error and "session_id" in result.content[0].text


def test_a_budget_limited_answer_is_delivered_flagged_with_its_stop_reason():
    from client.mcp_tools import success_result
    from contract.events import ResultEvent

    outcome = Outcome()
    for event in (
        TextEvent("Team Orion owns it."),
        ResultEvent(answer="Team Orion owns it."),
        DoneEvent("req-7", "iteration_limit", 3, 10, 5, partial=True),
    ):
        outcome.add(event)
    assert incomplete_result(outcome) is None  # not an error: the answer is delivered...
    result = success_result(outcome, with_answer=True)
    first_line, *rest = result.content[0].text.splitlines()
    assert not result.is_error
    assert first_line.startswith("This answer may be incomplete (stopReason iteration_limit)")  # ...flagged first
    assert "all 3 iterations the tenant allows" in first_line and "Team Orion owns it." in rest
    assert result.structured_content["stopReason"] == "iteration_limit"


def test_a_complete_answer_says_so_in_its_structured_content():
    from client.mcp_tools import success_result

    outcome = Outcome()
    for event in (TextEvent("Yes."), DoneEvent("req-8", "complete", 1, 10, 5)):
        outcome.add(event)
    result = success_result(outcome, with_answer=True)
    assert result.content[0].text.startswith("Yes.") and result.structured_content["stopReason"] == "complete"
