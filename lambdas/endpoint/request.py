"""The edge: turns an HTTP request into a validated `Query`, or an ApiError naming what is wrong.

contract/request_body.py checks shapes and types (strict: `"3"` is not a number, unknown fields
are errors so a typo or a spoofed `caller` never passes silently); the tenant's rules (aliases,
caps) come after.
Before that, the JSON itself is held to RFC 8259 where Python's parser is lenient: UTF-8 only
(json.loads would guess UTF-16/32), no NaN/Infinity (not JSON; they would reach Bedrock inside a
filter), no key twice in one object (json.loads keeps the last, so two readers could disagree).
Everything behind this module works on the plain `Query` dataclass.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from contract.enums import MODES, Mode
from contract.request_body import FIELDS, Body, BodyError, validate_body
from contract.settings import TenantSettings
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.conversation import MemoryBinding
from lambdas.endpoint.filters import FilterError, validate_filter

JSON_MEDIA_TYPES = ("application/json",)


@dataclass(frozen=True)
class Query:
    """A validated request, with the tenant's defaults filled in."""

    messages: tuple[tuple[str, str], ...]  # (role, text), the last one the user's
    knowledge_bases: tuple[str, ...]  # aliases, in the tenant's order
    generate_response: bool
    max_agent_iteration: int
    max_results: int
    filter: dict[str, Any] | None
    mode: Mode
    user_id: str | None  # as sent; identity.py decides whether it may be used
    cache_bypass: bool = False  # the request asked not to use the result cache
    next_token: str | None = None  # agentic mode only: the page to fetch
    session_id: str | None = None  # as sent; conversation.py binds it to the verified end user
    persistence: str | None = None  # default | none | None (conversation.py decides)
    memory: MemoryBinding | None = None  # set after identity (conversation.bind), never from the body
    page_binding: bytes | None = None  # set after identity (page_tokens.py): what a nextToken continues

    @property
    def question(self) -> str:
        return self.messages[-1][1]


def check_content_type(content_type: str | None) -> None:
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type not in JSON_MEDIA_TYPES:
        raise ApiError(
            415,
            "unsupported_media_type",
            f"the body must be JSON (content-type: application/json), got '{media_type or 'none'}'",
        )


def too_large(limit: int) -> ApiError:
    return ApiError(413, "body_too_large", f"the request body is larger than {limit} bytes")


def body_timeout(seconds: float) -> ApiError:
    return ApiError(408, "body_timeout", f"the request body did not arrive within {seconds:g} s; send it at once")


def _field_message(error: BodyError) -> str:
    location = error.location or "body"
    if error.unknown_field:
        allowed = ", ".join(FIELDS)
        return f"unknown field '{location}'; allowed fields: {allowed}"
    return f"field '{location}': {error.message}"


class _DuplicateKey(ValueError):
    pass


def _no_constants(name: str) -> Any:
    raise ApiError(400, "invalid_json", f"the body contains {name}, which is not JSON; send a finite number")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def _load_json(body: bytes) -> dict[str, Any]:
    try:
        # A NUL byte is never in UTF-8 JSON (control characters must be escaped): UTF-16/32 without a BOM.
        text = body.decode("utf-8") if b"\x00" not in body else None
    except UnicodeDecodeError:
        text = None
    if text is None:
        raise ApiError(400, "invalid_encoding", "the body must be UTF-8 encoded JSON (RFC 8259)")
    try:
        data = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
    except _DuplicateKey as error:
        raise ApiError(400, "duplicate_key", f"the key '{error}' appears twice in one JSON object") from None
    except (ValueError, RecursionError):  # RecursionError: absurdly nested JSON
        raise ApiError(400, "invalid_json", "the body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "invalid_json", "the body must be a JSON object")
    _refuse_lone_surrogates(data)
    return data


def _unpaired_surrogate(text: str) -> str | None:
    """`\\uXXXX` of the first lone surrogate in `text` (a `\\ud800` escape without its pair), else None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"\\u{ord(text[error.start]):04x}"
    return None


def _refuse_lone_surrogates(data: dict[str, Any]) -> None:
    """400 for a lone surrogate in any key or string of the body, naming where: such a string is not
    text (it cannot be encoded to send upstream or to key the cache) and I-JSON (RFC 7493 §2.1) refuses
    it. One pass over the parsed body, without recursion."""
    pending: list[tuple[Any, str]] = [(data, "")]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            found, where = _unpaired_surrogate(value), f"'{path}'"
        elif isinstance(value, dict):
            found = next(filter(None, map(_unpaired_surrogate, value)), None)
            where = f"a field name of '{path}'" if path else "a field name of the body"
            pending.extend((item, f"{path}.{key}" if path else key) for key, item in value.items())
        else:
            found = None
            if isinstance(value, list):
                pending.extend((item, f"{path}[{index}]") for index, item in enumerate(value))
        if found is not None:
            raise ApiError(
                400,
                "invalid_encoding",
                f"the body holds an unpaired UTF-16 surrogate ({found}) in {where}: escape whole characters "
                "(the character itself or a surrogate pair; I-JSON, RFC 7493)",
            )


def _cap(name: str, value: int | None, cap: int) -> int:
    if value is None:
        return cap
    if value > cap:
        raise ApiError(400, "limit_exceeded", f"{name} {value} is above this tenant's cap of {cap}")
    return value


def _knowledge_bases(requested: list[str] | None, settings: TenantSettings) -> tuple[str, ...]:
    aliases = [retriever.alias for retriever in settings.retrievers]
    if requested is None:
        return tuple(aliases)
    if len(set(requested)) != len(requested):
        raise ApiError(400, "invalid_request", "field 'knowledgeBases': aliases must not repeat")
    outside = [alias for alias in requested if alias not in aliases]
    if outside:
        raise ApiError(
            403,
            "knowledge_base_not_allowed",
            f"knowledge base '{outside[0]}' is not one of this tenant's: {', '.join(aliases)}",
        )
    return tuple(alias for alias in aliases if alias in requested)


def _mode(value: str, allowed: Collection[str]) -> Mode:
    if value not in MODES or value not in allowed:
        choices = ", ".join(sorted(mode for mode in MODES if mode in allowed))
        raise ApiError(400, "invalid_request", f"field 'mode': '{value}' is not one of: {choices}")
    return value


def parse_query(body: bytes, settings: TenantSettings, modes: Collection[str] = MODES) -> Query:
    """Validates a JSON body against the contract and the tenant; raises ApiError (4xx) otherwise.

    `mode` must be one of contract.enums.MODES (and of `modes`, for a door that offers fewer)."""
    data = _load_json(body)
    try:
        parsed = validate_body(data)
    except BodyError as error:
        raise ApiError(400, "invalid_request", _field_message(error)) from None
    if (parsed.question is None) == (parsed.messages is None):
        raise ApiError(400, "invalid_request", "send exactly one of 'question' or 'messages'")
    # "" is a wrong mode, not none
    mode = _mode(settings.routing.default_mode if parsed.mode is None else parsed.mode, modes)
    if parsed.nextToken is not None and mode != "agentic":
        raise ApiError(400, "invalid_request", "field 'nextToken': pages are only fetched with mode 'agentic'")
    _check_session(parsed, mode)
    try:
        query_filter = None if parsed.filter is None else validate_filter(parsed.filter)
    except FilterError as error:
        raise ApiError(400, "invalid_request", str(error)) from None
    messages = (
        (("user", parsed.question),)
        if parsed.question is not None
        else tuple((message.role, message.content) for message in parsed.messages or ())
    )
    return Query(
        messages=messages,
        knowledge_bases=_knowledge_bases(parsed.knowledgeBases, settings),
        generate_response=(settings.generate_response if parsed.generateResponse is None else parsed.generateResponse),
        max_agent_iteration=_cap("maxAgentIteration", parsed.maxAgentIteration, settings.max_agent_iteration),
        max_results=_cap("maxResults", parsed.maxResults, settings.max_results),
        filter=query_filter,
        mode=mode,
        user_id=parsed.userId,
        cache_bypass=parsed.cache == "bypass",
        next_token=parsed.nextToken,
        session_id=parsed.sessionId,
        persistence=parsed.persistence,
    )


def _check_session(parsed: Body, mode: str) -> None:
    """A session carries its own history: AgenticRetrieveStream takes history "through the messages
    parameter or through short-term memory, but not both" (botocore model)."""
    if parsed.sessionId is None:
        if parsed.persistence is not None:
            raise ApiError(400, "invalid_request", "field 'persistence' applies only with a 'sessionId'")
        return
    if mode != "agentic":
        raise ApiError(400, "invalid_request", f"field 'sessionId': conversations use mode 'agentic', not '{mode}'")
    if parsed.messages is not None and len(parsed.messages) > 1:
        raise ApiError(
            400,
            "invalid_request",
            "field 'sessionId': the session holds the history; send 'question' (or one user message), not 'messages'",
        )
    if parsed.nextToken is not None:
        raise ApiError(
            400, "invalid_request", "field 'nextToken': fetch later pages without 'sessionId' (a page is not a turn)"
        )
