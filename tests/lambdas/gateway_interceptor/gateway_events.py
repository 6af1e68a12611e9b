"""Interceptor events of the documented shape (contract 1.0) and readers of the interceptor's output."""

from __future__ import annotations

import base64
import json
from typing import Any

from lambdas.gateway_interceptor import interceptor
from lambdas.gateway_interceptor.gateway_settings import GatewaySettings

AGENTIC_TOOL = "retrieval___AgenticRetrieveStream"
RETRIEVE_TOOL = "docs___Retrieve"
PORTAL = "portal-client-id"
SETTINGS = GatewaySettings(
    tenant="globex",
    environment="dev",
    authorizer="CUSTOM_JWT",
    user_context="trusted",
    tools={AGENTIC_TOOL: "AgenticRetrieveStream", RETRIEVE_TOOL: "Retrieve"},
    max_results=8,
    max_agent_iteration=4,
    trusted_callers=[PORTAL],
)


def token(**claims: Any) -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    return f"Bearer {part({'alg': 'RS256'})}.{part(claims)}.c2lnbmF0dXJl"


# A verified client the tenant does not trust to name end users, and a trusted one (the portal).
UNTRUSTED_CALLER = token(sub="mallory", client_id="batch-client")
TRUSTED_CALLER = token(sub="svc", client_id=PORTAL)


def event(
    method: str = "tools/call",
    tool: str = AGENTIC_TOOL,
    arguments: Any = None,
    authorization: str | None = None,
    headers: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
):
    """The documented REQUEST payload: rawGatewayRequest + gatewayRequest {path, httpMethod, headers, body}.

    `headers` are added as given (two spellings of one name stay two keys); `params` replaces the
    tools/call params built from `tool` and `arguments`."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        body["params"] = params
    elif method.strip().lower() == "tools/call":
        body["params"] = {"name": tool, "arguments": arguments if arguments is not None else question()}
    all_headers = {"Accept": "application/json", "Mcp-Session-Id": "s-1"}
    if authorization:
        all_headers["Authorization"] = authorization
    all_headers.update(headers or {})
    return {
        "interceptorInputVersion": "1.0",
        "mcp": {
            "rawGatewayRequest": {"body": json.dumps(body)},
            "gatewayRequest": {"path": "/mcp", "httpMethod": "POST", "headers": all_headers, "body": body},
        },
    }


def question(**extra: Any) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": {"text": "Who owns the billing service?"}}], **extra}


def run(evt: dict, settings: GatewaySettings = SETTINGS) -> dict[str, Any]:
    output = interceptor.intercept(evt, settings, "req-1")
    assert output["interceptorOutputVersion"] == "1.0"
    return output["mcp"]


def forwarded_arguments(output: dict[str, Any]) -> dict[str, Any]:
    assert "transformedGatewayResponse" not in output, output
    return output["transformedGatewayRequest"]["body"]["params"]["arguments"]


def refusal(output: dict[str, Any]) -> dict[str, Any]:
    assert "transformedGatewayRequest" not in output, output
    response = output["transformedGatewayResponse"]
    assert response["statusCode"] == 200 and response["body"]["id"] == 7 and response["body"]["jsonrpc"] == "2.0"
    return response["body"]["error"]
