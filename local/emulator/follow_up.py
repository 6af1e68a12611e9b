"""Follow-up questions: "And on Enterprise?" after "What are the Pro plan's rate limits?".

The managed planner reads the conversation (messages history or a restored memory session) and
plans for what the user means. The emulator imitates that with one deterministic rule: a question
that opens like a follow-up ("and", "what about", "how about") or is short (fewer than
SELF_CONTAINED_WORDS content words) without naming anything of its own borrows the previous
question's content words; when it names its own entity (a capitalized word such as "Enterprise"),
the previous question's entities ("Pro") give way to it. The result is what planning, retrieval
and the answer work from. No claim about the service's quality: it only makes two-turn
conversations testable without AWS.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from local.emulator.text import content_words

SELF_CONTAINED_WORDS = 3
_OPENERS = re.compile(r"^\s*(?:and|also|what\s+about|how\s+about)\b", re.IGNORECASE)


def _is_entity(word: str) -> bool:
    return word[:1].isupper() or any(c.isdigit() for c in word)


def is_follow_up(question: str) -> bool:
    """Opens like a follow-up, or is short and names nothing of its own ("Pricing?"; not "What is ACME-2204?")."""
    if _OPENERS.match(question):
        return True
    own = content_words(question)
    return len(own) < SELF_CONTAINED_WORDS and not any(_is_entity(w) for w in own)


def standalone(question: str, earlier: Sequence[str]) -> str:
    """The question as planned: itself, or completed from the conversation's earlier questions."""
    resolved = ""
    for previous in earlier:  # each earlier question may itself have been a follow-up
        resolved = _complete(previous, resolved) if resolved else previous
    if not resolved or not is_follow_up(question):
        return question
    return _complete(question, resolved)


def _complete(question: str, previous: str) -> str:
    if not is_follow_up(question):
        return question
    own = [w for w in content_words(question) if len(w) > 1]
    names_own_entity = any(_is_entity(w) for w in own)
    lowered = {w.lower() for w in own}
    borrowed = [
        w
        for w in content_words(previous)
        if len(w) > 1 and w.lower() not in lowered and not (names_own_entity and _is_entity(w))
    ]
    return " ".join(own + borrowed) if borrowed else question
