"""`akb eval --modes agent`: the tenant's Bedrock agent as one more column beside the endpoint's modes.

The agent answers through a model turn, so its events are not the endpoint's: this adapter turns one
InvokeAgent call into the events the runner judges. The sources are those `search_knowledge`
reported to the agent (its observation, parsed with the function's own format: search_report.py),
the answer is the agent's final text, and a search the function reported as partial or truncated
makes the record's stop reason `partial`, never `complete`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

from client.agent_client import AgentTarget, ask_agent
from contract.events import DoneEvent, Event, ResultEvent, ResultItem, TraceEvent
from lambdas.agent_action.search_report import parse

MODE = "agent"


def agent_events(target: AgentTarget, question: str) -> Iterator[Event]:
    """Events for one question asked of the agent (a new session each time)."""
    started = time.monotonic()
    items: list[ResultItem] = []
    incomplete = False
    answer = None
    searches = 0
    for step in ask_agent(target, question, session_id=uuid.uuid4().hex):
        elapsed = int((time.monotonic() - started) * 1000)
        if step.kind == "tool_call":
            searches += 1
            yield TraceEvent(step="AgentToolCall", status="IN_PROGRESS", elapsedMs=elapsed, message=step.text)
        elif step.kind == "observation":
            report = parse(step.text)
            incomplete = incomplete or not report.complete
            items.extend(ResultItem(s.knowledge_base, s.excerpt, documentId=s.document_id) for s in report.sources)
        elif step.kind == "answer":
            answer = step.text
    yield ResultEvent(results=items, answer=answer)
    yield DoneEvent(
        requestId=uuid.uuid4().hex,
        stopReason="partial" if incomplete else "complete",
        iterations=searches,
        durationMs=int((time.monotonic() - started) * 1000),
        mode=MODE,
        partial=True if incomplete else None,
    )
