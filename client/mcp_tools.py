"""`akb mcp`: a tenant's endpoint as MCP tools (`ask`, `search`) for agents, over stdio or Streamable HTTP.

Built on the official MCP Python SDK (`mcp` 2.x: `MCPServer`, tools taking a `Context`; the
ledger in docs/facts-and-decisions.md). The server holds no retrieval logic and no identity logic:
every tool call is one request to the tenant's endpoint (SigV4-signed with the caller's own AWS
credentials when deployed, plain HTTP to `akb local`), so the endpoint's identity rules, caps and
guardrail apply to agents exactly as to any other caller. A `userId` an agent passes is forwarded
and the endpoint refuses it unless the caller is a trusted front end (docs/agents.md).

While a tool runs, each planner step the endpoint streams becomes an MCP progress notification,
so the agent (or its user) sees the plan as it happens. The blocking HTTP stream is read on a
worker thread and handed to the event loop one event at a time (never buffered to the end).
Tool descriptions are built from the tenant's knowledge-base descriptions, so an agent can tell
which knowledge base answers what.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, Any

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent
from pydantic import Field

from client.endpoint_client import (
    Client,
    EndpointConnectionError,
    EndpointHTTPError,
    EndpointTimeout,
    InvalidRequest,
    QueryOptions,
    StreamError,
)
from client.knowledge_base_summary import KnowledgeBaseSummary, summaries
from client.render import cite, degraded_line, document_of, snippet, step_lines
from client.sigv4 import SigningError
from contract.enums import Mode
from contract.events import DoneEvent, ErrorEvent, Event, ResultEvent, TextEvent, TraceEvent
from contract.request_body import MAX_SESSION_ID_CHARS, SESSION_ID_PATTERN

# A stream that ended normally: the answer is delivered; iteration_limit flagged as possibly incomplete.
DELIVERED_STOP_REASONS = ("complete", "iteration_limit")
SOURCE_CHARS = 400  # per numbered source in the tool result: enough to quote, small enough for a context window
EVENT_BUFFER = 64  # events in flight between the HTTP thread and the event loop


@dataclass(frozen=True)
class ToolCatalogue:
    """What the tool descriptions say: the tenant and its knowledge bases (from the tenant file)."""

    tenant: str | None = None
    description: str | None = None
    knowledge_bases: tuple[KnowledgeBaseSummary, ...] = ()

    @classmethod
    def from_tenant(cls, name: str, tenant: Any) -> ToolCatalogue:
        """From a validated `schema.Tenant` (its description and each knowledge base's one sentence)."""
        return cls(name, tenant.description, summaries(tenant))

    def knowledge_base_lines(self) -> str:
        if not self.knowledge_bases:
            return "Knowledge bases: the tenant's (run with --tenant to list them here)."
        lines = "\n".join(f"- {kb.alias}: {kb.description}" for kb in self.knowledge_bases)
        return f"Knowledge bases (pass aliases in `knowledge_bases` to search only some):\n{lines}"

    def ask_description(self) -> str:
        owner = f"{self.description} ({self.tenant})" if self.description else "the tenant's knowledge"
        return (
            f"Ask {owner} a question. A planner searches the knowledge bases (several steps for "
            "multi-part or comparative questions) and writes an answer with numbered citations [n], "
            "followed by the numbered sources it used. Planner steps are sent as progress "
            f"notifications while it runs.\n{self.knowledge_base_lines()}"
        )

    def search_description(self) -> str:
        return (
            "Search the knowledge bases without generating an answer (one retrieval per knowledge "
            "base, results fused): returns numbered passages with their documents. Cheaper and "
            f"faster than `ask`; use it to look things up and reason over the passages yourself.\n"
            f"{self.knowledge_base_lines()}"
        )


@dataclass
class Outcome:
    """One tool call's events, collected as they arrive."""

    trace: list[TraceEvent] = field(default_factory=list)
    deltas: list[str] = field(default_factory=list)
    result: ResultEvent | None = None
    errors: list[ErrorEvent] = field(default_factory=list)
    done: DoneEvent | None = None

    def add(self, event: Event) -> None:
        if isinstance(event, TraceEvent):
            self.trace.append(event)
        elif isinstance(event, TextEvent):
            self.deltas.append(event.delta)
        elif isinstance(event, ResultEvent):
            self.result = event
        elif isinstance(event, ErrorEvent):
            self.errors.append(event)
        elif isinstance(event, DoneEvent):
            self.done = event


def progress_message(event: TraceEvent) -> str:
    """The planner step as one line an agent can show (`akb ask`'s own wording, sub-queries included)."""
    return "; ".join(line.strip() for line in step_lines(event))


def _sources(result: ResultEvent | None) -> list[dict[str, Any]]:
    items = result.results if result else []
    return [
        {
            "number": number,
            "knowledgeBase": item.knowledgeBase,
            "document": document_of(item),
            "text": snippet(item.text, SOURCE_CHARS),
        }
        for number, item in enumerate(items, start=1)
    ]


def _source_lines(sources: Sequence[dict[str, Any]]) -> str:
    if not sources:
        return "Sources: none found."
    lines = [f"[{s['number']}] {s['knowledgeBase']} · {s['document']}\n    {s['text']}" for s in sources]
    return "Sources:\n" + "\n".join(lines)


def success_result(outcome: Outcome, with_answer: bool) -> CallToolResult:
    """The answer with [n] markers and the numbered sources, as text and as structured content."""
    done = outcome.done
    if done is None:  # incomplete_result answers every stream without `done`
        raise ValueError("success_result needs a stream that ended with done")
    result = outcome.result
    sources = _sources(result)
    answer = "".join(outcome.deltas) or (result.answer if result and result.answer else "")
    cited = cite(answer, result.citations if result else [], len(sources)) if answer else ""
    parts = [_budget_note(done)] if done.stopReason == "iteration_limit" else []
    parts += [cited] if with_answer and cited else []
    if with_answer and not cited:
        parts.append("No answer was generated.")
    if result and result.note:
        parts.append(f"Note: {result.note}")
    if done.memory is not None and done.memory.unbound:
        parts.append(f"Note: answered without the conversation's earlier turns: {done.memory.unbound}")
    degraded = degraded_line(done)
    if degraded:
        parts.insert(0, degraded)  # first: a caller (or an agent) must not take it for the agentic answer
    parts.append(_source_lines(sources))
    structured: dict[str, Any] = {
        "answer": cited if with_answer else None,
        "sources": sources,
        "requestId": done.requestId,
        "mode": done.mode,
        "iterations": done.iterations,
        "stopReason": done.stopReason,
    }
    if done.degraded is not None:  # e.g. `quota`: single-shot retrieval answered, not agentic retrieval
        structured["degraded"] = done.degraded
    if done.memory is not None:
        structured["session"] = {k: v for k, v in vars(done.memory).items() if v is not None}
    return CallToolResult(content=[TextContent(text="\n\n".join(parts))], structured_content=structured)


def _budget_note(done: DoneEvent) -> str:
    """The first line of a budget-limited answer: it may be incomplete, and why."""
    return (
        f"This answer may be incomplete (stopReason iteration_limit): the planner used all {done.iterations} "
        "iterations the tenant allows before it judged the evidence sufficient. Ask a narrower question, "
        "or check the sources below."
    )


def error_result(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(text=message)], is_error=True)


def incomplete_result(outcome: Outcome) -> CallToolResult | None:
    """An error result when the stream carried an error, broke off or ended other than `complete` or
    `iteration_limit`: such a partial answer is never presented as an answer (it is dropped, and the
    error says so). A budget-limited answer (`iteration_limit`) is delivered, flagged (success_result)."""
    done = outcome.done
    if not outcome.errors and done is not None and done.stopReason in DELIVERED_STOP_REASONS:
        return None
    reason = (
        f"{outcome.errors[0].code}: {outcome.errors[0].message}"
        if outcome.errors
        else f"the request ended with stopReason {done.stopReason if done else 'unknown'}"
    )
    retry = " It may succeed if retried." if outcome.errors and outcome.errors[0].retryable else ""
    request = f" (request {done.requestId})" if done else ""
    return error_result(f"The endpoint could not complete the request{request}: {reason}. No answer is given.{retry}")


async def relay(query: Callable[[], Iterator[Event]], on_event: Callable[[Event], Awaitable[None]]) -> None:
    """Runs the blocking `query()` on a worker thread and awaits `on_event` for each event as it arrives.

    Exceptions from the HTTP side are re-raised here. When the tool call is cancelled the worker is
    abandoned; its next hand-off fails, which closes the generator and so the HTTP stream.
    """
    send, receive = anyio.create_memory_object_stream[Event | BaseException](EVENT_BUFFER)

    def pump() -> None:
        with send:
            try:
                for event in query():
                    anyio.from_thread.run(send.send, event)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return
            except Exception as error:  # handed to the event loop, raised there
                anyio.from_thread.run(send.send, error)

    failure: BaseException | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(partial(anyio.to_thread.run_sync, pump, abandon_on_cancel=True))
        async with receive:
            async for item in receive:
                if isinstance(item, BaseException):
                    failure = item  # raised after the group, so callers see it, not an ExceptionGroup
                    break
                await on_event(item)
    if failure is not None:
        raise failure


def _failure_message(error: Exception) -> str:
    if isinstance(error, SigningError):
        return f"Cannot sign the request with your AWS credentials: {error}"
    if isinstance(error, InvalidRequest):  # the endpoint's own 400 sentence, caught before sending
        return f"The endpoint would refuse the request (invalid_request): {error}"
    if isinstance(error, EndpointHTTPError):
        return f"The endpoint refused the request: {error}"
    if isinstance(error, EndpointConnectionError):
        return f"The endpoint could not be reached: {error}"
    if isinstance(error, EndpointTimeout):
        return f"The endpoint went quiet: {error}. No answer is given."
    return f"The stream broke off: {error}. No answer is given."


async def run_query(
    client: Client, ctx: Context, question: str, options: QueryOptions, with_answer: bool
) -> CallToolResult:
    """One endpoint request: progress per planner step, then the result (or a clear error result)."""
    outcome = Outcome()

    async def on_event(event: Event) -> None:
        outcome.add(event)
        if isinstance(event, TraceEvent):
            await ctx.report_progress(len(outcome.trace), None, progress_message(event))

    try:
        await relay(lambda: client.query(question, **options), on_event)
    except (
        SigningError,
        InvalidRequest,
        EndpointHTTPError,
        EndpointConnectionError,
        EndpointTimeout,
        StreamError,
    ) as error:
        return error_result(_failure_message(error))
    return incomplete_result(outcome) or success_result(outcome, with_answer)


Question = Annotated[str, Field(min_length=1, max_length=10_000, description="The question, in plain words.")]
KnowledgeBases = Annotated[
    list[str] | None, Field(description="Aliases of the knowledge bases to search; default: all of them.")
]
MetadataFilter = Annotated[
    dict[str, Any] | None,
    Field(description='Metadata filter, e.g. {"equals": {"key": "team", "value": "api"}} (docs/endpoint.md).'),
]
ModeArgument = Annotated[
    Mode | None,
    Field(
        description="agentic: multi-step planner; retrieve: one search per knowledge base; auto: the "
        "tenant's router picks. Default: the tenant's."
    ),
]
UserId = Annotated[
    str | None,
    Field(
        description="End user id for document ACLs. Honoured only when the endpoint lists your AWS "
        "identity as a trusted front end; otherwise the call is refused. Leave it out."
    ),
]
MaxResults = Annotated[int | None, Field(ge=1, le=100, description="Results per knowledge base.")]
SessionId = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_SESSION_ID_CHARS,
        pattern=SESSION_ID_PATTERN,
        description="A conversation id, for tenants with conversations on: send the same id again to "
        "ask a follow-up (the earlier turns are restored). Choose a new random id for a new "
        "conversation. The endpoint binds it to the verified end user, so it restores only that "
        "user's own turns.",
    ),
]


def build_server(client: Client, catalogue: ToolCatalogue) -> MCPServer:
    """The MCP server exposing `ask` and `search` over `client` (one tenant endpoint)."""
    name = f"akb-{catalogue.tenant}" if catalogue.tenant else "akb"
    server = MCPServer(
        name=name,
        log_level="WARNING",  # stdio: stderr is the agent host's log; request lines would only be noise
        instructions="Retrieval over a tenant's knowledge bases on Amazon Bedrock. Use `ask` for an "
        "answer with sources, `search` for passages only.",
    )

    async def ask(
        question: Question,
        ctx: Context,
        knowledge_bases: KnowledgeBases = None,
        filter: MetadataFilter = None,
        mode: ModeArgument = None,
        user_id: UserId = None,
        session_id: SessionId = None,
    ) -> CallToolResult:
        options: QueryOptions = {"knowledge_bases": knowledge_bases, "filter": filter, "mode": mode}
        options["user_id"] = user_id
        options["session_id"] = session_id
        return await run_query(client, ctx, question, options, with_answer=True)

    async def search(
        question: Question,
        ctx: Context,
        knowledge_bases: KnowledgeBases = None,
        filter: MetadataFilter = None,
        max_results: MaxResults = None,
        user_id: UserId = None,
    ) -> CallToolResult:
        options: QueryOptions = {
            "knowledge_bases": knowledge_bases,
            "filter": filter,
            "mode": "retrieve",
            "generate_response": False,
            "max_results": max_results,
            "user_id": user_id,
        }
        return await run_query(client, ctx, question, options, with_answer=False)

    server.add_tool(ask, name="ask", description=catalogue.ask_description())
    server.add_tool(search, name="search", description=catalogue.search_description())
    return server
