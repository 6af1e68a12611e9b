"""Word handling shared by the index, the planner's routing and the answer extractor.

They must agree on what a "word" is, or the planner would route a sub-query to a knowledge base
whose index then cannot match it. Identifiers such as `ACME-4012` or `BulkExport` are kept whole
and also split into their parts, so both `ACME-4012` and `bulk export` find them.
"""

from __future__ import annotations

import re

STOPWORDS_TEXT = """a about above after again all also am an and any are as at be because been before being
    between both but by can could did do does doing done during each few for from further had has have
    having he her here hers him his how i if in into is it its itself just me more most my no nor not
    now of off on once only or other our ours out over own same she should so some such than that the
    their theirs them then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours"""
STOPWORDS = frozenset(STOPWORDS_TEXT.split())

_WORD = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])|\n+")


def stem(word: str) -> str:
    """Crude plural folding: enough for `tickets`/`ticket` and `limits`/`limit` to meet."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """The raw word-like tokens of `text`, case preserved (entities are found from these)."""
    return _WORD.findall(text)


def tokenize(text: str) -> list[str]:
    """Index/query terms: lower-cased, stemmed, stopwords dropped, compounds plus their parts."""
    terms: list[str] = []
    for word in words(text):
        parts = [p for p in re.split(r"[-_.]", word) if p]
        if len(parts) == 1:
            parts = _CAMEL_PART.findall(word) or [word]
        whole = word.lower()
        if whole not in STOPWORDS:
            terms.append(stem(whole))
        if len(parts) > 1:
            terms.extend(stem(p.lower()) for p in parts if p.lower() not in STOPWORDS)
    return terms


def content_words(text: str) -> list[str]:
    """Words of `text` (case kept) without stopwords, for building readable sub-queries."""
    return [w for w in words(text) if w.lower() not in STOPWORDS]


def sentences(text: str) -> list[str]:
    """Sentences of a chunk; headings are dropped (they are titles, not statements), list markers removed."""
    out = []
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    for piece in _SENTENCE_END.split(body):
        cleaned = re.sub(r"^\s*(?:#+|[-*]|\d+\.)\s*", "", piece).strip()
        if cleaned:
            out.append(cleaned)
    return out


def passages_about(text: str, query: str) -> list[str]:
    """The lines of `text` sharing a whole word with `query`: where a lead near the query would be.

    Whole words only: `ACME-4012` must not select every line that mentions some other ACME code.
    """

    def whole(s: str) -> set[str]:
        return {stem(w.lower()) for w in words(s) if w.lower() not in STOPWORDS}

    terms = whole(query)
    return [line for line in text.splitlines() if terms.intersection(whole(line))]


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 result`, `12 results`: trace messages read as sentences."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
