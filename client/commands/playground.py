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
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

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
@click.pass_context
def command(
    ctx: click.Context,
    use_local: bool,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    url: str | None,
    region: str | None,
    port: int,
    no_browser: bool,
    delay_ms: float,
) -> None:
    """Serve a web page on 127.0.0.1 to ask a tenant's endpoint, watch the planner and compare modes."""
    from client.playground.local_launch import LocalLaunchError
    from client.playground.web_server import bind_loopback

    if sum((use_local, url is not None)) > 1 or not (use_local or url or tenant):
        raise click.UsageError("choose the endpoint with one of --local, --env/--tenant or --url")
    try:
        sock = bind_loopback(port)
    except OSError as error:
        click.echo(f"akb playground: cannot listen on 127.0.0.1:{port}: {error.strerror}", err=True)
        ctx.exit(EXIT_CONFIG)
    try:
        with _endpoint(ctx, use_local, tenant, env_name, config_dir, url, region, delay_ms) as target:
            _serve(target, sock, not no_browser)
    except LocalLaunchError as error:
        click.echo(f"akb playground: {error}", err=True)
        ctx.exit(EXIT_CONFIG)
    finally:
        sock.close()


@contextlib.contextmanager
def _endpoint(
    ctx: click.Context,
    use_local: bool,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    url: str | None,
    region: str | None,
    delay_ms: float,
) -> Iterator[Target]:
    """The Target; for --local, with `akb local` running until the playground stops."""
    from client.playground.endpoint_target import Target, TenantView, tenant_view
    from client.playground.local_launch import running_akb_local
    from client.sigv4 import is_local

    view = None
    if use_local or tenant:
        project = load_or_exit(config_dir, env_name)
        tenant = tenant or next(iter(project.tenants))
        if tenant not in project.tenants:
            raise click.UsageError(
                f"tenant '{tenant}' is not in environment '{env_name}' ({', '.join(project.tenants)})"
            )
        view = tenant_view(project, tenant)
    if use_local and view is not None:
        click.echo(f"starting akb local for tenant {tenant} ({env_name}) ...")
        from local.emulator.corpus import DEFAULT_CORPUS  # the corpus akb local serves

        with running_akb_local(view.tenant or "", env_name, config_dir, delay_ms) as local_url:
            yield Target(local_url, None, False, "akb local (started by the playground)", view, DEFAULT_CORPUS)
        return
    if url is None:
        url, region = _deployed_url(ctx, config_dir, env_name, tenant or "", region)
        source = f"deployed: SSM /akb/{env_name}/{tenant}/endpoint/url"
    else:
        url, region = _checked_url(url, region), region
        source = "--url"
    yield Target(url, region, not is_local(url), source, view or TenantView())


def _checked_url(url: str, region: str | None) -> str:
    """`akb ask --url`'s rules: http(s), and a region to sign for unless the URL names one."""
    from client.sigv4 import is_local, region_from_url

    if not url.startswith(("http://", "https://")):
        raise click.UsageError(f"--url must start with http:// or https://, got '{url}'")
    if not (region or is_local(url) or region_from_url(url)):
        raise click.UsageError(f"cannot tell the region to sign for from {url}: pass --region")
    return url


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
