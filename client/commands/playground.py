"""`akb playground`: a web page on 127.0.0.1 to try a tenant's endpoint (docs/playground.md).

    akb playground --local                      # starts `akb local` for the env's first tenant, opens the page
    akb playground --env prod --tenant acme     # the deployed endpoint (URL from SSM), signed with your credentials
    akb playground --url http://127.0.0.1:8080 --tenant acme   # an endpoint already running

The server asks the endpoint through the same client as `akb ask` (SigV4 for deployed endpoints);
credentials stay in this process. Exit codes (client/exit_codes.py): 0 after Ctrl-C; 1 config, URL
lookup, region or start-up problem (a port in use, an unknown tenant); 2 usage error. Failures are
raised for the one error path to print (client/failures.py); `--region` and `--profile` are the
global options.
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

from client.failures import Failure
from client.options import (
    config_option,
    corpus_option,
    delay_option,
    endpoint_url,
    env_option,
    load_or_exit,
    tenant_option,
)

if TYPE_CHECKING:
    from client.playground.endpoint_target import Target


@click.command()
@click.option("--local", "use_local", is_flag=True, help="Start `akb local` for --tenant (default: the env's first).")
@tenant_option("The tenant: deployed (with --env), run locally (--local), or described (--url).")
@env_option
@config_option
@click.option("--url", help="An endpoint already running: `akb local` (http://127.0.0.1:PORT) or a deployed URL.")
@click.option("--port", default=0, type=click.IntRange(0, 65535), help="The page's port on 127.0.0.1 [default: free]")
@click.option("--no-browser", is_flag=True, help="Print the page's address; do not open a browser.")
@delay_option(100.0, "With --local: ")
@corpus_option("With --local: ")
def command(port: int, no_browser: bool, **choice: Any) -> None:
    """Serve a web page on 127.0.0.1 to ask a tenant's endpoint, watch the planner and compare modes."""
    from client.playground.local_launch import LocalLaunchError
    from client.playground.web_server import bind_loopback

    chosen = EndpointChoice(**choice)
    if (chosen.use_local and chosen.url is not None) or not (chosen.use_local or chosen.url or chosen.tenant):
        raise click.UsageError("choose the endpoint with one of --local, --env/--tenant or --url")
    try:
        sock = bind_loopback(port)
    except OSError as error:
        raise Failure(
            f"cannot listen on 127.0.0.1:{port}: {error.strerror}: pick another --port (0: any free one)"
        ) from None
    # uvicorn re-raises the signal that stopped it; as KeyboardInterrupt (not SIGTERM's default: die at
    # once) it unwinds through `_endpoint`, which stops the `akb local` that --local started.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        with _endpoint(chosen) as target:
            _serve(target, sock, not no_browser)
    except KeyboardInterrupt:
        click.echo("stopped")
    except LocalLaunchError as error:
        raise Failure(str(error)) from None
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
    delay_ms: float
    corpus_dir: Path | None


@contextlib.contextmanager
def _endpoint(chosen: EndpointChoice) -> Iterator[Target]:
    """The Target; for --local, with `akb local` running until the playground stops."""
    from client.playground.endpoint_target import Target, TenantView, tenant_view
    from client.playground.local_launch import running_akb_local
    from client.sigv4 import is_local

    view, tenant, env_name = None, chosen.tenant, chosen.env_name
    if chosen.use_local or tenant:
        project = load_or_exit(chosen.config_dir, env_name)
        tenant = tenant or next(iter(project.tenants))
        if tenant not in project.tenants:
            known = ", ".join(project.tenants)
            raise Failure(f"tenant '{tenant}' is not in environment '{env_name}' ({known})")
        view = tenant_view(project, tenant)
    if chosen.use_local and view is not None:
        from local.emulator.corpus import DEFAULT_CORPUS  # the corpus akb local serves by default

        click.echo(f"starting akb local for tenant {tenant} ({env_name}) ...")
        corpus = chosen.corpus_dir or DEFAULT_CORPUS
        with running_akb_local(view.tenant or "", env_name, chosen.config_dir, chosen.delay_ms, corpus) as local_url:
            yield Target(local_url, None, False, "akb local (started by the playground)", view, corpus)
        return
    if chosen.corpus_dir is not None:
        raise click.UsageError("--corpus is akb local's: use it with --local")
    region: str | None
    if chosen.url is None:
        from client.endpoint_url import resolve_url

        url, region = resolve_url(chosen.config_dir, env_name, tenant or "")
        source = f"deployed: SSM /akb/{env_name}/{tenant}/endpoint/url"
    else:
        (url, region), source = endpoint_url(chosen.url), "--url"  # akb ask's --url and region rules
    yield Target(url, region, not is_local(url), source, view or TenantView())


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
