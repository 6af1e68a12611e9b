"""Every way a request can fail, as a stable code: an HTTP status before streaming, an event after.

Callers program against the codes (docs/endpoint.md has the table), so they never change meaning.
Upstream failures are mapped here once, for both places: `api_error_for` (nothing sent yet) and
`error_event_for` (the stream has started). No message ever carries a stack trace, an ARN or an
account id (redaction.py): Bedrock's own text goes to the logs as `detail`, the caller gets the
code, the denied action and the knowledge base's alias.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from contract.events import ErrorEvent
from lambdas.endpoint.modes.stream_integrity import StreamBroken
from lambdas.endpoint.redaction import redact


@dataclass
class ApiError(Exception):
    """A failure answered before any event: `{"error": {"code", "message"}}` with `status`."""

    status: int
    code: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)
    detail: str = ""  # for the logs only (e.g. Bedrock's own message, ARNs included); never sent

    def __str__(self) -> str:
        return f"{self.status} {self.code}: {self.message}"

    def body(self) -> dict[str, dict[str, str]]:
        return {"error": {"code": self.code, "message": redact(self.message)}}


@dataclass(frozen=True)
class UpstreamFailure:
    status: int
    code: str
    message: str  # for the caller: no ARN, no account id
    retryable: bool
    detail: str = ""  # Bedrock's own message, for the logs


# botocore error codes: initial-call exceptions are PascalCase, in-stream members camelCase.
_PERMISSION_HINT = (
    "the endpoint's role was refused by Bedrock; likely missing: bedrock:AgenticRetrieveStream, "
    "bedrock:Retrieve on the tenant's knowledge bases, bedrock:InvokeModelWithResponseStream on the "
    "planner model, or bedrock:ApplyGuardrail on the guardrail"
)
# Bedrock's (IAM's) AccessDenied text: "User: <arn> is not authorized to perform: <action> on
# resource: <arn> because no identity-based policy allows ..." (the resource part is optional).
_DENIED = re.compile(
    r"not authorized to perform:?\s*(?P<action>[A-Za-z0-9-]+:[A-Za-z0-9*]+)"
    r"(?:\s+on resource:?\s*(?P<resource>[^\s,;]+))?"
)
_UPSTREAM: dict[str, UpstreamFailure] = {
    "throttlingexception": UpstreamFailure(
        429, "throttled", "Bedrock is throttling requests; retry after the delay given", True
    ),
    "accessdeniedexception": UpstreamFailure(502, "upstream_access_denied", _PERMISSION_HINT, False),
    "validationexception": UpstreamFailure(
        502, "upstream_rejected", "Bedrock rejected the request the endpoint built", False
    ),
    "resourcenotfoundexception": UpstreamFailure(
        502,
        "upstream_not_found",
        "a knowledge base, model or guardrail in the tenant's settings was not found",
        False,
    ),
    "conflictexception": UpstreamFailure(502, "upstream_conflict", "Bedrock reported a conflict", False),
    "badgatewayexception": UpstreamFailure(502, "upstream_bad_gateway", "Bedrock reported a bad gateway", True),
    "dependencyfailedexception": UpstreamFailure(
        502, "upstream_dependency_failed", "a service Bedrock depends on failed", True
    ),
    "internalserverexception": UpstreamFailure(503, "upstream_unavailable", "Bedrock had an internal error", True),
    "servicequotaexceededexception": UpstreamFailure(
        503, "upstream_quota_exceeded", "a Bedrock service quota was exceeded", False
    ),
}
# The caller's own nextToken was refused (used, expired or made up): its fault, not the endpoint's.
# That Bedrock names the member in its message is how the emulator behaves; the service's wording is
# UNVERIFIED (docs/facts-and-decisions.md), and any other wording stays a 502 upstream_rejected.
_BAD_NEXT_TOKEN = UpstreamFailure(
    400, "invalid_next_token", "field 'nextToken' is not valid or has expired: ask again without it", False
)
# A retrieval instruction resolves only once ACTIVE (botocore: "its status must be ACTIVE"); Bedrock
# reviews its content asynchronously after each create. Which error code and message the service
# answers with is UNVERIFIED (docs/facts-and-decisions.md): recognised by a message that names the
# retrieval instruction, under any of these codes.
_INSTRUCTION_CODES = frozenset({"validationexception", "conflictexception", "resourcenotfoundexception"})
_NAMES_INSTRUCTION = re.compile(r"retrieval[\s_-]*instruction", re.IGNORECASE)
_INSTRUCTION_NOT_ACTIVE = UpstreamFailure(
    503,
    "retrieval_instruction_not_active",
    "the tenant's retrieval instruction is not ACTIVE: Bedrock reviews its content after each create "
    "or update and serves it only once ACTIVE; wait for the review, and check its status with "
    "`akb doctor` (a failed review needs the instruction's text changed and redeployed)",
    False,
)
_UNKNOWN_UPSTREAM = UpstreamFailure(502, "upstream_error", "Bedrock returned an unexpected error", False)
_UNREACHABLE = UpstreamFailure(503, "upstream_unreachable", "Bedrock could not be reached", True)
_BROKEN = UpstreamFailure(502, "upstream_stream_broken", "the stream from Bedrock broke off", True)
_INTERNAL = UpstreamFailure(500, "internal", "internal error in the endpoint", False)

# Opening the stream is retried for these, and only before the first byte reaches the client.
RETRYABLE_BEFORE_FIRST_BYTE = frozenset({"throttlingexception", "internalserverexception"})


def error_code_of(error: BaseException) -> str | None:
    """botocore's error code (ClientError and EventStreamError), normalized to lower case."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code = (response.get("Error") or {}).get("Code")
        if isinstance(code, str):
            return code.lower()
    return None


def upstream_message_of(error: BaseException) -> str:
    response = getattr(error, "response", None)
    message = (response.get("Error") or {}).get("Message") if isinstance(response, dict) else None
    return message if isinstance(message, str) else ""


def access_denied_message(upstream_message: str, alias_of: Mapping[str, str] | None = None) -> str:
    """The denied action (and which resource) Bedrock named, first; the generic hint when it named none.

    The resource is named by the tenant's alias for a knowledge base, by its kind otherwise: the ARN
    (and the account id in it) stays in the logs."""
    match = _DENIED.search(upstream_message)
    if match is None:
        return _PERMISSION_HINT
    action, resource = match["action"], match["resource"]
    where = f" on {redact(resource.rstrip('.'), alias_of)}" if resource else ""
    return f"the endpoint's role is not allowed {action}{where}; grant it in the endpoint role's policy"


def classify(error: BaseException, alias_of: Mapping[str, str] | None = None) -> UpstreamFailure:
    """What an exception from the upstream call or stream means for the caller (and for the logs)."""
    if isinstance(error, ApiError):  # a wrapper's own answer (upstream_chain.py), e.g. a quota's 429
        return UpstreamFailure(error.status, error.code, error.message, error.status in (429, 503), error.detail)
    if isinstance(error, StreamBroken):  # incomplete or malformed, though no socket failed
        return replace(_BROKEN, detail=str(error))
    code = error_code_of(error)
    if code in _INSTRUCTION_CODES and _NAMES_INSTRUCTION.search(upstream_message_of(error)):
        return _INSTRUCTION_NOT_ACTIVE
    if code is not None:
        failure = replace(_UPSTREAM.get(code, _UNKNOWN_UPSTREAM), detail=upstream_message_of(error))
        if code == "accessdeniedexception":  # PascalCase before the stream, camelCase inside it
            return replace(failure, message=access_denied_message(failure.detail, alias_of))
        if code == "validationexception" and "nexttoken" in failure.detail.lower():
            return replace(_BAD_NEXT_TOKEN, detail=failure.detail)
        return failure
    # Imported here: only failing requests pay for botocore's exception module lookups.
    from botocore.eventstream import ParserError
    from botocore.exceptions import ConnectionError as BotoConnectionError
    from botocore.exceptions import HTTPClientError, ReadTimeoutError
    from urllib3.exceptions import HTTPError as Urllib3Error

    if is_connection_failure(error) or isinstance(error, BotoConnectionError | ReadTimeoutError):
        return replace(_UNREACHABLE, detail=str(error))
    if isinstance(error, HTTPClientError | Urllib3Error | OSError | ParserError):  # ParserError: a corrupted frame
        return replace(_BROKEN, detail=str(error))
    return _INTERNAL


def is_connection_failure(error: BaseException) -> bool:
    """The call never got a byte of a response: refused, connect timeout, or closed before the
    status line (botocore raises ConnectionClosedError only then: an overloaded listen backlog)."""
    from botocore.exceptions import ConnectionClosedError, ConnectTimeoutError, EndpointConnectionError

    return isinstance(error, EndpointConnectionError | ConnectTimeoutError | ConnectionClosedError)


def is_retryable_before_first_byte(error: BaseException) -> bool:
    return error_code_of(error) in RETRYABLE_BEFORE_FIRST_BYTE or is_connection_failure(error)


def api_error_for(
    error: BaseException, retry_after_seconds: int, alias_of: Mapping[str, str] | None = None
) -> ApiError:
    """`Retry-After` on every answer that retrying later can fix (429 throttled, 503 unreachable
    or unavailable): the client's retry waits at least as long as the endpoint's own did."""
    if isinstance(error, ApiError):
        return error
    failure = classify(error, alias_of)
    headers = {"Retry-After": str(retry_after_seconds)} if failure.retryable and failure.status in (429, 503) else {}
    return ApiError(failure.status, failure.code, failure.message, headers, detail=failure.detail)


# Mid-stream the HTTP status (and Retry-After) is long gone: the message says what happened to the
# answer and what retrying means, instead of pointing at a delay nobody was given.
_MID_STREAM_MESSAGES = {
    "throttled": (
        "Bedrock throttled the request after the answer had started streaming, so the answer is "
        "incomplete; nothing was retried (the endpoint never retries once events were sent). "
        "Retrying the whole request after a short wait (a few seconds) usually succeeds."
    ),
}


def error_event_for(error: BaseException, alias_of: Mapping[str, str] | None = None) -> ErrorEvent:
    failure = classify(error, alias_of)
    message = _MID_STREAM_MESSAGES.get(failure.code, failure.message)
    return ErrorEvent(code=failure.code, message=redact(message, alias_of), retryable=failure.retryable)


def deadline_api_error(seconds: float) -> ApiError:
    return ApiError(504, "deadline", f"no answer from Bedrock within the {seconds:g} s request deadline")


def deadline_event(seconds: float) -> ErrorEvent:
    return ErrorEvent(
        code="deadline",
        message=f"the {seconds:g} s request deadline was reached; the answer is incomplete",
        retryable=False,
    )


def internal_event() -> ErrorEvent:
    return ErrorEvent(code=_INTERNAL.code, message=_INTERNAL.message, retryable=False)


def internal_api_error() -> ApiError:
    return ApiError(_INTERNAL.status, _INTERNAL.code, _INTERNAL.message)
