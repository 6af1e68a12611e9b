"""Word handling shared by the index, the planner's routing and the answer extractor.

They must agree on what a "word" is, or the planner would route a sub-query to a knowledge base
whose index then cannot match it. Identifiers such as `ACME-4012` or `BulkExport` are kept whole
and also split into their parts, so both `ACME-4012` and `bulk export` find them.
"""

from __future__ import annotations

import functools
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
    return list(_terms(text))


# The same passages and questions are tokenized on every request (ranking, planning, sufficiency):
# remembered per text, as the pure function of it they are. A bounded cache: a long-running emulator
# over a large corpus keeps the most recent texts only.
@functools.lru_cache(maxsize=16_384)
def _terms(text: str) -> tuple[str, ...]:
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
    return tuple(terms)


def content_words(text: str) -> list[str]:
    """Words of `text` (case kept) without stopwords, for building readable sub-queries."""
    return [w for w in words(text) if w.lower() not in STOPWORDS]


_LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")
_HEADING = re.compile(r"^\s*#+\s*")


def statements(text: str) -> list[tuple[str, str]]:
    """(statement, its context) for each statement of a chunk, as an answer quotes them.

    Headings are dropped (titles, not statements) but are the context of what follows them; a list
    item is one statement, whole, without its marker ("Pro: 299 USD per month. 1,000 API requests
    per minute, ..." keeps the plan its figures belong to), and the line introducing the list (one
    ending with ':') is its context too ("Rate limits ... per minute:" for "- Pro plan: 1,000.");
    other lines are split into sentences.
    """
    out: list[tuple[str, str]] = []
    heading = intro = ""
    for line in text.splitlines():
        if not line.strip():
            continue
        if _HEADING.match(line):
            heading, intro = _HEADING.sub("", line).strip(), ""
            continue
        if _LIST_ITEM.match(line):
            out.append((_LIST_ITEM.sub("", line).strip(), f"{heading} {intro}".strip()))
            continue
        intro = line.strip() if line.rstrip().endswith(":") else ""
        out += [(piece.strip(), heading) for piece in _SENTENCE_END.split(line) if piece.strip()]
    return out


def sentences(text: str) -> list[str]:
    """The statements of a chunk without their context (see statements())."""
    return [statement for statement, _ in statements(text)]


_SUFFIXES = ("ings", "ing", "ions", "ion", "ers", "er", "ed", "es", "s", "ly")


def root(word: str) -> str:
    """A crude stem for judging whether a passage says what a question asks: `owns`, `owner` and
    `owned` meet at `own`, `rotate` and `rotating` at `rotat`. Identifiers (`acme-4012`, words with
    digits) are kept whole. Matching only: the index keeps tokenize()'s plural folding."""
    word = word.lower()
    if not word.isalpha() or len(word) < 4:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith(("ss", "us", "is")):
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


@functools.lru_cache(maxsize=16_384)  # immutable result, same texts on every request (see _terms)
def roots(text: str) -> frozenset[str]:
    """The roots of `text`'s terms (tokenize()'s words and parts, each through root())."""
    return frozenset(root(term) for term in tokenize(text))


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
