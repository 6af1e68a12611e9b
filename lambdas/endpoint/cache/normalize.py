"""Normalization of request text for the cache key: only changes that cannot change the meaning.

Two questions share an entry only when they normalize to the same text, so this module may merge
spellings of one question ("How do I rotate an API key?" / "how do I rotate an API key") but
must never merge two questions that want different answers. It therefore never drops or
rewrites words: negations ("not", "never", "can't"), numbers, identifiers (ACME-4012, TCK-1183),
dates, versions (v2.3) and quoted strings all survive, because each of them changes the answer.
What it does:
- Unicode NFKC (full-width and compatibility forms become one spelling);
- whitespace runs become one space; sentence punctuation at the very end (`?`, `!`, `.`) goes;
- words are lower-cased, except tokens that hold a digit (identifiers, dates, versions) and
  all-capital tokens of two or more letters (acronyms: "US" is not "us");
- quoted strings ("...", '...', `...`, “...”, 「...」) are kept exactly as written.
A paraphrase ("don't" vs "do not") is simply a different key: a miss costs a call, a wrong hit
costs trust.
"""

from __future__ import annotations

import re
import unicodedata

# A quoted span: its quotes and content are copied verbatim. A single quote opens a span only
# at a word boundary (so "don't" is not a quote).
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|「[^」]*」|`[^`]*`|(?<!\w)\'[^\']+\'(?!\w)')
_TRAILING = re.compile(r"[\s?!.。]+$")  # after NFKC full-width marks are these


def _word(token: str) -> str:
    if any(c.isdigit() for c in token):
        return token  # identifiers, dates, versions, amounts: exactly as written
    letters = [c for c in token if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return token  # acronyms
    return token.casefold()


def _plain(text: str) -> str:
    return " ".join(_word(token) for token in text.split())


def normalize_text(text: str) -> str:
    """The text as the cache key sees it (pure; see the module docstring for what may change)."""
    text = _TRAILING.sub("", unicodedata.normalize("NFKC", text).strip())
    parts: list[str] = []
    position = 0
    for match in _QUOTED.finditer(text):
        parts.append(_plain(text[position : match.start()]))
        parts.append(match.group(0))
        position = match.end()
    parts.append(_plain(text[position:]))
    return " ".join(part for part in parts if part)
