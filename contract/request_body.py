"""`POST /v1/query`'s body as sent: the model the endpoint validates and the client builds.

camelCase, like the rest of the HTTP API. Strict: `"3"` is not a number and an unknown field is an
error, so a typo or a spoofed `caller` never passes silently. The tenant's own rules (aliases, caps)
are the endpoint's (lambdas/endpoint/request.py); this module knows only the shapes and limits.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from contract.enums import Persistence

MAX_TEXT_CHARS = 10_000  # query text is at most 10,000 characters (docs/facts-and-decisions.md)
MAX_MESSAGES = 50
MAX_KNOWLEDGE_BASES = 5  # AgenticRetrieveStream takes at most 5 retrievers
MAX_USER_ID_CHARS = 256
# AgenticRetrieveStream's NextToken: 1-2048 characters, no whitespace (botocore model; ledger).
MAX_NEXT_TOKEN_CHARS = 2048
NEXT_TOKEN_PATTERN = r"^\S+$"  # noqa: S105 - a format, not a secret
# AgentCoreMemorySessionId: 1-100 characters, `^[a-zA-Z0-9][a-zA-Z0-9\-_]*$` (botocore model; ledger).
MAX_SESSION_ID_CHARS = 100
SESSION_ID_PATTERN = r"^[a-zA-Z0-9][a-zA-Z0-9\-_]*$"

Text = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS)]

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


def _user_id(value: str) -> str:
    problem = user_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


UserId = Annotated[str, AfterValidator(_user_id)]


class MessageBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    role: Literal["user", "assistant"]
    content: Text


class QueryBody(BaseModel):
    """`POST /v1/query` as sent (camelCase, like the rest of the HTTP API)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: Text | None = None
    messages: Annotated[list[MessageBody], Field(min_length=1, max_length=MAX_MESSAGES)] | None = None
    knowledgeBases: Annotated[list[str], Field(min_length=1, max_length=MAX_KNOWLEDGE_BASES)] | None = None
    generateResponse: bool | None = None
    maxAgentIteration: Annotated[int, Field(ge=0)] | None = None
    maxResults: Annotated[int, Field(ge=1)] | None = None
    filter: dict[str, Any] | None = None
    mode: str | None = None  # None: the tenant's routing.default_mode (agentic unless changed)
    userId: UserId | None = None
    # "bypass": answer from the source and leave the tenant's result cache alone (docs/cache.md).
    cache: Literal["bypass"] | None = None
    # The previous page's `done.nextToken`: fetch the next page of results for the same question.
    nextToken: (
        Annotated[str, StringConstraints(min_length=1, max_length=MAX_NEXT_TOKEN_CHARS, pattern=NEXT_TOKEN_PATTERN)]
        | None
    ) = None

    # A conversation of the verified end user (docs/conversations.md); the actor is never sent.
    sessionId: (
        Annotated[str, StringConstraints(min_length=1, max_length=MAX_SESSION_ID_CHARS, pattern=SESSION_ID_PATTERN)]
        | None
    ) = None
    # Write this turn back to the session (default when an answer is generated) or not.
    persistence: Persistence | None = None

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not visible(value):
            raise ValueError("must not be blank (whitespace, zero-width or control characters only)")
        return value

    @field_validator("messages")
    @classmethod
    def _conversation(cls, value: list[MessageBody] | None) -> list[MessageBody] | None:
        if value is None:
            return value
        for earlier, later in itertools.pairwise(value):
            if earlier.role == later.role:
                raise ValueError("roles must alternate between user and assistant")
        if value[-1].role != "user":
            raise ValueError("the last message must be from the user")
        if not visible(value[-1].content):
            raise ValueError("the last message must not be blank (whitespace, zero-width or control characters only)")
        return value


def visible(text: str) -> bool:
    """Whether `text` has a character a reader can see: not whitespace, and not a format or control
    character (zero-width space U+200B, joiners, BOM are category Cf; str.strip() keeps them)."""
    return any(not char.isspace() and unicodedata.category(char) not in ("Cf", "Cc") for char in text)
