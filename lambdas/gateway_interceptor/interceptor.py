"""Lambda entry of the tenant MCP gateway's REQUEST interceptor (`handler`).

Every request is screened first: a method the interceptor does not know, spelled exactly
(`mcp_payloads.KNOWN_METHODS`; `Tools/Call` is not `tools/call`), is refused; so is a credential
header sent more than once or a `userContext` outside `params.arguments` (tool_rules). Every
`tools/call` then goes through `tool_rules.check_call` before the gateway calls the target: the
caller comes from what the gateway verified (the JWT its CUSTOM_JWT authorizer accepted; an
AWS_IAM gateway names no principal to interceptors), `userContext` is set from it with the
endpoint's identity code, and anything a caller may not choose is refused with a JSON-RPC error
that says what to change. The other known methods (`initialize`, `tools/list`, ...) pass
unchanged. Refusals and decisions are logged with the endpoint's field names
(contract/log_fields.py); the Authorization header is never logged. An unexpected failure refuses
the call (fail closed).
"""

from __future__ import annotations

import uuid
from typing import Any

from contract import log_fields as lf
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.identity import Caller, caller_from_jwt_claims
from lambdas.endpoint.logs import RequestLog
from lambdas.gateway_interceptor import mcp_payloads as mcp
from lambdas.gateway_interceptor.gateway_settings import GatewaySettings
from lambdas.gateway_interceptor.tool_rules import (
    UNIDENTIFIED_IAM_CALLER,
    USER_CONTEXT_PATH,
    InvalidArguments,
    check_call,
    misplaced_user_context,
)

_settings: GatewaySettings | None = None


class Refusal(Exception):
    """A request refused before its method is handled: JSON-RPC code, error code, message."""

    def __init__(self, code: int, error_code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.error_code, self.message = code, error_code, message


def settings() -> GatewaySettings:
    global _settings
    if _settings is None:
        _settings = GatewaySettings.from_environment()
    return _settings


def handler(event: Any, context: Any) -> dict[str, Any]:
    return intercept(event, settings(), getattr(context, "aws_request_id", None) or str(uuid.uuid4()))


def intercept(event: Any, config: GatewaySettings, correlation_id: str) -> dict[str, Any]:
    """The interceptor's output for one event (pure apart from logging)."""
    log = RequestLog(correlation_id, config.tenant)
    try:
        request = mcp.parse_event(event)
    except mcp.PayloadError as error:
        log.warning("refused", **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: "bad_event", "reason": str(error)})
        return mcp.refuse(None, mcp.INVALID_PARAMS, f"bad_event: {error}")
    try:
        screen(request)
    except Refusal as refusal:
        return _refused(log, request, refusal.code, refusal.error_code, refusal.message)
    if request.method != mcp.TOOLS_CALL:
        return mcp.forward(request.body)
    log.bind(**{lf.TOOL: request.tool_name})
    try:
        caller = identify(request, config)
        log.bind(**{lf.CALLER: caller.principal or None})
        decision = check_call(config, request.tool_name, request.arguments, caller)
    except InvalidArguments as error:
        return _refused(log, request, mcp.INVALID_PARAMS, "invalid_arguments", str(error))
    except ApiError as error:
        code = mcp.UNAUTHENTICATED if error.status == 401 else mcp.FORBIDDEN
        return _refused(log, request, code, error.code, error.message)
    except Exception:  # fail closed: an interceptor bug must not let a call through unchecked
        log.exception("interceptor failure", None, **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: "internal"})
        return mcp.refuse(
            request.request_id, mcp.FORBIDDEN, f"internal: the request was refused (request {correlation_id})"
        )
    log.info("allowed", **{lf.EVENT: lf.EVENT_REQUEST, "user_context": "set" if decision.user_id else "none"})
    body = dict(request.body)
    body["params"] = {**body["params"], "arguments": decision.arguments}
    return mcp.forward(body)


def screen(request: mcp.GatewayRequest) -> None:
    """Refusal for what no method may carry: an unknown method, repeated credentials, a misplaced userContext."""
    method = request.method
    if method not in mcp.KNOWN_METHODS:
        shown = ascii(method)[:80] if method is not None else "no method"
        raise Refusal(
            mcp.METHOD_NOT_FOUND,
            "unknown_method",
            f"{shown} is not a method this gateway serves; method names are case-sensitive: "
            f"{', '.join(sorted(mcp.KNOWN_METHODS))}",
        )
    try:
        request.check_credential_headers()
        where = misplaced_user_context(request.body, tool_call=method == mcp.TOOLS_CALL)
    except mcp.DuplicateCredentials as error:
        raise Refusal(mcp.UNAUTHENTICATED, "duplicate_credentials", str(error)) from None
    except InvalidArguments as error:
        raise Refusal(mcp.INVALID_PARAMS, "invalid_arguments", str(error)) from None
    if where is not None:
        raise Refusal(
            mcp.INVALID_PARAMS,
            "user_id_not_allowed",
            f"userContext at {where} is not accepted: the interceptor sets the end user, and only a trusted "
            f"caller may name one, in {USER_CONTEXT_PATH} of a tools/call",
        )


def identify(request: mcp.GatewayRequest, config: GatewaySettings) -> Caller:
    """The caller the gateway verified, or ApiError 401."""
    if config.authorizer != "CUSTOM_JWT":
        return UNIDENTIFIED_IAM_CALLER
    try:
        claims = mcp.bearer_claims(request.header("authorization"))
    except mcp.PayloadError as error:
        raise ApiError(
            401, "unauthenticated", f"{error}: the gateway passes the caller's token to its interceptor"
        ) from None
    return caller_from_jwt_claims(claims, user_claim=config.user_claim, client_claim=config.client_claim)


def _refused(log: RequestLog, request: mcp.GatewayRequest, code: int, error_code: str, message: str) -> dict[str, Any]:
    log.warning("refused", **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: error_code, "reason": message})
    return mcp.refuse(request.request_id, code, f"{error_code}: {message}")
