"""Every enumeration of the HTTP contract and the config, defined once as a Literal with its tuple.

The schema, the endpoint, the client and the emulator import these; a new mode or error code is one
edit here (and the module that implements it). Each tuple is derived from its Literal, so the two
cannot disagree.
"""

from __future__ import annotations

from typing import Literal, get_args

# How a query is answered (docs/routing.md): the planner's loop, one Retrieve per knowledge base
# fused, or the router choosing one of the two per question.
Mode = Literal["agentic", "retrieve", "auto"]
MODES: tuple[Mode, ...] = get_args(Mode)

# Whose identity becomes `userContext.userId` (docs/security.md, "Identity for document ACLs").
UserContextMode = Literal["none", "caller", "trusted"]
USER_CONTEXT_MODES: tuple[UserContextMode, ...] = get_args(UserContextMode)

# `done.stopReason`. complete: the planner judged the evidence sufficient (or the mode has no
# planner); iteration_limit: it used every allowed iteration without saying so, so the answer may be
# incomplete; partial: the stream ended but some sources failed or the answer is known to miss parts.
StopReason = Literal["complete", "iteration_limit", "partial", "error", "deadline", "client_closed"]
STOP_REASONS: tuple[StopReason, ...] = get_args(StopReason)

# How the result cache took part (docs/cache.md): hit, miss (looked up, not found or not usable),
# bypass (the request asked, or a version could not be read), off (no cache for this tenant or mode).
CacheOutcome = Literal["hit", "miss", "bypass", "off"]
CACHE_OUTCOMES: tuple[CacheOutcome, ...] = get_args(CacheOutcome)

# `done.degraded`: why the answer took a lesser path than the one asked for (docs/quota.md). quota: `auto`
# would have used agentic retrieval, but the tenant's share of the account's agentic quota was used up,
# so it was answered with single-shot retrieval (`done.mode: retrieve`).
Degradation = Literal["quota"]
DEGRADATIONS: tuple[Degradation, ...] = get_args(Degradation)

# Whether a conversation turn is written back to its session (docs/conversations.md).
Persistence = Literal["default", "none"]
PERSISTENCES: tuple[Persistence, ...] = get_args(Persistence)

# The front doors whose request context the endpoint accepts (docs/front-door.md).
RequestContext = Literal["function_url", "api_gateway"]
REQUEST_CONTEXTS: tuple[RequestContext, ...] = get_args(RequestContext)

# Every stable error code (docs/endpoint.md has the table with statuses and meanings): answered as
# `{"error": {"code"}}` before streaming, or as an `error` event after.
ErrorCode = Literal[
    # the request
    "invalid_json",
    "invalid_encoding",
    "duplicate_key",
    "invalid_request",
    "limit_exceeded",
    "unsupported_media_type",
    "body_too_large",
    "body_timeout",
    "invalid_next_token",
    "not_found",
    "method_not_allowed",
    "http_error",
    # identity
    "unauthenticated",
    "duplicate_request_context",
    "user_id_not_allowed",
    "user_identity_unverified",
    "user_id_unavailable",
    "memory_user_unverified",
    "memory_not_enabled",
    "knowledge_base_not_allowed",
    # upstream
    "throttled",
    "upstream_access_denied",
    "upstream_rejected",
    "upstream_not_found",
    "upstream_conflict",
    "upstream_bad_gateway",
    "upstream_dependency_failed",
    "upstream_unavailable",
    "upstream_quota_exceeded",
    "upstream_error",
    "upstream_unreachable",
    "upstream_stream_broken",
    "retrieval_instruction_not_active",
    # the endpoint
    "tenant_quota_exceeded",
    "deadline",
    "internal",
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)
