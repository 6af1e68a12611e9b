"""Shows an endpoint's stream to a person (`akb ask`), a script (`--json`) or a pipe (`--quiet`).

Each renderer takes events one at a time (`handle`) and is told when the stream ends (`close`),
so output appears as the endpoint produces it. In a terminal the view is rich and live (a
spinner on the running step, the answer growing in place, then marked with citations); anywhere
else (a pipe, a file, CI logs) the same content is printed as plain lines with no colour and no
redraw. What is shown is derived by the pure helpers below, one piece of code for both.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import IO, Protocol

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from contract.events import (
    Citation,
    DoneEvent,
    ErrorEvent,
    Event,
    ResultEvent,
    ResultItem,
    TextEvent,
    TraceEvent,
    event_to_dict,
)

SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"
SNIPPET_CHARS = 120


class Renderer(Protocol):
    def handle(self, event: Event) -> None: ...
    def close(self) -> None: ...


# --- what is shown (pure) ---------------------------------------------------------------------


def cite(answer: str, citations: Sequence[Citation], result_count: int) -> str:
    """The answer with `[n]` markers (1-based source numbers) inserted at each citation's end offset."""
    markers: dict[int, list[int]] = {}
    for citation in citations:
        end = min(max(citation.end, 0), len(answer))
        numbers = markers.setdefault(end, [])
        numbers.extend(i + 1 for i in citation.results if 0 <= i < result_count and i + 1 not in numbers)
    text = answer
    for end in sorted(markers, reverse=True):
        if markers[end]:
            text = text[:end] + "".join(f"[{n}]" for n in markers[end]) + text[end:]
    return text


def step_lines(event: TraceEvent, show_sub_queries: bool = True) -> list[str]:
    """One headline for the step's start or end, then one line per detail worth auditing
    (sub-queries, counts, failures, guardrail interventions; a guardrail that let it pass is not news)."""
    if event.status == "IN_PROGRESS":
        head = f"> {event.step} started"
    else:
        head = f"{'+' if event.status == 'SUCCEEDED' else '!'} {event.step} {event.status.lower()}"
    head += f" ({event.elapsedMs} ms)"
    lines = [head + (f": {event.message}" if event.message else "")]
    for sub in event.subQueries if show_sub_queries else []:
        lines.append(f'    query "{sub.text}" -> {", ".join(sub.knowledgeBases) or "all knowledge bases"}')
    if event.retrievedCount or event.documents:
        documents = f" from {len(event.documents)} documents" if event.documents else ""
        lines.append(f"    retrieved {event.retrievedCount}{documents}")
    lines.extend(f"    failure: {failure}" for failure in event.failures)
    for warning in (w for w in event.guardrail if w.action != "NONE"):
        version = f" v{warning.version}" if warning.version else ""
        ident = f" ({warning.id}{version})" if warning.id else ""
        lines.append(f"    guardrail {warning.action}{ident}")
    return lines + detail_lines(event)


def detail_lines(event: TraceEvent) -> list[str]:
    """The newer trace details: warnings, code execution, memory reads, instruction, sources read."""
    lines = [f"    warning: {warning}" for warning in event.warnings]
    for code in event.codeExecutions:
        lines.append(f"    code execution over {', '.join(code.documents) or 'the evidence'}")
    for memory in event.memoryRetrieves:
        where = memory.namespace or memory.namespacePath or "memory"
        lines.append(f'    memory "{memory.query}" -> {where}')
    if event.appliedInstruction is not None:
        version = f" v{event.appliedInstruction.version}" if event.appliedInstruction.version else ""
        lines.append(f"    instruction {event.appliedInstruction.id}{version}")
    if event.retrievalSources:
        sources = ", ".join(
            f"{s.source} ({s.retrievalType})" if s.retrievalType else s.source for s in event.retrievalSources
        )
        lines.append(f"    sources read: {sources}")
    return lines


def content_of(item: ResultItem) -> str:
    """A result's text, or for a non-text result a placeholder naming its type, size and mime type
    (a text-only view never shows an empty line where an image was)."""
    if item.text or item.mimeType is None or item.contentType == "TEXT":
        return item.text
    size = f", {item.byteSize} bytes" if item.byteSize is not None else ""
    return f"[{(item.contentType or 'OTHER').lower()} result: {item.mimeType}{size}]"


def document_of(item: ResultItem) -> str:
    uri = item.metadata.get(SOURCE_URI_KEY)
    return item.documentId or (str(uri) if uri else "-")


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def footer(done: DoneEvent) -> str:
    parts = [f"{done.iterations} iteration{'s' if done.iterations != 1 else ''}"]
    if done.timeToFirstEventMs is not None:
        parts.append(f"first event {done.timeToFirstEventMs} ms")
    parts.append(f"duration {done.durationMs / 1000:.2f} s")
    if done.estimatedCostUsd is not None:
        # A CUSTOM planner model's tokens are not priced (the environment's `pricing` has no rate for it).
        excluded = " (excl. planner model)" if done.estimatedCostExcludesPlannerModel else ""
        parts.append(f"est. cost ${done.estimatedCostUsd:.4f}{excluded}")
    parts += [f"mode {done.mode}", f"stop {done.stopReason}"]
    if done.degraded is not None:
        parts.append(f"degraded {done.degraded}")
    if done.cache is not None:
        parts.append(f"cache {done.cache}")
    if done.memory is not None and done.memory.sessionId:
        saved = "turn saved" if done.memory.persistence == "default" else "turn not saved"
        parts.append(f"session {done.memory.sessionId} ({saved})")
    parts.append(f"request {done.requestId}")
    if done.nextToken:
        parts.append("more results: --more 1")
    return " | ".join(parts)


def incomplete_warning(done: DoneEvent) -> str | None:
    """Said out loud when the answer may be incomplete: budget exhausted is not evidence sufficient."""
    if done.stopReason != "iteration_limit":
        return None
    return (
        f"possibly incomplete: the planner used all {done.iterations} iterations it was allowed without "
        "judging the evidence sufficient"
    )


def memory_line(done: DoneEvent) -> str | None:
    """A sessionId the endpoint could not bind is said out loud: this answer ignored the conversation."""
    if done.memory is None or not done.memory.unbound:
        return None
    return f"answered WITHOUT the session: {done.memory.unbound}"


def degraded_line(done: DoneEvent) -> str | None:
    """A degraded answer says what it is: never read as the agentic answer that was asked for (docs/quota.md)."""
    if done.degraded is None:
        return None
    if done.degraded == "quota":
        return (
            f"DEGRADED (quota): answered with single-shot retrieval (mode {done.mode}), not agentic retrieval: "
            "the tenant's share of the account's agentic quota was used up; ask again later for an agentic answer"
        )
    return f"DEGRADED ({done.degraded}): answered by mode {done.mode}, a lesser path than asked"


def partial_line(done: DoneEvent) -> str | None:
    """The warning a partial answer carries, so it is never read as the whole answer."""
    if not done.partial:
        return None
    failed = f": knowledge bases {', '.join(done.failedKnowledgeBases)} failed" if done.failedKnowledgeBases else ""
    return f"PARTIAL ANSWER (stop {done.stopReason}){failed}; results and answer may be missing parts"


def error_line(event: ErrorEvent) -> str:
    return f"error {event.code}: {event.message}" + (" (retryable)" if event.retryable else "")


# --- renderers --------------------------------------------------------------------------------


class JsonRenderer:
    """`--json`: each event as one NDJSON line (the endpoint's NDJSON framing), flushed at once."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out

    def handle(self, event: Event) -> None:
        self._out.write(json.dumps({"type": event.type, **event_to_dict(event)}, ensure_ascii=False) + "\n")
        self._out.flush()

    def close(self) -> None:
        pass


class QuietRenderer:
    """`--quiet`: the answer text only, written as it streams; nothing else on stdout."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self._written = False

    def handle(self, event: Event) -> None:
        if isinstance(event, TextEvent):
            self._write(event.delta)
        elif isinstance(event, ResultEvent) and not self._written and event.answer:
            self._write(event.answer)  # no deltas streamed (e.g. an older server): the whole answer
        elif isinstance(event, DoneEvent) and (degraded := degraded_line(event)):
            sys.stderr.write(degraded + "\n")  # stdout keeps the answer alone; the label is still said

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()
        self._written = self._written or bool(text)

    def close(self) -> None:
        if self._written:
            self._out.write("\n")
            self._out.flush()


class ViewRenderer:
    """The human view: the trace as it happens, the answer with citations, sources, a footer."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._live_mode = console.is_terminal
        self._live: Live | None = None
        self._step: str | None = None
        self._started: dict[str, list | None] = {}
        self._deltas: list[str] = []
        self._answer_shown = False
        self._result: ResultEvent | None = None

    def handle(self, event: Event) -> None:
        if isinstance(event, TraceEvent):
            # A step's end usually repeats the sub-queries its start announced: show them once.
            repeated = event.status != "IN_PROGRESS" and self._started.get(event.step) == event.subQueries
            self._started[event.step] = event.subQueries if event.status == "IN_PROGRESS" else None
            self._step = event.step if event.status == "IN_PROGRESS" else None
            style = {"IN_PROGRESS": "cyan", "SUCCEEDED": "green"}.get(event.status, "red")
            head, *details = step_lines(event, show_sub_queries=not repeated)
            self._print(Text(head, style=style))
            for line in details:
                self._print(Text(line, style="dim"))
        elif isinstance(event, TextEvent):
            self._deltas.append(event.delta)
        elif isinstance(event, ResultEvent):
            self._result = event
            self._show_answer()
            self._stop_live()
            self._show_sources(event)
        elif isinstance(event, ErrorEvent):
            self._show_answer()
            self._stop_live()
            self._print(Text(error_line(event), style="bold red"))
        elif isinstance(event, DoneEvent):
            self._show_answer()
            self._stop_live()
            for warning in (degraded_line(event), partial_line(event), incomplete_warning(event), memory_line(event)):
                if warning:
                    self._print(Text(warning, style="bold yellow"))
            self._print(Text(footer(event), style="dim"))
        self._refresh()

    def close(self) -> None:
        self._show_answer()
        self._stop_live()

    # Terminal: one Live region holds the running step's spinner and the answer as it grows.
    # Everything else is printed above it (rich keeps printed lines above a Live region).

    def _refresh(self) -> None:
        if not self._live_mode or self._answer_shown:
            return
        parts: list[RenderableType] = []
        if self._step and not self._deltas:
            parts.append(Spinner("dots", text=Text(f"{self._step}...", style="cyan")))
        if self._deltas:
            parts.append(Text("".join(self._deltas)))
        if self._live is None:
            self._live = Live(Group(*parts), console=self._console, refresh_per_second=12, transient=True)
            self._live.start()
        else:
            self._live.update(Group(*parts))

    def _stop_live(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _show_answer(self) -> None:
        """Prints the answer once: with citation markers when the result has arrived."""
        if self._answer_shown:
            return
        result = self._result
        answer = "".join(self._deltas) or (result.answer if result and result.answer else "")
        if not answer:
            if result is not None:
                self._answer_shown = True
            return
        self._answer_shown = True
        self._stop_live()
        if result is not None:
            answer = cite(answer, result.citations, len(result.results))
        self._print(Text("\nAnswer", style="bold"))
        self._print(Text(answer))
        if result is not None and result.note:
            self._print(Text(f"note: {result.note}", style="yellow"))

    def _show_sources(self, result: ResultEvent) -> None:
        if not result.results:
            self._print(Text("\nNo sources.", style="yellow"))
            return
        self._print(Text(f"\nSources ({len(result.results)})", style="bold"))
        if self._live_mode:
            table = Table(show_edge=False, pad_edge=False)
            for column in ("#", "knowledge base", "document", "snippet"):
                table.add_column(column, overflow="fold")
            for number, item in enumerate(result.results, 1):
                table.add_row(str(number), item.knowledgeBase, document_of(item), snippet(content_of(item)))
            self._print(table)
            return
        for number, item in enumerate(result.results, 1):
            self._print(Text(f"[{number}] {item.knowledgeBase} | {document_of(item)} | {snippet(content_of(item))}"))

    def _print(self, renderable: RenderableType) -> None:
        self._console.print(renderable, highlight=False, soft_wrap=not self._live_mode)


def view_console(file: IO[str] | None = None) -> Console:
    """A console for the view: rich in a terminal; plain, unwrapped lines anywhere else."""
    return Console(file=file, highlight=False)
