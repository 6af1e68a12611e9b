"""One MCP tool call on a tenant's AgentCore Gateway (authorizer AWS_IAM), SigV4-signed like `akb ask`.

The gateway speaks MCP over Streamable HTTP: JSON-RPC requests by POST, each answered with JSON or a
short `text/event-stream` whose `data:` lines carry the JSON-RPC response. Requests are signed by
client/sigv4.py for the `bedrock-agentcore` service (docs/agents.md); a session id the gateway hands
out on `initialize` (header Mcp-Session-Id) is sent back on the later requests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from botocore.credentials import Credentials, ReadOnlyCredentials

from client import sigv4
from lambdas.gateway_interceptor.gateway_settings import AGENTIC

SERVICE = "bedrock-agentcore"
PROTOCOL_VERSION = "2025-06-18"  # MCP revision sent on initialize
SESSION_HEADER = "Mcp-Session-Id"
# AgentCore names a target's tools `<target>___<tool>` (docs/facts-and-decisions.md, MCP gateway).
TOOL_SUFFIX = f"___{AGENTIC}"
ACCEPT = "application/json, text/event-stream"


class GatewayCallFailed(Exception):
    """The gateway refused or broke the call; `code` is the HTTP status or the JSON-RPC error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


@dataclass
class GatewayCaller:
    url: str
    region: str
    credentials: Credentials | ReadOnlyCredentials | None = None
    sign: bool = True
    timeout: float = 120.0
    session_id: str | None = None
    _next_id: int = field(default=1, repr=False)

    def ask(self, question: str) -> dict[str, Any]:
        """`initialize`, `tools/list`, then `tools/call` of the gateway's AgenticRetrieveStream tool (whatever
        its target is named) with the question; the tool's result (`content`, `isError`) or GatewayCallFailed."""
        with httpx.Client(timeout=self.timeout) as http:
            self._request(
                http,
                "initialize",
                {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "akb-verify", "version": "1"},
                },
            )
            tools = self._request(http, "tools/list", {}).get("tools") or []
            names = [str(t.get("name")) for t in tools if str(t.get("name", "")).endswith(TOOL_SUFFIX)]
            if not names:
                raise GatewayCallFailed("no_tool", f"the gateway lists no *{TOOL_SUFFIX} tool")
            arguments = {"messages": [{"role": "user", "content": {"text": question}}]}
            return self._request(http, "tools/call", {"name": names[0], "arguments": arguments})

    def _request(self, http: httpx.Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = self._post(http, {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params})
        self._next_id += 1
        message = _json_rpc_message(response)
        if "error" in message:
            failure = message["error"] or {}
            raise GatewayCallFailed(str(failure.get("code", "error")), str(failure.get("message", "")))
        return dict(message.get("result") or {})

    def _post(self, http: httpx.Client, payload: dict[str, Any]) -> httpx.Response:
        body = json.dumps(payload).encode()
        try:
            response = http.post(self.url, content=body, headers=self._headers(body))
        except httpx.HTTPError as error:
            raise GatewayCallFailed("unreachable", f"cannot reach the gateway: {type(error).__name__}") from None
        if response.status_code not in (200, 202):
            raise GatewayCallFailed(str(response.status_code), response.text[:300])
        self.session_id = response.headers.get(SESSION_HEADER, self.session_id)
        return response

    def _headers(self, body: bytes) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": ACCEPT}
        if self.session_id:
            headers[SESSION_HEADER] = self.session_id
        if not self.sign:
            return headers
        credentials = self.credentials if self.credentials is not None else sigv4.default_credentials()
        return sigv4.sign("POST", self.url, headers, body, sigv4.frozen(credentials), self.region, SERVICE)


def _json_rpc_message(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC response of a JSON body or of the first `data:` line of an event stream."""
    content_type = response.headers.get("content-type", "").split(";")[0].strip()
    try:
        if content_type == "text/event-stream":
            for line in response.text.splitlines():
                if line.startswith("data:"):
                    return dict(json.loads(line[len("data:") :].strip()))
            raise GatewayCallFailed("empty", "the gateway's event stream carried no message")
        return dict(json.loads(response.text or "{}"))
    except (ValueError, TypeError):
        raise GatewayCallFailed(
            "bad_response", f"the gateway answered with unreadable {content_type or 'data'}"
        ) from None
