"""The first steps of a request: its correlation id, its caller, its body, its query, its end user.

Each step is another module's rule (identity.py, request.py, conversation.py); this one orders
them and reads the body under its size and time bounds. Everything it refuses is an ApiError,
answered before any upstream call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from dataclasses import dataclass

from contract import log_fields as lf
from lambdas.endpoint import conversation, identity
from lambdas.endpoint.http_exchange import ClientDisconnect, HttpRequest
from lambdas.endpoint.logs import RequestLog
from lambdas.endpoint.request import Query, body_timeout, check_content_type, parse_query, too_large
from lambdas.endpoint.service import Service

REQUEST_ID_HEADER = "x-request-id"
_MAX_REQUEST_ID_CHARS = 128


@dataclass(frozen=True)
class Accepted:
    query: Query
    user_id: str | None  # the verified end user (identity.resolve_user_id), or None
    memory: conversation.MemoryOutcome | None  # with a sessionId: how the turn is bound


def correlation_id(request: HttpRequest) -> str:
    """The Lambda request id from the verified context, else the caller's X-Request-Id, else a new one.

    A request carrying the context header more than once is refused by identity.py; until then its
    (untrusted) context names no request id."""
    contexts = identity.context_header_values(request.scope.get("headers", []))
    request_id = identity.parse_context(contexts[0], ())[1] if len(contexts) == 1 else None
    given = request.headers.get(REQUEST_ID_HEADER, "")
    if not request_id and given and len(given) <= _MAX_REQUEST_ID_CHARS and given.isprintable():
        request_id = given
    return request_id or str(uuid.uuid4())


async def read_body(request: HttpRequest, limit: int, seconds: float) -> bytes | None:
    """The body, or None when the client hung up before sending all of it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise too_large(limit)
    except ClientDisconnect:
        return None
    except TimeoutError:
        raise body_timeout(seconds) from None
    return bytes(body)


async def accept(service: Service, request: HttpRequest, log: RequestLog) -> Accepted | None:
    """Caller, body, query, end user and memory binding, or ApiError; None: the client hung up mid-body."""
    settings = service.settings
    # Raw ASGI headers: a repeated x-amzn-request-context is refused, never resolved to its first copy.
    caller = identity.caller_from_raw_headers(
        request.scope["headers"], service.local_mode, service.local_caller_arn, service.request_contexts
    )
    log.bind(**{lf.CALLER: caller.arn})
    check_content_type(request.headers.get("content-type"))
    body = await read_body(request, settings.max_body_bytes, service.body_timeout_seconds)
    if body is None:
        return None
    query = parse_query(body, settings)
    user_id = identity.resolve_user_id(
        settings.user_context, caller, query.user_id, settings.trusted_callers, settings.session_name_callers
    )
    # The session's actor is the verified end user, never a value from the body (conversation.py).
    memory = conversation.bind(settings, query, caller, user_id)
    if memory is not None and memory.binding is not None:
        query = dataclasses.replace(query, memory=memory.binding)
    # A nextToken continues only the request it was sealed to (page_tokens.py): 400 before Bedrock otherwise.
    binding = service.page_tokens.binding(settings.tenant, caller.arn, user_id, query)
    upstream_token = None if query.next_token is None else service.page_tokens.open(query.next_token, binding)
    query = dataclasses.replace(query, page_binding=binding, next_token=upstream_token)
    return Accepted(query, user_id, memory)
