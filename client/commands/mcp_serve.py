"""`akb mcp`: serve a tenant's endpoint to agents as MCP tools (`ask`, `search`).

stdio by default (desktop and IDE agents start it as a subprocess; stdout then belongs to the
protocol, so this command never prints there), or Streamable HTTP with `--http` on 127.0.0.1.
The endpoint is chosen like `akb ask`: `--env/--tenant` (URL from SSM), `--url`, or `--local`.
Tool descriptions come from the tenant file (`--tenant`; with `--local`, the environment's first
tenant, as `akb local` runs it). docs/agents.md shows a client configuration.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from client.options import config_option, endpoint_url, env_option, given, load_or_exit, tenant_option

if TYPE_CHECKING:
    from client.mcp_tools import ToolCatalogue

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command()
@click.option("--url", help="The endpoint's URL (a function URL is signed with your AWS credentials).")
@tenant_option("The tenant: its URL from SSM (with --env), and its knowledge bases for the tool descriptions.")
@env_option
@config_option
@click.option("--local", "use_local", is_flag=True, help="The endpoint `akb local` runs ($AKB_LOCAL_URL).")
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="--http: address to listen on.")
@click.option(
    "--port",
    default=8765,
    show_default=True,
    envvar="AKB_MCP_PORT",
    show_envvar=True,
    type=click.IntRange(1, 65535),
    help="--http: port.",
)
@click.option("--allow-remote", is_flag=True, help="--http: allow a non-loopback --host (no auth of its own!).")
@click.pass_context
def command(
    ctx: click.Context,
    url: str | None,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    use_local: bool,
    use_http: bool,
    host: str,
    port: int,
    allow_remote: bool,
) -> None:
    """Run an MCP server whose tools ask the tenant's endpoint (stdio, or --http on 127.0.0.1)."""
    if tenant and not given(ctx, "tenant") and url:
        tenant = None  # $AKB_TENANT names a deployed endpoint only when no --url is given
    if sum(bool(choice) for choice in (url, use_local)) > 1 or not (url or use_local or tenant):
        raise click.UsageError("choose the endpoint with exactly one of --url, --env/--tenant or --local")
    if host not in LOOPBACK and not allow_remote:
        raise click.UsageError(
            f"--host {host} would expose your AWS credentials' access to anyone who can reach it; "
            "the MCP server has no authentication of its own. Keep 127.0.0.1, or pass --allow-remote"
        )
    target, sign_region, catalogue = _resolve(url, tenant, env_name, config_dir, use_local)

    from client.endpoint_client import Client
    from client.mcp_tools import build_server

    client = Client(target, region=sign_region)
    server = build_server(client, catalogue)
    with client:
        if use_http:
            click.echo(f"MCP (Streamable HTTP) on http://{host}:{port}/mcp -> {target}", err=True)
            server.run("streamable-http", host=host, port=port)
        else:
            server.run("stdio")


def _resolve(
    url: str | None, tenant: str | None, env_name: str, config_dir: Path, use_local: bool
) -> tuple[str, str | None, ToolCatalogue]:
    """(endpoint URL, signing region, tool catalogue); a config or lookup problem raises (exit 1)."""
    from client.endpoint_url import UrlResolutionError, local_url, resolve_url
    from client.mcp_tools import ToolCatalogue

    catalogue = ToolCatalogue()
    if tenant or use_local:
        project = load_or_exit(config_dir, env_name)
        name = tenant or next(iter(project.tenants))
        if name not in project.tenants:
            known = ", ".join(project.tenants) or "none"
            raise UrlResolutionError(f"tenant '{name}' is not in environment '{env_name}' (tenants: {known})")
        catalogue = ToolCatalogue.from_tenant(name, project.tenants[name])
    if use_local:
        return local_url(), None, catalogue
    if url:
        return (*endpoint_url(url), catalogue)
    resolved, env_region = resolve_url(config_dir, env_name, tenant or "")
    return resolved, env_region, catalogue
