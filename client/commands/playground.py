"""`akb playground`: a web page on 127.0.0.1 to try a tenant's endpoint (docs/playground.md).

    akb playground --local                      # starts `akb local` for the env's first tenant, opens the page
    akb playground --env prod --tenant acme     # the deployed endpoint (URL from SSM), signed with your credentials
    akb playground --url http://127.0.0.1:8080 --tenant acme   # an endpoint already running

The server asks the endpoint through the same client as `akb ask` (SigV4 for deployed endpoints);
credentials stay in this process. Exit codes: 0 after Ctrl-C; 1 config, URL lookup or start-up
problem; 2 usage error.
"""

from __future__ import annotations

import contextlib
import signal
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from client.options import config_option, env_option, load_or_exit

if TYPE_CHECKING:
    from client.playground.endpoint_target import Target

EXIT_CONFIG = 1


@click.command()
@click.option("--local", "use_local", is_flag=True, help="Start `akb local` for --tenant (default: the env's first).")
@click.option("--tenant", help="The tenant: deployed (with --env), run locally (--local), or described (--url).")
@env_option
@config_option
@click.option("--url", help="An endpoint already running: `akb local` (http://127.0.0.1:PORT) or a deployed URL.")
@click.option("--region", help="Region to sign for, when the URL does not name one (a custom domain).")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="The page's port on 127.0.0.1 [default: free]")
@click.option("--no-browser", is_flag=True, help="Print the page's address; do not open a browser.")
@click.option(
    "--delay-ms",
    default=100.0,
    show_default=True,
    type=click.FloatRange(0, 60_000),
    help="With --local: the emulator's pause between events (makes the streaming visible).",
)
@click.option(
    "--corpus",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="With --local: akb local's --corpus (one folder per knowledge-base alias). Default: local/corpus/.",
)
@click.pass_context
def command(ctx: click.Context, /, port: int, no_browser: bool, **choice: Any) -> None:
    """Serve a web page on 127.0.0.1 to ask a tenant's endpoint, watch the planner and compare modes."""
    from client.playground.local_launch import LocalLaunchError
    from client.playground.web_server import bind_loopback

    chosen = EndpointChoice(**choice)
    if (chosen.use_local and chosen.url is not None) or not (chosen.use_local or chosen.url or chosen.tenant):
        raise click.UsageError("choose the endpoint with one of --local, --env/--tenant or --url")
    try:
        sock = bind_loopback(port)
    except OSError as error:
        click.echo(f"akb playground: cannot listen on 127.0.0.1:{port}: {error.strerror}", err=True)
        ctx.exit(EXIT_CONFIG)
    # uvicorn re-raises the signal that stopped it; as KeyboardInterrupt (not SIGTERM's default: die at
    # once) it unwinds through `_endpoint`, which stops the `akb local` that --local started.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with _endpoint(ctx, chosen) as target:
            _serve(target, sock, not no_browser)
    except KeyboardInterrupt:
        click.echo("stopped")
    except LocalLaunchError as error:
        click.echo(f"akb playground: {error}", err=True)
        ctx.exit(EXIT_CONFIG)
    finally:
        signal.signal(signal.SIGTERM, previous)
        sock.close()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@dataclass(frozen=True)
class EndpointChoice:
    """The options that say which endpoint the playground talks to (click passes them by name)."""

    use_local: bool
    tenant: str | None
    env_name: str
    config_dir: Path
    url: str | None
    region: str | None
    delay_ms: float
    corpus: Path | None


@contextlib.contextmanager
def _endpoint(ctx: click.Context, chosen: EndpointChoice) -> Iterator[Target]:
    """The Target; for --local, with `akb local` running until the playground stops."""
    from client.commands.mcp_serve import _checked_url  # akb ask's --url rules, as `akb mcp` applies them
    from client.playground.endpoint_target import Target, TenantView, tenant_view
    from client.playground.local_launch import running_akb_local
    from client.sigv4 import is_local

    view, tenant, env_name = None, chosen.tenant, chosen.env_name
    if chosen.use_local or tenant:
        project = load_or_exit(chosen.config_dir, env_name)
        tenant = tenant or next(iter(project.tenants))
        if tenant not in project.tenants:
            known = ", ".join(project.tenants)
            raise click.UsageError(f"tenant '{tenant}' is not in environment '{env_name}' ({known})")
        view = tenant_view(project, tenant)
    if chosen.use_local and view is not None:
        from local.emulator.corpus import DEFAULT_CORPUS  # the corpus akb local serves by default

        click.echo(f"starting akb local for tenant {tenant} ({env_name}) ...")
        corpus = chosen.corpus or DEFAULT_CORPUS
        with running_akb_local(view.tenant or "", env_name, chosen.config_dir, chosen.delay_ms, corpus) as local_url:
            yield Target(local_url, None, False, "akb local (started by the playground)", view, corpus)
        return
    if chosen.corpus is not None:
        raise click.UsageError("--corpus is akb local's: use it with --local")
    if chosen.url is None:
        url, region = _deployed_url(ctx, chosen.config_dir, env_name, tenant or "", chosen.region)
        source = f"deployed: SSM /akb/{env_name}/{tenant}/endpoint/url"
    else:
        url, region, source = _checked_url(chosen.url, chosen.region), chosen.region, "--url"
    yield Target(url, region, not is_local(url), source, view or TenantView())


def _deployed_url(
    ctx: click.Context, config_dir: Path, env_name: str, tenant: str, region: str | None
) -> tuple[str, str | None]:
    from client.endpoint_url import UrlResolutionError, resolve_url
    from schema import ConfigError

    try:
        resolved, env_region = resolve_url(config_dir, env_name, tenant)
    except (ConfigError, UrlResolutionError) as error:
        click.echo(f"akb playground: {error}", err=True)
        ctx.exit(EXIT_CONFIG)
    return resolved, region or env_region


def _serve(target: Target, sock: socket.socket, open_browser: bool) -> None:
    from client.endpoint_client import Client
    from client.playground.web_server import serve

    with Client(target.url, region=target.region) as client:

        def announce(page: str) -> None:
            who = f"tenant {target.tenant.tenant} ({target.tenant.environment})" if target.tenant.tenant else "--url"
            click.echo(f"Endpoint     {target.url}  {who}, {'signed (SigV4)' if target.signed else 'unsigned'}")
            click.echo(f"Playground   {page}")
            click.echo("Ctrl-C stops it.", nl=True)

        serve(target, client, sock, open_browser=open_browser, announce=announce)
