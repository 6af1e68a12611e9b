"""`akb local`: the emulator and the endpoint, configured like a tenant of an environment, on 127.0.0.1.

The endpoint runs as a child process through `lambdas/run.sh` — the same entry Lambda runs —
with the tenant's settings in AKB_TENANT_SETTINGS and boto3 pointed at the emulator. Its ports are
checked before anything is printed (one in use: one line naming it and how to pick another, exit 1);
its log shows one line per request (client/local_request_log.py; `--verbose` for the JSON records).
The endpoint's port defaults to the one in $AKB_LOCAL_URL, where `akb ask --local` and `akb mcp
--local` look, and the emulator's to $AKB_EMULATOR_PORT (0: any free port).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from client.failures import Failure
from client.local_processes import port_in_use, stop, wait_ready
from client.local_quota import account_quota_line, account_rpm_option, local_quota_path, share_line
from client.options import config_option, corpus_option, delay_option, env_option, load_or_exit, tenant_option
from contract.enums import RequestContext
from contract.env_vars import LocalRun
from contract.env_vars import endpoint_environment as contract_environment
from contract.settings import TenantSettings

if TYPE_CHECKING:
    from local.emulator import EmulatorHandle
    from schema.agent_config import Agent
    from schema.loader import Project

REPO = Path(__file__).resolve().parents[2]
RUN_SH = REPO / "lambdas" / "run.sh"


def endpoint_environment(
    settings: TenantSettings,
    port: int,
    emulator_env: dict[str, str],
    caller_arn: str,
    cache_path: Path | None = None,
    front_door: RequestContext = "function_url",
    quota_path: Path | None = None,
) -> dict[str, str]:
    """The child's environment: the endpoint's own variables as the stack builds them, in local mode
    (contract/env_vars.py), plus the emulator, dummy credentials and a region; nothing AWS_ or AKB_
    of this shell leaks in."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AWS_", "AKB_"))}
    env.update(emulator_env)  # AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME + dummy keys
    local = LocalRun(
        caller_arn=caller_arn,
        port=port,
        python=sys.executable,
        cache_path=str(cache_path) if cache_path is not None else None,
        front_door=front_door,
        quota_path=str(quota_path) if quota_path is not None else None,
    )
    env.update(contract_environment(settings, local=local))
    env.update(
        {
            "AWS_REGION": "us-west-2",
            "AWS_DEFAULT_REGION": "us-west-2",
            "AWS_ACCESS_KEY_ID": "x",
            "AWS_SECRET_ACCESS_KEY": "x",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _default_port() -> int:
    from urllib.parse import urlsplit

    from client.endpoint_url import local_url

    return urlsplit(local_url()).port or 8080


@click.command()
@tenant_option("Tenant to run. Default: the environment's first tenant.")
@env_option
@config_option
@corpus_option(note="An alias of the tenant without a folder is served empty.")
@click.option(
    "--port",
    default=_default_port,
    type=click.IntRange(1, 65535),
    help="Endpoint port [default: the port of $AKB_LOCAL_URL, else 8080].",
)
@click.option(
    "--emulator-port",
    default=8081,
    show_default=True,
    envvar="AKB_EMULATOR_PORT",
    show_envvar=True,
    type=click.IntRange(0, 65535),
    help="Emulator port (0: any free port).",
)
@click.option(
    "--caller-arn",
    default=None,
    help="Who requests without an x-amzn-request-context header are (identity rules: docs/endpoint.md). "
    "Default: a caller the tenant vouches for, end user `developer` (a user_id_from_session_name role, else an "
    "IAM user).",
)
@delay_option(100.0)
@click.option(
    "--front-door",
    type=click.Choice(["function_url", "api_gateway"]),
    default="function_url",
    show_default=True,
    help="api_gateway: every request reaches the endpoint with an API Gateway REST request context naming "
    "--caller-arn (the identity path of that front door, end to end; docs/front-door.md).",
)
@click.option(
    "--verbose", "-v", is_flag=True, help="Print the endpoint's JSON log records instead of one line per request."
)
@account_rpm_option
def command(
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    corpus_dir: Path | None,
    port: int,
    emulator_port: int,
    caller_arn: str | None,
    delay_ms: float,
    front_door: RequestContext,
    verbose: bool,
    account_rpm: int | None,
) -> None:
    """Run the emulator and the tenant's endpoint locally (127.0.0.1 only) until Ctrl-C."""
    from client.cache_admin import local_cache_path
    from client.local_settings import default_caller

    _check_ports(port, emulator_port)
    project = load_or_exit(config_dir, env_name)
    tenant_name = tenant or next(iter(project.tenants))
    if tenant_name not in project.tenants:
        raise Failure(
            f"tenant '{tenant_name}' is not deployed in environment '{env_name}' (it deploys: "
            f"{', '.join(project.tenants)}); add it to {config_dir}/environments/{env_name}.yaml `tenants:`"
        )
    emulator, settings = _start_emulator(project, tenant_name, corpus_dir, emulator_port, delay_ms, account_rpm)
    child: subprocess.Popen | None = None
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        caller_arn = caller_arn or default_caller(settings)  # vouched: the printed curl is answered
        url = f"http://127.0.0.1:{port}"
        cache_path = local_cache_path(env_name, tenant_name) if settings.cache is not None else None
        quota_path = local_quota_path(env_name) if settings.quota is not None else None
        child = subprocess.Popen(
            [str(RUN_SH)],
            env=endpoint_environment(settings, port, emulator.env, caller_arn, cache_path, front_door, quota_path),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        _relay_log(child, verbose)
        if not wait_ready(url, child):
            raise Failure(f"the endpoint did not become ready on {url} (is port {port} free? try --port)")
        if front_door == "api_gateway":
            click.echo("Front door        api_gateway (API Gateway REST request context; a client-sent one is refused)")
        with contextlib.ExitStack() as agent_scope:  # the banner's last line means everything is ready
            agent = _register_agent(agent_scope, project.tenants[tenant_name].agent, url, emulator.url, settings)
            banner = Banner(url, emulator.url, delay_ms, tenant_name, env_name, settings, caller_arn, cache_path, agent)
            _banner(replace(banner, quota_path=quota_path, account_rpm=account_rpm))
            while child.poll() is None:
                time.sleep(0.2)
        raise Failure(f"the endpoint exited with status {child.returncode} (its output is above)")
    except KeyboardInterrupt:
        click.echo("\nstopping")
    finally:
        if child is not None:
            stop(child)
        emulator.stop()


def _start_emulator(
    project: Project,
    tenant_name: str,
    corpus_dir: Path | None,
    emulator_port: int,
    delay_ms: float,
    account_rpm: int | None = None,
) -> tuple[EmulatorHandle, TenantSettings]:
    """The emulator over the corpus (every alias of the tenant served, empty if it has no folder),
    with the tenant's guardrail registered; exits with a message naming what to fix."""
    from client.local_guardrail import register_tenant_guardrail
    from client.local_settings import LocalSettingsError, tenant_settings
    from local.emulator import DEFAULT_CORPUS, CorpusError, kb_id_for, start_emulator

    corpus = corpus_dir or DEFAULT_CORPUS
    aliases = [kb.alias for kb in project.tenants[tenant_name].knowledge_bases]
    try:
        emulator = start_emulator(
            port=emulator_port,
            corpus_dir=corpus,
            delay_ms=delay_ms,
            empty_knowledge_bases=aliases,
            account_rpm=account_rpm,
        )
    except (CorpusError, OSError) as error:
        raise Failure(f"cannot start the emulator on 127.0.0.1:{emulator_port}: {error}") from None
    empty = [alias for alias in aliases if not (Path(corpus) / alias).is_dir()]
    for alias in empty:
        click.echo(
            f"knowledge base '{alias}' has no folder {Path(corpus) / alias}: served empty "
            "(add .md/.txt documents there, or pass --corpus DIR with one folder per alias)",
            err=True,
        )
    try:
        settings = tenant_settings(project, tenant_name, kb_id_for, emulator.knowledge_bases)
        guardrail = project.tenants[tenant_name].guardrail
        register_tenant_guardrail(emulator, guardrail, settings.guardrail_id, settings.guardrail_version)
    except (LocalSettingsError, ValueError) as error:
        emulator.stop()
        raise Failure(str(error)) from None
    return emulator, settings


def _check_ports(port: int, emulator_port: int) -> None:
    """Before anything is printed: a port in use is one line naming it and how to pick another."""
    if port_in_use(port):
        raise Failure(
            f"port {port} on 127.0.0.1 is in use (another akb local?): pick another with --port N, and point "
            "akb ask --local / akb mcp --local at it with AKB_LOCAL_URL=http://127.0.0.1:N (or stop what holds it)"
        )
    if emulator_port and port_in_use(emulator_port):
        raise Failure(
            f"port {emulator_port} on 127.0.0.1 is in use (another emulator?): pick another with --emulator-port N, "
            "or --emulator-port 0 for any free port"
        )


def _relay_log(child: subprocess.Popen, verbose: bool) -> None:
    """Prints the endpoint's output as it comes: one line per request, or every record with --verbose."""
    from client.local_request_log import shown

    def relay() -> None:
        for line in child.stdout or ():
            text = shown(line.rstrip("\n"), verbose)
            if text is not None:
                click.echo(text)

    threading.Thread(target=relay, daemon=True, name="endpoint-log").start()


def _register_agent(
    scope: contextlib.ExitStack, agent: Agent | None, url: str, emulator_url: str, settings: TenantSettings
) -> bool:
    """The tenant's Bedrock agent registered on the emulator for as long as `scope` lasts, when it has one
    (docs/agents.md)."""
    if agent is None:
        return False
    from client.local_agent import local_agent

    scope.enter_context(local_agent(url, emulator_url, settings.tenant, settings, agent.response_max_bytes))
    return True


def ask_command(url: str, command: str = "ask") -> str:
    """`akb ask --local` (or `akb mcp --local`) as a user must type it to reach `url` (AKB_LOCAL_URL when
    not the default)."""
    from client.endpoint_url import DEFAULT_LOCAL_URL

    typed = f"akb {command} --local"
    return typed if url == DEFAULT_LOCAL_URL else f"AKB_LOCAL_URL={url} {typed}"


@dataclass(frozen=True)
class Banner:
    url: str
    emulator_url: str
    delay_ms: float
    tenant_name: str
    env_name: str
    settings: TenantSettings
    caller_arn: str
    cache_path: Path | None
    agent: bool = False  # the tenant's Bedrock agent is registered
    quota_path: Path | None = None  # fair sharing's SQLite file (docs/quota.md)
    account_rpm: int | None = None  # the emulator's account quota (--account-rpm)


def _banner(b: Banner) -> None:
    """What runs where, and requests to try: every command names the ports actually listened on."""
    settings = b.settings
    aliases = ", ".join(r.alias for r in settings.retrievers)
    click.echo(f"Bedrock emulator  {b.emulator_url}  (delay {b.delay_ms:g} ms between events)")
    click.echo(f"Endpoint          {b.url}  tenant {b.tenant_name} ({b.env_name}), knowledge bases: {aliases}")
    click.echo(f"Caller            {b.caller_arn}  (user_context: {settings.user_context})")
    guardrail = (
        f"{settings.guardrail_id} v{settings.guardrail_version}, the tenant's policies"
        if settings.guardrail_id
        else "none"
    )
    click.echo(f"Guardrail         {guardrail}")
    if settings.memory is not None:
        click.echo(f"Conversations     on, memory {settings.memory.memory_id} ({ask_command(b.url)} --new-session ...)")
    cache_line = f"on, {b.cache_path} (akb cache stats --local --tenant {b.tenant_name})" if b.cache_path else "off"
    click.echo(f"Result cache      {cache_line}")
    click.echo(share_line(settings.quota, b.quota_path))
    click.echo(account_quota_line(b.account_rpm))
    if b.agent:
        click.echo(f"Agent             {ask_command(b.url)} --agent 'How do I rotate an API key?'")
    click.echo("\nTry it (trace events arrive one by one):")
    click.echo(
        f"  curl -N -X POST {b.url}/v1/query -H 'content-type: application/json' \\\n"
        '    -d \'{"question": "How do I rotate an API key?"}\''
    )
    click.echo(f"  {ask_command(b.url)} 'What are the rate limits of the Pro plan?'")
    click.echo(f"  {ask_command(b.url, 'mcp')}    (MCP over stdio, for agents)")
    click.echo("\nOne line per request below (time, status, stop reason, iterations, duration, request id; --verbose:")
    click.echo("the endpoint's JSON records). Ctrl-C to stop.", nl=True)
    sys.stdout.flush()
