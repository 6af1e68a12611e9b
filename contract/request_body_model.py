"""`POST /v1/query`'s body as a pydantic model: for clients and schema tools, not for the endpoint.

The endpoint validates bodies with request_body.validate_body (plain Python: no pydantic schema to
build on a cold start); this model states the same fields, limits and rules, and
tests/contract/test_request_body_agreement.py holds the two to the same verdicts.
"""

from __future__ import annotations

import itertools
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from contract.enums import Persistence
from contract.request_body import (
    MAX_KNOWLEDGE_BASES,
    MAX_MESSAGES,
    MAX_NEXT_TOKEN_CHARS,
    MAX_SESSION_ID_CHARS,
    MAX_TEXT_CHARS,
    MAX_USER_ID_CHARS,
    NEXT_TOKEN_PATTERN,
    SESSION_ID_PATTERN,
    visible,
)

Text = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS)]


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
    userId: Annotated[str, StringConstraints(min_length=1, max_length=MAX_USER_ID_CHARS)] | None = None
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
