"""Normalization of request text for the cache key: only changes that cannot change the meaning.

Two questions share an entry only when they normalize to the same text, so this module may merge
spellings of one question ("How do I rotate an API key?" / "how do I rotate an API key") but
must never merge two questions that want different answers. It never drops or rewrites words:
negations, numbers, identifiers (ACME-4012), dates, versions (v2.3) and quoted strings survive.
What it does, and nothing else:
- canonical equivalents become one spelling (Unicode NFC: `é` and `e` + combining acute);
- full-width and half-width forms become the usual ones (U+FF1F -> `?`, U+FF21 -> `A`, half-width
  katakana -> katakana): only characters whose compatibility decomposition is `<wide>` or
  `<narrow>`. Other compatibility forms keep their own spelling because they can carry meaning: a
  superscript (`10²` is not `102`), a subscript, a fraction (`½`), a circled digit, a ligature;
- whitespace runs become one space; sentence punctuation at the very end (`?`, `!`, `.`, `。`) goes;
- the question's own capitalization: a closed list of English question and auxiliary words
  ("How", "What", "Does", "Can't") is lower-cased when written lower-case or capitalized. No other
  word changes case, so `Polish`/`polish`, `May`/`may`, `US`/`us` and `Maße`/`Masse` (case
  folding would turn `ß` into `ss`) stay apart;
- quoted strings ("...", “...”, 「...」, `...`, '...') are kept exactly as written.
A paraphrase or another casing is simply a different key: a miss costs a call, a wrong hit costs trust.

Every step is one pass over the text with no regular expression (linear in its length: a long run
of `?` or an unclosed quote costs what a plain question of the same length does, issue 26).
"""

from __future__ import annotations

import functools
import unicodedata

_TRAILING = frozenset("?!.\u3002")  # after width folding, full-width marks are these
# (opening quote, closing quote); a single quote opens a span only at a word's start (not "don't").
_QUOTES = {'"': '"', "\u201c": "\u201d", "\u300c": "\u300d", "`": "`", "'": "'"}
# English words whose meaning never depends on their case: question words and auxiliaries, the
# words a question starts with. Everything else keeps its case.
_CASELESS_WORDS = frozenset(
    (
        *("how", "what", "why", "when", "where", "which", "who", "whom", "whose"),
        *("what's", "how's", "where's", "who's", "please"),
        *("is", "are", "was", "were", "am", "do", "does", "did", "can", "could", "should", "would", "shall"),
        *("has", "have", "had", "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't"),
        *("can't", "couldn't", "shouldn't", "wouldn't", "hasn't", "haven't", "hadn't"),
    )
)


@functools.lru_cache(maxsize=4096)
def _width_folded(char: str) -> str:
    decomposition = unicodedata.decomposition(char)
    if decomposition.startswith(("<wide> ", "<narrow> ")):
        return "".join(chr(int(code, 16)) for code in decomposition.split()[1:])
    return char


def _fold_width(text: str) -> str:
    if text.isascii():
        return text
    return "".join(_width_folded(char) for char in text)


def _without_trailing(text: str) -> str:
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in _TRAILING):
        end -= 1
    return text[:end]


def _word(token: str) -> str:
    lowered = token.replace("\u2019", "'").lower()
    if lowered in _CASELESS_WORDS and token[1:] == token[1:].lower():
        return lowered
    return token


def _plain(text: str) -> str:
    return " ".join(_word(token) for token in text.split())


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _quote_end(text: str, start: int, missing: set[str]) -> int:
    """The index just past the quoted span opening at `start`, or -1 when none opens there.

    `missing` remembers closing quotes that do not occur after an earlier opener, so a text of
    10,000 unclosed quotes is read once, not once per quote."""
    opener = text[start]
    closer = _QUOTES[opener]
    if closer in missing:
        return -1
    if opener == "'" and start > 0 and _is_word_char(text[start - 1]):
        return -1
    end = text.find(closer, start + 1)
    if end < 0:
        missing.add(closer)
        return -1
    if opener == "'" and (end == start + 1 or (end + 1 < len(text) and _is_word_char(text[end + 1]))):
        return -1
    return end + 1


def _spans(text: str) -> list[tuple[str, bool]]:
    """(part, quoted) in order: quoted spans verbatim, the text between them to be normalized."""
    parts: list[tuple[str, bool]] = []
    missing: set[str] = set()
    position = index = 0
    while index < len(text):
        end = _quote_end(text, index, missing) if text[index] in _QUOTES else -1
        if end < 0:
            index += 1
            continue
        parts.append((text[position:index], False))
        parts.append((text[index:end], True))
        position = index = end
    parts.append((text[position:], False))
    return parts


def normalize_text(text: str) -> str:
    """The text as the cache key sees it (pure; see the module docstring for what may change)."""
    text = _without_trailing(unicodedata.normalize("NFC", _fold_width(text)).strip())
    parts = (part if quoted else _plain(part) for part, quoted in _spans(text))
    return " ".join(part for part in parts if part)
