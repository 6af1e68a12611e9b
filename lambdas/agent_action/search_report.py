"""The text `search_knowledge` returns to the agent, bounded in size, and its parser (client, eval).

    status: complete | partial (<reason>)
    truncated: <what was cut>            (only when something was cut)
    answer: <answer, may span lines>
    sources:
    [1] <alias>/<document id>: <excerpt>

The status and truncation lines come first so a cut never removes them: a partial or cut result is
never presented as complete. Sources are trimmed first (shorter excerpts, then fewer), the answer
last; `max_bytes` bounds the UTF-8 size (the agent's response limit: schema/agent_config.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EXCERPT_CHARS = (300, 120, 0)  # each source's excerpt, tried longest first
_SOURCE = re.compile(r"^\[(\d+)\] ([^/\s]+)/(\S*?)(?:: (.*))?$")


@dataclass(frozen=True)
class Source:
    knowledge_base: str
    document_id: str
    excerpt: str = ""


@dataclass(frozen=True)
class SearchReport:
    answer: str | None
    sources: list[Source] = field(default_factory=list)
    partial_reason: str | None = None  # None: complete
    truncated: str | None = None  # what a size bound cut, as rendered

    @property
    def complete(self) -> bool:
        return self.partial_reason is None and self.truncated is None


def _render(report: SearchReport, sources: list[Source], excerpt: int, answer: str | None, cut: list[str]) -> str:
    status = "complete" if report.partial_reason is None else f"partial ({report.partial_reason})"
    lines = [f"status: {status}"]
    if cut:
        lines.append("truncated: " + "; ".join(cut) + " (the result is incomplete)")
    lines.append(f"answer: {answer if answer else '(no answer generated)'}")
    lines.append("sources:" if sources else "sources: none")
    for number, source in enumerate(sources, 1):
        text = " ".join(source.excerpt.split())[:excerpt] if excerpt else ""
        lines.append(f"[{number}] {source.knowledge_base}/{source.document_id}" + (f": {text}" if text else ""))
    return "\n".join(lines)


def _fits(text: str, max_bytes: int) -> bool:
    return len(text.encode("utf-8")) <= max_bytes


def render(report: SearchReport, max_bytes: int) -> str:
    """The report within `max_bytes`, saying what was cut to get there."""
    total = len(report.sources)
    for excerpt in EXCERPT_CHARS:
        cut = [] if excerpt == EXCERPT_CHARS[0] else [f"source excerpts shortened to {excerpt} characters"]
        text = _render(report, report.sources, excerpt, report.answer, cut)
        if _fits(text, max_bytes):
            return text
    kept = list(report.sources)
    while kept:
        kept.pop()
        cut = [f"{total - len(kept)} of {total} sources left out"]
        text = _render(report, kept, 0, report.answer, cut)
        if _fits(text, max_bytes):
            return text
    answer = report.answer or ""
    cut = [f"{total} of {total} sources left out", "answer cut"] if total else ["answer cut"]
    head = _render(report, [], 0, "", cut)
    room = max(0, max_bytes - len(head.encode("utf-8")) - 4)
    clipped = answer.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    return _render(report, [], 0, clipped + " ...", cut)


def parse(text: str) -> SearchReport:
    """The report back from its text (the answer's own line breaks are kept)."""
    partial, truncated, answer_lines, sources = None, None, [], []
    section = ""
    for line in text.splitlines():
        if line.startswith("status: "):
            value = line.removeprefix("status: ")
            partial = value[len("partial (") : -1] if value.startswith("partial (") else None
        elif line.startswith("truncated: "):
            truncated = line.removeprefix("truncated: ")
        elif line.startswith("answer: "):
            section, answer_lines = "answer", [line.removeprefix("answer: ")]
        elif line.startswith("sources:"):
            section = "sources"
        elif section == "sources" and (match := _SOURCE.fullmatch(line)):
            sources.append(Source(match.group(2), match.group(3), match.group(4) or ""))
        elif section == "answer":
            answer_lines.append(line)
    answer = "\n".join(answer_lines) if answer_lines else None
    if answer == "(no answer generated)":
        answer = None
    return SearchReport(answer=answer, sources=sources, partial_reason=partial, truncated=truncated)
