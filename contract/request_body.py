"""`POST /v1/query`'s body as sent: its fields, limits and rules, and the endpoint's validator of them.

camelCase, like the rest of the HTTP API. Strict: `"3"` is not a number, `true` is not 1, and an
unknown field is an error, so a typo or a spoofed `caller` never passes silently. The tenant's own
rules (aliases, caps) are the endpoint's (lambdas/endpoint/request.py); this module knows only the
shapes and limits.

Plain Python on purpose: the endpoint validates every body with `validate_body`, and pydantic would
build its validator on each cold start (bench/RESULTS.md). This is the one statement of the body's
rules: the endpoint validates with it and the client builds its bodies through it.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from contract.enums import PERSISTENCES

MAX_TEXT_CHARS = 10_000  # query text is at most 10,000 characters (docs/facts-and-decisions.md)
MAX_MESSAGES = 50
MAX_KNOWLEDGE_BASES = 5  # AgenticRetrieveStream takes at most 5 retrievers
MAX_USER_ID_CHARS = 256
# AgenticRetrieveStream's NextToken: 1-2048 characters, no whitespace (botocore model; ledger). The
# endpoint hands it out sealed to its request, 23 characters longer (lambdas/endpoint/page_tokens.py).
MAX_UPSTREAM_NEXT_TOKEN_CHARS = 2048
MAX_NEXT_TOKEN_CHARS = MAX_UPSTREAM_NEXT_TOKEN_CHARS + 23
NEXT_TOKEN_PATTERN = r"^\S+$"  # noqa: S105 - a format, not a secret
# AgentCoreMemorySessionId: 1-100 characters, `^[a-zA-Z0-9][a-zA-Z0-9\-_]*$` (botocore model; ledger).
MAX_SESSION_ID_CHARS = 100
SESSION_ID_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9\-_]*$"
ROLES = ("user", "assistant")
BLANK = "must not be blank (whitespace, invisible or control characters only)"
# Characters a user id never holds: controls (NUL, newlines: log and header injection), format
# characters (zero-width, bidi overrides: `bo\u200bb` would look like `bob`), lone surrogates, line
# and paragraph separators. Every door that takes a user id from a caller applies `user_id_problem`.
_NOT_IN_USER_IDS = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def user_id_problem(value: str) -> str | None:
    """What is wrong with a user id a trusted caller passes (None: nothing), one rule for every door:
    the endpoint's `userId`, the gateway's `userContext.userId`, the agent's `userId` attribute."""
    if not 1 <= len(value) <= MAX_USER_ID_CHARS:
        return f"must be 1 to {MAX_USER_ID_CHARS} characters, got {len(value)}"
    for char in value:
        if unicodedata.category(char) in _NOT_IN_USER_IDS:
            return f"must not contain a control or invisible character U+{ord(char):04X}"
    return None


# Categories of characters a reader never sees on their own: controls, format characters (zero-width
# space, joiners, BOM, bidi controls, tags), surrogates, private-use and unassigned code points, and
# marks (combining accents, enclosing circles, variation selectors: they decorate a base character).
_UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Mn", "Me", "Mc"})
# Letters and symbols that render as blank space: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0,
# Unicode's Default_Ignorable_Code_Point although category Lo) and U+2800 BRAILLE PATTERN BLANK.
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def visible(text: str) -> bool:
    """Whether `text` has a character a reader can see: not whitespace, not a character of an unseen
    category (str.strip() keeps U+200B and the like), not a blank glyph (docs/facts-and-decisions.md)."""
    return any(
        not char.isspace() and char not in _BLANK_GLYPHS and unicodedata.category(char) not in _UNSEEN_CATEGORIES
        for char in text
    )


class BodyError(ValueError):
    """The first thing wrong with a body: where (`messages.0.role`; "" for the body) and what."""

    def __init__(self, location: str, message: str, unknown_field: bool = False) -> None:
        super().__init__(f"{location}: {message}")
        self.location = location
        self.message = message
        self.unknown_field = unknown_field


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Body:
    """A body that passed `validate_body` (None: not sent)."""

    question: str | None = None
    messages: tuple[Message, ...] | None = None
    knowledgeBases: list[str] | None = None
    generateResponse: bool | None = None
    maxAgentIteration: int | None = None
    maxResults: int | None = None
    filter: dict[str, Any] | None = None
    mode: str | None = None
    userId: str | None = None
    cache: str | None = None  # "bypass": answer from the source and leave the result cache alone
    nextToken: str | None = None  # the previous page's `done.nextToken`
    sessionId: str | None = None  # a conversation of the verified end user (docs/conversations.md)
    persistence: str | None = None  # write this turn back to the session (`default`) or not (`none`)


def _text(value: Any, where: str, low: int = 1, high: int = MAX_TEXT_CHARS, pattern: str | None = None) -> str:
    if not isinstance(value, str):
        raise BodyError(where, "Input should be a valid string")
    if len(value) < low:
        raise BodyError(where, f"String should have at least {low} character{'s' * (low != 1)}")
    if len(value) > high:
        raise BodyError(where, f"String should have at most {high} characters")
    # fullmatch: `$` in a pattern also matches before a final newline; the whole value must match.
    if pattern is not None and re.fullmatch(pattern.removeprefix("^").removesuffix("$"), value) is None:
        raise BodyError(where, f"String should match pattern '{pattern}'")
    return value


def _one_of(choices: tuple[str, ...]) -> Callable[[Any, str], str]:
    def check(value: Any, where: str) -> str:
        if not isinstance(value, str) or value not in choices:
            quoted = [f"'{choice}'" for choice in choices]
            said = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
            raise BodyError(where, f"Input should be {said}")
        return value

    return check


def _integer(low: int) -> Callable[[Any, str], int]:
    def check(value: Any, where: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise BodyError(where, "Input should be a valid integer")
        if value < low:
            raise BodyError(where, f"Input should be greater than or equal to {low}")
        return value

    return check


def _boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise BodyError(where, "Input should be a valid boolean")
    return value


def _items(value: Any, where: str, high: int) -> list[Any]:
    if not isinstance(value, list):
        raise BodyError(where, "Input should be a valid list")
    if not value or len(value) > high:
        bound = "at least 1 item" if not value else f"at most {high} items"
        raise BodyError(where, f"List should have {bound} after validation, not {len(value)}")
    return value


def _question(value: Any, where: str) -> str:
    if not visible(_text(value, where)):
        raise BodyError(where, BLANK)
    return value


def _message(value: Any, where: str) -> Message:
    if not isinstance(value, Mapping):
        raise BodyError(where, "Input should be a valid dictionary or instance of MessageBody")
    for name, check in (("role", _one_of(ROLES)), ("content", _text)):
        if name not in value:
            raise BodyError(f"{where}.{name}", "Field required")
        check(value[name], f"{where}.{name}")
    for name in value:
        if name not in ("role", "content"):
            raise BodyError(f"{where}.{name}", "Extra inputs are not permitted", unknown_field=True)
    return Message(value["role"], value["content"])


def _messages(value: Any, where: str) -> tuple[Message, ...]:
    checked = _items(value, where, MAX_MESSAGES)
    messages = tuple(_message(item, f"{where}.{index}") for index, item in enumerate(checked))
    if any(earlier.role == later.role for earlier, later in itertools.pairwise(messages)):
        raise BodyError(where, "roles must alternate between user and assistant")
    if messages[-1].role != "user":
        raise BodyError(where, "the last message must be from the user")
    if not visible(messages[-1].content):
        raise BodyError(where, f"the last message {BLANK}")
    return messages


def _aliases(value: Any, where: str) -> list[str]:
    checked = _items(value, where, MAX_KNOWLEDGE_BASES)
    return [_text(item, f"{where}.{index}", 0, 10**9) for index, item in enumerate(checked)]


def _user_id(value: Any, where: str) -> str:
    problem = user_id_problem(_text(value, where, 0, 10**9))  # its bounds are the rule's, with its message
    if problem is not None:
        raise BodyError(where, problem)
    return value


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BodyError(where, "Input should be a valid dictionary")
    return value


# Each field and its check, in the order the errors are reported.
FIELDS: dict[str, Callable[[Any, str], Any]] = {
    "question": _question,
    "messages": _messages,
    "knowledgeBases": _aliases,
    "generateResponse": _boolean,
    "maxAgentIteration": _integer(0),
    "maxResults": _integer(1),
    "filter": _object,
    "mode": lambda value, where: _text(value, where, 0, 10**9),
    "userId": _user_id,
    "cache": _one_of(("bypass",)),
    "nextToken": lambda value, where: _text(value, where, 1, MAX_NEXT_TOKEN_CHARS, NEXT_TOKEN_PATTERN),
    "sessionId": lambda value, where: _text(value, where, 1, MAX_SESSION_ID_CHARS, SESSION_ID_PATTERN),
    "persistence": _one_of(PERSISTENCES),
}


def validate_body(data: Mapping[str, Any]) -> Body:
    """The body's fields checked in order; BodyError for the first problem (an unknown field last)."""
    values = {name: check(data[name], name) for name, check in FIELDS.items() if data.get(name) is not None}
    for name in data:
        if name not in FIELDS:
            raise BodyError(name, "Extra inputs are not permitted", unknown_field=True)
    return Body(**values)
