"""Request texts that made the old regular expressions backtrack, at the 10,000-character limit.

Shared by tests/lambdas/endpoint/cache/test_normalize.py (linear-time ratios) and
bench/normalize_text.py (before/after numbers), so both time the same inputs.
"""

from __future__ import annotations

from contract.request_body import MAX_TEXT_CHARS

PLAIN_WORDS = "How do I rotate an API key without downtime for ACME-2204 in the docs "


def sized(unit: str, length: int = MAX_TEXT_CHARS, tail: str = " x") -> str:
    """`unit` repeated to `length` characters, ending in `tail` (so nothing trailing can be stripped)."""
    body = unit * ((length - len(tail)) // len(unit) + 1)
    return body[: length - len(tail)] + tail


PLAIN_TEXT = sized(PLAIN_WORDS)
WORST_TEXTS = {
    "question marks": sized("?"),
    "full stops": sized("."),
    "ideographic full stops": sized("\u3002"),
    "full-width question marks": sized("\uff1f"),
    "spaces": "a" + sized(" ")[1:],  # inside the text (strip() would take leading ones)
    "mixed sentence ends": sized("? . \u3002! "),
    "unclosed curly quotes": sized("\u201c"),
    "unclosed corner brackets": sized("\u300c"),
    "unclosed double quotes after words": sized('a "'),
    "apostrophes": sized(" 'a"),
    "between without and": sized("between "),
    "between with words": sized("between a "),
    "and runs": sized(" and"),
}
