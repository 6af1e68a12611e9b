"""`akb ask`: put a question to a tenant's endpoint and watch the planner work.

Exit codes (scripts rely on them): 0 success; 1 config, URL lookup or credentials problem;
2 usage error; 3 the endpoint refused the request or could not be reached (no stream);
4 the stream carried an error or broke off; 5 a deadline ended the request (the endpoint's
`deadline`, as an error event, a stop reason or a 504 before streaming, or this client's own
first-event/idle timeout).
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from client.options import config_option, env_option
from contract.enums import MODES

if TYPE_CHECKING:
    from client.endpoint_client import Client
    from client.render import Renderer

EXIT_OK, EXIT_CONFIG, EXIT_HTTP, EXIT_STREAM, EXIT_DEADLINE = 0, 1, 3, 4, 5
MAX_MORE_PAGES = 20  # a typo such as --more 1000 must not loop on a paginating endpoint


def _filter(_ctx: click.Context, _param: click.Parameter, value: str | None) -> dict | None:
    if value is None:
        return None
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not JSON: {error.msg} at character {error.pos}") from None
    if not isinstance(parsed, dict):
        raise click.BadParameter('must be a JSON object, e.g. {"equals": {"key": "team", "value": "api"}}')
    return parsed


@click.command()
@click.argument("question")
@click.option(
    "--url",
    help="The endpoint's URL: a function URL (signed for lambda) or the API's URL, execute-api or a custom "
    "domain (signed for execute-api; a custom domain needs --region).",
)
@click.option("--tenant", help="Resolve the URL of this tenant's deployed endpoint from SSM (with --env).")
@env_option
@config_option
@click.option("--local", "use_local", is_flag=True, help="The endpoint `akb local` runs ($AKB_LOCAL_URL).")
@click.option("--region", help="Region to sign for, when the URL does not name one.")
@click.option("--kb", "knowledge_bases", multiple=True, help="Knowledge-base alias to search (repeatable).")
@click.option("--no-answer", is_flag=True, help="Retrieve only: no generated answer.")
@click.option("--max-iterations", type=click.IntRange(min=0), help="Planner iterations (capped by the tenant).")
@click.option(
    "--max-results",
    type=click.IntRange(min=1),
    help="Results per knowledge base, not in total: with two knowledge bases, 3 returns up to 6 sources.",
)
@click.option("--filter", "metadata_filter", callback=_filter, help="Metadata filter, as JSON.")
@click.option("--user-id", help="User id for document ACLs (honoured for trusted callers only).")
@click.option("--mode", type=click.Choice(MODES), help="Retrieval mode.")
@click.option(
    "--more",
    type=click.IntRange(min=0, max=MAX_MORE_PAGES),
    default=0,
    show_default=True,
    help="Follow the result's nextToken for up to this many more pages of sources.",
)
@click.option(
    "--session", "session_id", help="Continue this conversation (its history is restored; docs/conversations.md)."
)
@click.option("--new-session", is_flag=True, help="Start a conversation: prints a fresh session id to continue with.")
@click.option("--no-save", is_flag=True, help="With a session: answer from it but do not write this turn back.")
@click.option("--format", "stream_format", type=click.Choice(["sse", "ndjson"]), default="sse", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the events as NDJSON, one per line.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the answer.")
@click.option("--agent", "use_agent", is_flag=True, help="Ask the tenant's Bedrock agent (docs/agents.md).")
@click.option(
    "--session-id", "agent_session_id", help="With --agent: continue this agent session (default: a new one)."
)
@click.pass_context
def command(
    ctx: click.Context,
    question: str,
    url: str | None,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    use_local: bool,
    region: str | None,
    knowledge_bases: tuple[str, ...],
    no_answer: bool,
    max_iterations: int | None,
    max_results: int | None,
    metadata_filter: dict | None,
    user_id: str | None,
    mode: str | None,
    more: int,
    session_id: str | None,
    new_session: bool,
    no_save: bool,
    stream_format: str,
    as_json: bool,
    quiet: bool,
    use_agent: bool,
    agent_session_id: str | None,
) -> None:
    """Ask QUESTION; show the planner's steps live, then the answer and its sources."""
    _check_choices(question, url, tenant, use_local, as_json, quiet)
    if use_agent or agent_session_id:
        agent_args = (question, url, tenant, env_name, config_dir, use_local, agent_session_id, user_id, as_json, quiet)
        ctx.exit(_ask_agent(ctx, *agent_args))
    session_id = _session(session_id, new_session, no_save)
    url, region = _target(ctx, url, tenant, env_name, config_dir, use_local, region)

    from client.endpoint_client import Client

    try:
        client = Client(url, region=region, format=stream_format)  # type: ignore[arg-type]
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    options = {
        "knowledge_bases": knowledge_bases or None,
        "generate_response": False if no_answer else None,
        "max_agent_iteration": max_iterations,
        "max_results": max_results,
        "filter": metadata_filter,
        "mode": mode,
        "user_id": user_id,
        "session_id": session_id,
        "persistence": "none" if no_save else None,
    }
    tenant_file = f"{config_dir}/tenants/{tenant}.yaml" if tenant else "config/tenants/<tenant>.yaml"
    with client:
        code = _run(client, question, options, (as_json, quiet), tenant_file)
        options.pop("session_id"), options.pop("persistence")  # a later page is not a conversation turn
        for _ in range(more):  # each page: the same question, the previous page's token
            if code != EXIT_OK or not options.get("next_token"):
                break
            code = _run(client, question, options, (as_json, quiet), tenant_file)
        ctx.exit(code)


def _check_choices(
    question: str, url: str | None, tenant: str | None, use_local: bool, as_json: bool, quiet: bool
) -> None:
    """Usage errors that need no config: one endpoint choice, one output mode, a question."""
    if sum(bool(choice) for choice in (url, tenant, use_local)) != 1:
        raise click.UsageError("choose the endpoint with exactly one of --url, --env/--tenant or --local")
    if as_json and quiet:
        raise click.UsageError("--json and --quiet are alternatives: pick one")
    if not question.strip():
        raise click.UsageError("the question is empty")


def _session(session_id: str | None, new_session: bool, no_save: bool) -> str | None:
    """The conversation to use: the given one, or a fresh id (printed to stderr: stdout stays the answer)."""
    if session_id is not None and new_session:
        raise click.UsageError("--session continues a conversation and --new-session starts one: pick one")
    if no_save and session_id is None and not new_session:
        raise click.UsageError("--no-save applies to a conversation: add --session ID or --new-session")
    if session_id is not None:
        from contract.request_body import MAX_SESSION_ID_CHARS, SESSION_ID_PATTERN

        if len(session_id) > MAX_SESSION_ID_CHARS or not re.fullmatch(SESSION_ID_PATTERN, session_id):
            raise click.UsageError(
                f"--session '{session_id}': 1-{MAX_SESSION_ID_CHARS} letters, digits, '-' or '_', starting "
                "with a letter or digit"
            )
        return session_id
    if not new_session:
        return None
    fresh = str(uuid.uuid4())
    click.echo(f"session {fresh}  (continue with: --session {fresh})", err=True)
    return fresh


def _ask_agent(
    ctx: click.Context,
    question: str,
    url: str | None,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    use_local: bool,
    session_id: str | None,
    user_id: str | None,
    as_json: bool,
    quiet: bool,
) -> int:
    from client.agent_client import AgentTargetError
    from client.commands import ask_agent
    from schema import ConfigError

    if not ctx.params.get("use_agent"):
        raise click.UsageError("--session-id is for the agent: add --agent")
    if ctx.params.get("session_id") or ctx.params.get("new_session"):
        raise click.UsageError("--session/--new-session are the endpoint's conversations; the agent takes --session-id")
    if url:
        raise click.UsageError("--agent takes --local or --env/--tenant (an agent has no URL)")
    try:
        target = ask_agent.target_for(tenant, env_name, config_dir, use_local)
    except (AgentTargetError, ConfigError) as error:
        click.echo(f"akb ask: {error}", err=True)
        return ask_agent.EXIT_CONFIG
    return ask_agent.run(question, target, session_id, user_id, as_json, quiet)


def _target(
    ctx: click.Context,
    url: str | None,
    tenant: str | None,
    env_name: str,
    config_dir: Path,
    use_local: bool,
    region: str | None,
) -> tuple[str, str | None]:
    from client.endpoint_url import UrlResolutionError, local_url, resolve_url

    env_given = ctx.get_parameter_source("env_name") is not click.core.ParameterSource.DEFAULT
    if env_given and not tenant:
        raise click.UsageError("--env selects a deployed endpoint together with --tenant")
    if use_local:
        return local_url(), region
    if url:
        if not url.startswith(("http://", "https://")):
            raise click.UsageError(f"--url must start with http:// or https://, got '{url}'")
        from client.sigv4 import is_local, region_from_url

        if not (region or is_local(url) or region_from_url(url)):
            raise click.UsageError(f"cannot tell the region to sign for from {url}: pass --region")
        return url, region
    from schema import ConfigError

    try:
        resolved, env_region = resolve_url(config_dir, env_name, tenant or "")
    except (ConfigError, UrlResolutionError) as error:
        click.echo(f"akb ask: {error}", err=True)
        ctx.exit(EXIT_CONFIG)
    return resolved, region or env_region


def _run(client: Client, question: str, options: dict[str, Any], output: tuple[bool, bool], tenant_file: str) -> int:
    as_json, quiet = output
    from client.endpoint_client import (
        EndpointConnectionError,
        EndpointHTTPError,
        EndpointTimeout,
        StreamError,
    )
    from client.render import JsonRenderer, QuietRenderer, ViewRenderer, view_console
    from client.sigv4 import SigningError
    from contract.events import DoneEvent, ErrorEvent

    renderer: Renderer
    if as_json:
        renderer = JsonRenderer(sys.stdout)
    elif quiet:
        renderer = QuietRenderer(sys.stdout)
    else:
        renderer = ViewRenderer(view_console())
    error_codes: list[str] = []
    done: DoneEvent | None = None
    try:
        for event in client.query(question, **options):
            renderer.handle(event)
            if isinstance(event, ErrorEvent):
                error_codes.append(event.code)
            elif isinstance(event, DoneEvent):
                done = event
    except SigningError as error:
        return _fail(renderer, str(error), EXIT_CONFIG)
    except EndpointHTTPError as error:
        # The endpoint answers 504 `deadline` when its deadline passes before the first event.
        return _fail(renderer, str(error), EXIT_DEADLINE if error.code == "deadline" else EXIT_HTTP)
    except EndpointConnectionError as error:
        return _fail(renderer, str(error), EXIT_HTTP)
    except EndpointTimeout as error:
        return _fail(renderer, str(error), EXIT_DEADLINE)
    except StreamError as error:
        return _fail(renderer, str(error), EXIT_STREAM)
    renderer.close()
    options["next_token"] = done.nextToken if done is not None else None  # what --more follows
    if done is not None and done.stopReason == "iteration_limit":
        hint = iteration_limit_hint(done.iterations, options.get("max_agent_iteration"), tenant_file)
        click.echo(f"akb ask: {hint}", err=True)
    if "deadline" in error_codes or (done is not None and done.stopReason == "deadline"):
        return EXIT_DEADLINE
    if error_codes or done is None or done.stopReason != "complete":
        return EXIT_STREAM
    return EXIT_OK


def iteration_limit_hint(used: int, asked: int | None, tenant_file: str) -> str:
    """Exit 4 for `iteration_limit`: the cap the run hit and how to raise it. A request may not exceed
    the tenant's `retrieval.max_agent_iteration` (the endpoint refuses it: limit_exceeded), so unless
    --max-iterations asked for fewer, the way up is the tenant's config, not a request value."""
    from schema.tenant import MAX_AGENT_ITERATION_CAP

    cap_line = (
        f"raise retrieval.max_agent_iteration (at most {MAX_AGENT_ITERATION_CAP}) in {tenant_file} and redeploy "
        "(or restart akb local)"
    )
    if asked is not None:
        return (
            f"possibly incomplete answer: the planner used the {asked} iteration{'' if asked == 1 else 's'} "
            "--max-iterations allowed; "
            f"ask again with a higher --max-iterations, up to the tenant's cap (above it the endpoint refuses "
            f"the request: {cap_line} to go further), or narrow the question"
        )
    return (
        f"possibly incomplete answer: the planner used all {used} iteration{'' if used == 1 else 's'} "
        f"the tenant allows (its cap, retrieval.max_agent_iteration); a request may not ask for more: {cap_line}, "
        "or narrow the question"
    )


def _fail(renderer: Renderer, message: str, code: int) -> int:
    renderer.close()
    click.echo(f"akb ask: {message}", err=True)
    return code
