"""`akb mcp` started the way an MCP host starts it: from the host's own folder, not the repository's, with
the `mcpServers` entry docs/agents.md shows (AKB_CONFIG names the config)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]


def documented_server() -> dict[str, Any]:
    """The `mcpServers` example of docs/agents.md, with its placeholders for this checkout."""
    text = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\s*\"mcpServers\".*?)```", text, re.S)
    assert block, "docs/agents.md has no mcpServers example"
    [server] = json.loads(block.group(1).replace("/path/to/repo", str(REPO)))["mcpServers"].values()
    return server


def test_the_documented_entry_names_the_config_so_any_folder_works():
    assert documented_server()["env"]["AKB_CONFIG"] == f"{REPO}/config"


def test_akb_mcp_from_another_folder_lists_the_tenants_tools(tmp_path):
    server = documented_server()
    # The documented command, pointed at `akb local` instead of a deployed tenant (no AWS account here).
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "client", "mcp", "--local"],
        env={**server["env"], "PYTHONPATH": str(REPO), "AKB_LOCAL_URL": "http://127.0.0.1:9"},
        cwd=str(tmp_path),
    )

    async def run() -> Any:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.list_tools()

    tools = anyio.run(run)
    ask = next(tool for tool in tools.tools if tool.name == "ask")
    assert "- docs:" in (ask.description or "") and "- tickets:" in (ask.description or "")


def test_without_akb_config_another_folder_gets_one_line_saying_how(tmp_path):
    child = subprocess.run(
        [sys.executable, "-m", "client", "mcp", "--local"],
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert child.returncode == 1 and child.stdout == ""
    assert child.stderr.startswith("akb mcp: no config directory found: looked for config/environments/ in ")
    assert "set AKB_CONFIG" in child.stderr and "Traceback" not in child.stderr


def test_a_request_the_endpoint_would_refuse_is_an_error_result_with_its_sentence(tmp_path):
    """The body is checked by the contract before it is sent (nothing listens at the URL: never reached)."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "client", "mcp", "--local"],
        env={**documented_server()["env"], "PYTHONPATH": str(REPO), "AKB_LOCAL_URL": "http://127.0.0.1:9"},
        cwd=str(tmp_path),
    )

    async def run() -> Any:
        async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("ask", {"question": "\u200b \u200b"})  # zero-width spaces only

    result = anyio.run(run)
    assert result.is_error
    assert result.content[0].text.startswith(
        "The endpoint would refuse the request (invalid_request): field 'question': must not be blank"
    )
