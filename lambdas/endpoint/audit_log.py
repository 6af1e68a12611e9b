"""The log records an audit reads: the accepted request, and one record per trace event it streamed.

Field names are contract/log_fields.py's (the saved Logs Insights queries are built from them).
The pipeline writes a trace record after the event went out to the client, so logging never sits
between Bedrock's event and the caller (bench/RESULTS.md, first event through the endpoint).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from contract import log_fields as lf
from contract.events import TraceEvent
from lambdas.endpoint.logs import RequestLog

if TYPE_CHECKING:
    from lambdas.endpoint.conversation import MemoryOutcome
    from lambdas.endpoint.request import Query

# Newer trace details (issue 21), logged only when present so older records keep their shape.
_NEWER_DETAILS = ("warnings", "codeExecutions", "memoryRetrieves", "appliedInstruction", "retrievalSources")


def log_request(log: RequestLog, query: Query, user_id: str | None, memory: MemoryOutcome | None = None) -> None:
    """The accepted request, one record (the question cut at 1,000 characters)."""
    log.info(
        lf.EVENT_REQUEST,
        **{lf.EVENT: lf.EVENT_REQUEST},
        mode=query.mode,
        question=query.question[:1000],
        messages=len(query.messages),
        knowledge_bases=list(query.knowledge_bases),
        max_agent_iteration=query.max_agent_iteration,
        max_results=query.max_results,
        generate_response=query.generate_response,
        has_filter=query.filter is not None,
        user_id=user_id,
        session_id=query.session_id,
        memory_bound=None if memory is None else memory.binding is not None,
        memory_unbound_reason=None if memory is None else memory.unbound_reason,
        persistence=query.memory.persistence if query.memory is not None else None,
    )


def log_trace(log: RequestLog, event: TraceEvent, body: dict[str, Any]) -> None:
    """One record per trace event (`body`: its JSON, as sent): the sub-queries are what an audit needs.

    A Retrieval step's start also names each sub-query on a record of its own (SUB_QUERY), because
    Logs Insights counts strings, not list members (log_fields.py)."""
    fields = {
        lf.EVENT: lf.EVENT_TRACE,
        lf.STEP: event.step,
        lf.STATUS: event.status,
        lf.SUB_QUERIES: body.get("subQueries", []),
        "detail": event.message,
        "retrieved_count": event.retrievedCount,
        "documents": event.documents,
        "failures": event.failures,
        "guardrail": body.get("guardrail", []),
        "elapsed_ms": event.elapsedMs,
    }
    for key in _NEWER_DETAILS:
        if key in body:
            fields[key] = body[key]
    texts = [q.text for q in event.subQueries]
    if event.step == "Retrieval" and event.status == "IN_PROGRESS" and texts:
        for text in texts:
            log.info(lf.EVENT_TRACE, **fields, **{lf.SUB_QUERY: text})
    else:
        log.info(lf.EVENT_TRACE, **fields)
