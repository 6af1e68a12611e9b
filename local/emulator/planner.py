"""The deterministic planner's decisions: split, route, expand, and what counts as a new lead.

A rule-based imitation of the managed planner's observable behaviour (docs/facts-and-decisions.md): multi-intent and
comparative questions become one sub-query per intent, each routed to the knowledge bases whose
description it overlaps, summarise/enumerate questions read whole documents, and new entities in
the evidence trigger another hop. It makes no claim to the service's quality; its job is to make
every kind of trace happen predictably so clients can be built and tested against it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from local.emulator.text import content_words, tokenize, words

MAX_SUB_QUERIES = 5
MAX_NEW_ENTITIES = 3
SELF_CONTAINED_WORDS = 3  # a segment with fewer content words is an item that borrows context

_COMPARATIVE = re.compile(r"\b(compare|comparison|contrast|differ|differs|difference|differences|versus|vs)\b", re.I)
_FULL_DOCUMENT = re.compile(
    r"\b(summari[sz]e|summary|overview|enumerate|list\s+(?:all|every|each)|all\s+(?:the\s+)?steps|every)\b",
    re.I,
)
_ALWAYS_SPLIT = r"\?\s+|;\s*|,\s*(?:and\s+)?|\s+and\s+|\s+as\s+well\s+as\s+|\s+plus\s+"
_COMPARATIVE_SPLIT = r"\s+(?:vs\.?|versus|or|with|to|against)\s+"
_TRIGGER_WORDS_TEXT = """
    compare comparison contrast differ differs difference differences versus vs list summarize summarise
    summary overview enumerate every explain tell describe please show give find"""
_TRIGGER_WORDS = frozenset(_TRIGGER_WORDS_TEXT.split())
_ENTITY_PATTERNS = (
    re.compile(r"\b[A-Z][A-Z0-9]*-\d+\b"),  # error codes and ticket ids: ACME-4012, TCK-1183
    re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b"),  # CamelCase product/feature names: BulkExport
    re.compile(r"\b[A-Z]{3,}[0-9]*\b"),  # ALLCAPS names: SCIM
)
_GENERIC_ACRONYMS_TEXT = """
    API APIS HTTP HTTPS JSON URL URI SDK CLI REST TLS SSL CSV PDF UTC GET POST PUT PATCH DELETE NOTE
    FAQ TODO AND NOT THE DNS CPU RAM SLA UTF ISO YAML XML USD EUR GBP HMAC SHA256 SMS NTP"""
_GENERIC_ACRONYMS = frozenset(_GENERIC_ACRONYMS_TEXT.split())


class Described(Protocol):
    @property
    def description(self) -> str: ...


R = TypeVar("R", bound=Described)


_ARITHMETIC = re.compile(
    r"\b(calculate|compute|sum|total|add\s+up|how\s+much\s+(?:more|less)|how\s+many\s+more|multiply|"
    r"times\s+as|per\s+(?:year|month)\s+for\s+\d+)\b|\d\s*[+*\u00d7]\s*\d",
    re.I,
)


def needs_arithmetic(question: str) -> bool:
    """Questions that need a computation over retrieved figures get a CodeExecution step."""
    return bool(_ARITHMETIC.search(question))


def is_comparative(question: str) -> bool:
    return bool(_COMPARATIVE.search(question))


def wants_full_documents(question: str) -> bool:
    """Summaries and enumerations need whole documents, not the best-matching fragment."""
    return bool(_FULL_DOCUMENT.search(question))


def _is_entity_like(word: str) -> bool:
    return any(c.isupper() or c.isdigit() for c in word)


def _segment_words(segment: str) -> list[str]:
    return [w for w in content_words(segment) if w.lower() not in _TRIGGER_WORDS]


def _with_context(segment: list[str], context: list[str]) -> list[str]:
    own = set(tokenize(" ".join(segment)))
    return segment + [w for w in dict.fromkeys(context) if not own.intersection(tokenize(w))]


_REFERS_BACK = re.compile(
    r"\b(?:it|its|they|their|them|this|that|these|those)\b|^\s*(?:(?:in|on|at|for|from|by)\s+)?(?:which|what|when|where|who|how)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Intent:
    query: str  # the sub-query planned for it
    own: list[str]  # the intent's own words (without the context it borrows)
    refers_back: bool = False  # "which version fixed it", "and in which channel": about the first intent's subject
    raw: str = ""  # the intent's words as the question put them


def decompose(question: str) -> list[str]:
    """Sub-queries for the question's intents, in question order (at most MAX_SUB_QUERIES)."""
    return [intent.query for intent in intents(question)]


def intents(question: str) -> list[Intent]:
    """Each intent of the question, in question order (at most MAX_SUB_QUERIES).

    In "configure SSO, SCIM and audit logs" or "Starter vs Pro pricing" the short items share the
    words around the list: the first segment's leading words ("configure") and, when the last
    segment starts with a name, its trailing words ("pricing"). Short items borrow them for their
    sub-query; their own words are what the intent asks ("SCIM"). In "Team Kestrel vs Team Falcon:
    size and location" every compared item asks for the aspects after the colon.
    """
    separators = _ALWAYS_SPLIT + ("|" + _COMPARATIVE_SPLIT if is_comparative(question) else "")
    compared, colon, shared = question.partition(":")
    if colon and is_comparative(compared) and _segment_words(shared):
        items = [ws for ws in (_segment_words(s) for s in re.split(separators, compared.strip())) if ws]
        aspects = _with_context(_segment_words(shared), [])
        return [Intent(" ".join(_with_context(item, aspects)), item + aspects) for item in items][:MAX_SUB_QUERIES]
    raw = [s for s in re.split(separators, question.strip(" ?.!")) if _segment_words(s)]
    segments = [_segment_words(s) for s in raw]
    if not segments:
        return [Intent(question.strip(), content_words(question), raw=question)]
    prefix = [w for w in segments[0][:-1] if not _is_entity_like(w)]
    last = segments[-1]
    suffix = [w for w in last[1:] if not _is_entity_like(w)] if _is_entity_like(last[0]) else []
    out: list[Intent] = []
    for n, segment in enumerate(segments):
        query = own = segment
        if len(segments) > 1 and len(segment) < SELF_CONTAINED_WORDS:
            trailing = suffix if n < len(segments) - 1 else []
            query = _with_context(segment, (prefix if n > 0 else []) + trailing)
            own = _with_context(segment, trailing)  # the aspects compared are asked of every item
        text = " ".join(query)
        if text.lower() not in (i.query.lower() for i in out):
            refers_back = n > 0 and bool(_REFERS_BACK.search(raw[n]))
            out.append(Intent(text, own, refers_back, raw[n].strip(" ,;?.!")))
    return out[:MAX_SUB_QUERIES]


def _overlap(query_terms: Iterable[str], description_terms: set[str]) -> int:
    def close(a: str, b: str) -> bool:
        return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))

    return sum(1 for q in set(query_terms) if any(close(q, d) for d in description_terms))


def route(sub_query: str, retrievers: Sequence[R]) -> list[R]:
    """The retrievers whose description overlaps the sub-query most; all of them if none does."""
    terms = tokenize(sub_query)
    scores = [_overlap(terms, set(tokenize(r.description or ""))) for r in retrievers]
    best = max(scores, default=0)
    if best == 0:
        return list(retrievers)
    return [r for r, score in zip(retrievers, scores, strict=True) if score == best]


def entities_in(text: str) -> list[str]:
    """Names worth a follow-up search, in order of appearance (`ACME` inside `ACME-4012` is not one)."""
    spans = sorted(
        ((m.start(), -m.end(), m.group()) for pattern in _ENTITY_PATTERNS for m in pattern.finditer(text)),
    )
    names: list[str] = []
    covered_until = -1
    for start, negative_end, name in spans:
        if start < covered_until:
            continue
        covered_until = -negative_end
        if name not in _GENERIC_ACRONYMS:
            names.append(name)
    return list(dict.fromkeys(names))


def new_entities(evidence: Iterable[str], known_text: Sequence[str]) -> list[str]:
    """Entities in `evidence` not already in the question, earlier sub-queries or earlier leads."""
    known = {w.lower() for text in known_text for w in words(text)}
    fresh: list[str] = []
    for text in evidence:
        for name in entities_in(text):
            if name.lower() in known or name in fresh:
                continue
            fresh.append(name)
            if len(fresh) == MAX_NEW_ENTITIES:
                return fresh
    return fresh
