"""The gateway's interceptor contract (version 1.0), read and written in one place.

Input: `{interceptorInputVersion: "1.0", mcp: {rawGatewayRequest: {body}, gatewayRequest: {path,
httpMethod, headers (only with passRequestHeaders), body: <JSON-RPC request>}}}`. Output: either
`{interceptorOutputVersion: "1.0", mcp: {transformedGatewayRequest: {body}}}` (the gateway calls the
target with that body) or `{..., mcp: {transformedGatewayResponse: {statusCode, body}}}` (the gateway
answers at once, without calling the target). AgentCore developer guide, gateway-interceptors-types
(docs/facts-and-decisions.md, MCP gateway).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

VERSION = "1.0"
TOOLS_CALL = "tools/call"
# The client-to-server methods this gateway serves, exactly as spelled (JSON-RPC method names are
# case-sensitive: `Tools/Call` is another method, refused rather than normalised): the MCP handshake
# (`initialize`, `notifications/initialized`; `server/discover` for the stateless 2026-07-28
# revision), `ping`, `notifications/cancelled`, and the tool operations (AgentCore developer guide,
# gateway-using: ledger, MCP gateway). Prompts and resources are left out: the tenant's targets
# offer none, so `prompts/get` or `resources/read` could only be probes.
KNOWN_METHODS = frozenset(
    {
        "initialize",
        "notifications/initialized",
        "server/discover",
        "ping",
        "notifications/cancelled",
        "tools/list",
        TOOLS_CALL,
    }
)
# Request headers the interceptor reads a credential from (CUSTOM_JWT: the verified bearer token).
CREDENTIAL_HEADERS = ("authorization",)
# JSON-RPC 2.0 error codes: -32601 "Method not found" and -32602 "Invalid params" are the spec's;
# -32001/-32003 are in the range it reserves for implementation-defined server errors
# (unauthenticated, forbidden).
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNAUTHENTICATED = -32001
FORBIDDEN = -32003


class PayloadError(ValueError):
    """The event is not an MCP interceptor event this code understands."""


class DuplicateCredentials(PayloadError):
    """A credential header arrives more than once (names compare case-insensitively) or not as one string."""


@dataclass(frozen=True)
class GatewayRequest:
    body: dict[str, Any]
    headers: Mapping[str, Any]  # as the event carries them: keys keep their spelling, values are not coerced

    @property
    def method(self) -> str | None:
        method = self.body.get("method")
        return method if isinstance(method, str) else None

    @property
    def request_id(self) -> Any:
        return self.body.get("id")

    @property
    def tool_name(self) -> str | None:
        params = self.body.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        return name if isinstance(name, str) else None

    @property
    def arguments(self) -> Any:
        params = self.body.get("params")
        return params.get("arguments", {}) if isinstance(params, dict) else None

    def header(self, name: str) -> str | None:
        """The one value of header `name`; DuplicateCredentials when a credential header is there more
        than once (`Authorization` and `authorization` are one header: HTTP names are case-insensitive)
        or is not a single string. Picking one copy would let an unverified token stand in."""
        wanted = name.lower()
        values = [value for key, value in self.headers.items() if key.lower() == wanted]
        copies = [item for value in values for item in (value if isinstance(value, list) else [value])]
        if len(copies) > 1:
            raise DuplicateCredentials(f"the request carries the {name} header {len(copies)} times; send it once")
        if copies and not isinstance(copies[0], str):
            raise DuplicateCredentials(f"the request's {name} header is not one string value")
        return copies[0] if copies else None

    def check_credential_headers(self) -> None:
        """DuplicateCredentials unless each credential header appears at most once, as one string."""
        for name in CREDENTIAL_HEADERS:
            self.header(name)


def parse_event(event: Any) -> GatewayRequest:
    if not isinstance(event, dict) or event.get("interceptorInputVersion") != VERSION:
        raise PayloadError(f"not an interceptor event of version {VERSION}")
    request = (event.get("mcp") or {}).get("gatewayRequest") if isinstance(event.get("mcp"), dict) else None
    if not isinstance(request, dict) or not isinstance(request.get("body"), dict):
        raise PayloadError("the event has no mcp.gatewayRequest.body")
    raw_headers = request.get("headers")
    headers: dict[Any, Any] = raw_headers if isinstance(raw_headers, dict) else {}
    return GatewayRequest(request["body"], {str(key): value for key, value in headers.items()})


def forward(body: Mapping[str, Any]) -> dict[str, Any]:
    """Let the request through (possibly rewritten) to the target."""
    return {"interceptorOutputVersion": VERSION, "mcp": {"transformedGatewayRequest": {"body": dict(body)}}}


def refuse(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """Answer at once with a JSON-RPC error; the target is not called."""
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return {
        "interceptorOutputVersion": VERSION,
        "mcp": {"transformedGatewayResponse": {"statusCode": 200, "body": body}},
    }


def bearer_claims(authorization: str | None) -> dict[str, Any]:
    """The claims of `Authorization: Bearer <JWT>`, read without checking the signature: the gateway's
    CUSTOM_JWT authorizer has already verified the token (issuer, signature, expiry, allowed clients)
    before any interceptor runs. Raises PayloadError when there is no readable token."""
    scheme, _, token = (authorization or "").partition(" ")
    parts = token.strip().split(".")
    if scheme.lower() != "bearer" or len(parts) != 3:
        raise PayloadError("the request carries no bearer token")
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        claims = json.loads(base64.urlsafe_b64decode(padded))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise PayloadError("the bearer token's claims are not readable JSON") from None
    if not isinstance(claims, dict):
        raise PayloadError("the bearer token's claims are not a JSON object")
    return claims
