"""Conversations: binds a request to an AgentCore Memory session of its verified end user.

AgenticRetrieveStream's `memoryConfiguration.sessionBinding {actorId, sessionId}` restores the
session's history and, with persistenceMode DEFAULT, writes the question and the generated answer
back as one event (botocore model, bedrock-agent-runtime; docs/conversations.md). The model says of
actorId "you are responsible for sending the correct actor value": here it is ALWAYS derived from
the end user identity.py verified, never from the request. A caller picks only the session id, so
another user's session id names a different (actor, session) pair and restores nothing.

- The actor id is `u-` + the user id with every byte outside `[A-Za-z0-9-]` written as `_xx`
  (hex), which is injective and fits AgentCoreMemoryActorId's pattern; ids that would pass 255
  characters become `h-` + their SHA-256. The actor never contains `/`, so a namespace
  `/actors/{actorId}/...` of one user is never a prefix of another's.
- A request without a vouched end user gets no binding (`done.memory.unbound` says why), or 403
  `memory_user_unverified` when the tenant sets `memory.required`.
- Persistence: DEFAULT (write back) when an answer is generated, NONE otherwise; a request may ask
  for `none`, and asking for `default` without generateResponse is refused (the model: DEFAULT
  "requires generateResponse to be true").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lambdas.endpoint import identity
from lambdas.endpoint.api_errors import ApiError

if TYPE_CHECKING:
    from contract.settings import TenantSettings
    from lambdas.endpoint.request import Query

MAX_ACTOR_CHARS = 255  # AgentCoreMemoryActorId: 1-255 characters (botocore; ledger)
_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-")
PERSISTENCE_MODES = {"default": "DEFAULT", "none": "NONE"}  # request value -> persistenceMode


@dataclass(frozen=True)
class MemoryBinding:
    """What the agentic request's memoryConfiguration carries (built only by `bind`)."""

    memory_id: str
    actor_id: str
    session_id: str
    persistence: str  # DEFAULT | NONE
    retrieval_namespace: str | None = None  # resolved for this actor

    def to_request(self) -> dict[str, Any]:
        configuration: dict[str, Any] = {
            "memoryId": self.memory_id,
            "sessionBinding": {"actorId": self.actor_id, "sessionId": self.session_id},
            "persistenceMode": self.persistence,
        }
        if self.retrieval_namespace is not None:
            configuration["retrievalConfigs"] = [{"namespace": self.retrieval_namespace}]
        return configuration


@dataclass(frozen=True)
class MemoryOutcome:
    """The binding decision for a request that sent a sessionId (None when it sent none)."""

    binding: MemoryBinding | None
    unbound_reason: str | None = None


def actor_id_for(user_id: str) -> str:
    """The AgentCore actor id of a verified end user: injective, pattern-safe, never containing `/`."""
    escaped = "".join(chr(b) if b in _PLAIN else f"_{b:02x}" for b in user_id.encode("utf-8"))
    actor = f"u-{escaped}"
    if len(actor) <= MAX_ACTOR_CHARS:
        return actor
    return "h-" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()


def memory_user(settings: TenantSettings, caller: identity.Caller, user_id: str | None) -> str | None:
    """The end user a session belongs to: the user id identity.py resolved (user_context caller or
    trusted) or, for a tenant without document ACLs, whoever the same rules vouch for (an IAM user's
    name, a listed role's pinned session name); None when nobody is vouched for."""
    if user_id is not None:
        return user_id
    if settings.user_context != "none":
        return None
    try:
        return identity.resolve_user_id("caller", caller, None, (), settings.session_name_callers)
    except ApiError:
        return None


def _persistence(query: Query) -> str:
    if query.persistence is None:
        return "DEFAULT" if query.generate_response else "NONE"
    if query.persistence == "default" and not query.generate_response:
        raise ApiError(
            400,
            "invalid_request",
            "field 'persistence': 'default' writes the generated answer back to the session and needs "
            "generateResponse true; send persistence 'none' or generateResponse true",
        )
    return PERSISTENCE_MODES[query.persistence]


def bind(settings: TenantSettings, query: Query, caller: identity.Caller, user_id: str | None) -> MemoryOutcome | None:
    """The request's memory binding (None: it sent no sessionId), or ApiError."""
    memory = settings.memory
    if query.session_id is None:
        return None
    if memory is None:
        raise ApiError(
            400,
            "memory_not_enabled",
            "this tenant has no conversation memory (a `memory:` block in its config); remove 'sessionId'",
        )
    end_user = memory_user(settings, caller, user_id)
    if end_user is None:
        reason = "no verified end user: a session belongs to one, and a caller never names it"
        if memory.required:
            raise ApiError(403, "memory_user_unverified", f"{reason} (memory.required); docs/conversations.md")
        return MemoryOutcome(None, reason)
    actor = actor_id_for(end_user)
    namespace = memory.retrieval_namespace
    return MemoryOutcome(
        MemoryBinding(
            memory_id=memory.memory_id,
            actor_id=actor,
            session_id=query.session_id,
            persistence=_persistence(query),
            retrieval_namespace=namespace.replace("{actorId}", actor) if namespace else None,
        )
    )
