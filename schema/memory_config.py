"""A tenant's `memory:` block: conversations with Amazon Bedrock AgentCore Memory (docs/conversations.md).

Opt-in. With it, the tenant stack creates one `AWS::BedrockAgentCore::Memory` and the endpoint
accepts a `sessionId`: AgenticRetrieveStream restores that short-term session's history and, by
default, writes the question and its answer back (`memoryConfiguration.sessionBinding`). The
session's actor is always the verified end user (lambdas/endpoint/conversation.py), never a value
a caller chooses. Optional long-term strategies extract memory records from the events; their
namespaces must contain `{actorId}/` so one user's records never share a prefix with another's,
and `long_term_retrieval` lets the planner read one strategy's records (the API takes at most one
retrieval config), always under the requesting user's own namespace.

Limits: event expiry 3-365 days (CloudFormation AWS::BedrockAgentCore::Memory EventExpiryDuration;
ledger), names `^[a-zA-Z][a-zA-Z0-9_]{0,47}$` (the same schema's Name).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

from schema.common import StrictModel, unique

# The actor placeholder AgentCore resolves in a strategy's namespace template (AgentCore developer
# guide, memory organization; ledger). Followed by "/": "/actors/u-al/" never prefixes "/actors/u-alice/".
ACTOR_PLACEHOLDER = "{actorId}"
_SEGMENT = r"[A-Za-z0-9_-]+"
NAMESPACE_TEMPLATE = re.compile(rf"^/?(?:{_SEGMENT}/)*\{{actorId\}}/(?:{_SEGMENT}/?)+$")
MEMORY_NAME = r"^[a-zA-Z][a-zA-Z0-9_]{0,47}$"  # AWS::BedrockAgentCore::Memory Name (cfn-lint schema)
StrategyType = Literal["semantic", "summary", "user_preference"]


class MemoryStrategy(StrictModel):
    """One long-term extraction strategy of the tenant's memory."""

    name: str = Field(pattern=MEMORY_NAME, description="Strategy name (letters, digits, _; at most 48).")
    type: StrategyType = Field(
        description="semantic (facts), summary (session summaries) or user_preference: AgentCore's built-in "
        "strategies (SemanticMemoryStrategy, SummaryMemoryStrategy, UserPreferenceMemoryStrategy)."
    )
    namespace: str = Field(
        max_length=512,
        description="Where the strategy stores records, e.g. `/actors/{actorId}/facts`. Must contain "
        "`{actorId}/` followed by at least one more segment: records are always scoped to one user.",
    )

    @field_validator("namespace")
    @classmethod
    def _scoped_to_the_actor(cls, value: str) -> str:
        if not NAMESPACE_TEMPLATE.fullmatch(value):
            raise ValueError(
                f"'{value}' must be literal segments (letters, digits, '-', '_') with one '{ACTOR_PLACEHOLDER}/' "
                "segment followed by at least one more, e.g. '/actors/{actorId}/facts': every record is "
                "scoped to one end user"
            )
        return value


class LongTermRetrieval(StrictModel):
    """What the planner may read from long-term memory (AgenticRetrieveStream retrievalConfigs)."""

    strategy: str = Field(description="Name of one of `strategies`; its namespace, resolved for the requesting user.")


class Memory(StrictModel):
    """Conversations: one AgentCore Memory for the tenant (docs/conversations.md)."""

    enabled: bool = Field(True, description="Turn conversations off without deleting the block.")
    event_expiry_days: int = Field(
        30, ge=3, le=365, description="Days a session's events (its turns) are kept (CloudFormation: 3-365)."
    )
    required: bool = Field(
        False,
        description="true: a request with a sessionId whose end user cannot be verified is refused (403 "
        "memory_user_unverified); false: it is answered without the session (done.memory.unbound says why).",
    )
    strategies: list[MemoryStrategy] = Field(
        default_factory=list, max_length=6, description="Long-term extraction strategies; default none."
    )
    long_term_retrieval: LongTermRetrieval | None = Field(
        None, description="Let the planner read one strategy's records of the requesting user; default off."
    )

    @field_validator("strategies")
    @classmethod
    def _distinct(cls, value: list[MemoryStrategy]) -> list[MemoryStrategy]:
        unique([strategy.name for strategy in value], "memory strategy name")
        return value

    @model_validator(mode="after")
    def _retrieval_names_a_strategy(self) -> Memory:
        names = [strategy.name for strategy in self.strategies]
        if self.long_term_retrieval is not None and self.long_term_retrieval.strategy not in names:
            raise ValueError(
                f"long_term_retrieval.strategy '{self.long_term_retrieval.strategy}' is not one of "
                f"memory.strategies ({', '.join(names) or 'none configured'})"
            )
        return self

    def retrieval_namespace(self) -> str | None:
        """The namespace template the planner reads (None: no long-term retrieval)."""
        if self.long_term_retrieval is None:
            return None
        return next(s.namespace for s in self.strategies if s.name == self.long_term_retrieval.strategy)
