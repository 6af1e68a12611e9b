"""The `auto` mode's router: a transparent rule list that sends a question to `retrieve` or `agentic`.

Retrieve suits short, well-bounded questions (one similarity search, lowest cost and
latency); AgenticRetrieveStream suits multi-part, comparative, exploratory or multi-source ones
(on MuSiQue it gained ~20 recall points on multi-hop questions and under 5 on single-hop; sources
in docs/facts-and-decisions.md). The
router looks only at the question's surface — length, intents, comparison, time-range and
exploratory cues, knowledge bases searched — so every decision can be explained in one line and
reproduced by reading docs/routing.md. Any cue that fires sends the question to `agentic`; a
question that passes every check goes to `retrieve`. It cannot see hidden multi-hop questions
("who owns the service that failed?"): measure with `akb eval` before enabling it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from contract.events import TraceEvent
from contract.settings import RoutingSettings

ROUTING_STEP = "Routing"

_WORD = re.compile("[\\w][\\w'\u2019.-]*")
# The patterns below read the question with its whitespace collapsed to single spaces
# (`read_signals`), so a separator is one space, never `\s+`: every pattern runs in linear time
# (tests/lambdas/test_regex_linearity.py checks their shapes).
# "between 2020 and 2023" / "between Starter and Pro" is one comparison or range, not two intents;
# the range is at most 80 characters, so each "between" is followed that far and no further.
_BETWEEN = re.compile(r"\bbetween [^,;?]{1,80}? and ", re.I)
_INTENT_SEPARATORS = re.compile(r"\? (?=\S)|; ?|, (?:and )?| and | as well as | plus | also ", re.I)
_COMPARISON = re.compile(
    r"\b(compare[ds]?|comparing|comparison|contrast|versus|vs\.?|differ|differs|difference|differences|"
    r"better|worse|cheaper|faster|slower|pros\s+and\s+cons|trade-?offs?)\b(?!-)",
    re.I,
)
_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_TIME_RANGE = re.compile(
    r"\b(since|from\s+\S+\s+(?:to|until|through)|over\s+(?:time|the\s+(?:years|months|last))|"
    r"(?:last|past)\s+\d+\s+(?:days?|weeks?|months?|quarters?|years?)|"
    r"q[1-4]\s+(?:19|20)\d{2}|history\s+of|changed|evolution|evolved|trend|trends)\b",
    re.I,
)
_EXPLORATORY = re.compile(
    r"\b(summari[sz]e|summary|overview|enumerate|list\s+(?:all|every|each)|all\s+the|every|"
    r"root\s+cause|investigate|explore|(?:main|top|key)\s+(?:\w+\s+)?(?:risks|issues|themes|problems))\b",
    re.I,
)


@dataclass(frozen=True)
class Signals:
    """What the router read off the question (also logged, so a decision can be replayed)."""

    words: int
    intents: int
    intent_markers: tuple[str, ...]
    comparison_cues: tuple[str, ...]
    time_cues: tuple[str, ...]
    exploratory_cues: tuple[str, ...]
    knowledge_bases: int


@dataclass(frozen=True)
class RoutingDecision:
    mode: Literal["retrieve", "agentic"]
    reasons: tuple[str, ...]
    signals: Signals

    @property
    def message(self) -> str:
        return f"auto -> {self.mode}: " + "; ".join(self.reasons)


def _cues(pattern: re.Pattern[str], text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(match.group(0).lower() for match in pattern.finditer(text)))


def read_signals(question: str, knowledge_bases: int) -> Signals:
    text = " ".join(question.split())
    without_between = _BETWEEN.sub("between X ", text)
    markers = tuple(m.group(0).strip().lower() or "?" for m in _INTENT_SEPARATORS.finditer(without_between.strip()))
    segments = [s for s in _INTENT_SEPARATORS.split(without_between.strip(" ?.!")) if s and _WORD.search(s)]
    years = tuple(dict.fromkeys(m.group(0) for m in _YEAR.finditer(text)))
    time_cues = _cues(_TIME_RANGE, text) + ((f"years {', '.join(years)}",) if len(years) > 1 else ())
    comparison = _cues(_COMPARISON, text) + (("between ... and",) if _BETWEEN.search(text) else ())
    return Signals(
        words=len(_WORD.findall(text)),
        intents=max(1, len(segments)),
        intent_markers=tuple(dict.fromkeys(markers)),
        comparison_cues=comparison,
        time_cues=time_cues,
        exploratory_cues=_cues(_EXPLORATORY, text),
        knowledge_bases=knowledge_bases,
    )


def _quoted(cues: tuple[str, ...]) -> str:
    return ", ".join(f"'{cue}'" for cue in cues)


def route(question: str, knowledge_bases: int, rules: RoutingSettings) -> RoutingDecision:
    """Decides `retrieve` or `agentic` for one question; `knowledge_bases` = how many are searched."""
    s = read_signals(question, knowledge_bases)
    agentic: list[str] = []
    if s.words > rules.max_words_for_retrieve:
        agentic.append(f"{s.words} words > {rules.max_words_for_retrieve}")
    if s.intents > rules.max_intents_for_retrieve:
        agentic.append(f"{s.intents} intents > {rules.max_intents_for_retrieve} (split at {_quoted(s.intent_markers)})")
    if rules.comparison_to_agentic and s.comparison_cues:
        agentic.append(f"comparison cue {_quoted(s.comparison_cues)}")
    if rules.time_range_to_agentic and s.time_cues:
        agentic.append(f"time-range cue {_quoted(s.time_cues)}")
    if rules.exploratory_to_agentic and s.exploratory_cues:
        agentic.append(f"exploratory cue {_quoted(s.exploratory_cues)}")
    if s.knowledge_bases > rules.max_knowledge_bases_for_retrieve:
        agentic.append(f"{s.knowledge_bases} knowledge bases > {rules.max_knowledge_bases_for_retrieve}")
    if agentic:
        return RoutingDecision("agentic", tuple(agentic), s)
    checked = ["comparison"] * rules.comparison_to_agentic + ["time-range"] * rules.time_range_to_agentic
    checked += ["exploratory"] * rules.exploratory_to_agentic
    passed = [
        f"{s.words} words <= {rules.max_words_for_retrieve}",
        f"{s.intents} intent{'s' * (s.intents != 1)} <= {rules.max_intents_for_retrieve}",
    ]
    if checked:
        passed.append(f"no {', '.join(checked)} cue")
    passed.append(
        f"{s.knowledge_bases} knowledge base{'s' * (s.knowledge_bases != 1)} "
        f"<= {rules.max_knowledge_bases_for_retrieve}"
    )
    return RoutingDecision("retrieve", tuple(passed), s)


def routing_trace(message: str, elapsed_ms: int) -> TraceEvent:
    """The first event of an `auto` request: `RoutingDecision.message`, the decision and every reason."""
    return TraceEvent(step=ROUTING_STEP, status="SUCCEEDED", elapsedMs=elapsed_ms, message=message)
