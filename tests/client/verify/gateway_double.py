"""A stand-in for the tenant's AgentCore Gateway, which cannot run here: the official MCP SDK's server over
real Streamable HTTP (uvicorn on 127.0.0.1, a free port), with one tool named as the gateway names its
AgenticRetrieveStream tool. It records each request's Authorization header so tests see the signature."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from tests.endpoint_server import serve_in_thread

TOOL = "ask___AgenticRetrieveStream"


@dataclass
class GatewayDouble:
    url: str
    authorizations: list[str] = field(default_factory=list)


@contextmanager
def gateway_double(answer: str | None = "An answer.", error: str | None = None) -> Iterator[GatewayDouble]:
    """Serves the tool until the block ends; the tool answers `answer`, or fails with `error` (an isError result)."""
    server = MCPServer("gateway-double")

    def ask(messages: list[dict]) -> str:
        if error is not None:
            raise ToolError(error)  # the gateway reports a failed target as an isError result
        return f"{answer} ({messages[-1]['content']['text']})"

    server.add_tool(ask, name=TOOL, description="AgenticRetrieveStream over the tenant's knowledge bases")
    app = server.streamable_http_app()
    double = GatewayDouble(url="")

    async def recording(scope, receive, send):  # records Authorization, then serves the MCP app
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            double.authorizations.append(headers.get(b"authorization", b"").decode())
        await app(scope, receive, send)

    uvicorn_server, thread, port = serve_in_thread(recording, "gateway-double", lifespan="on")
    double.url = f"http://127.0.0.1:{port}/mcp"
    try:
        yield double
    finally:
        uvicorn_server.should_exit = True
        thread.join(timeout=10)
