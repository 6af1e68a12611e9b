"""`akb ask --agent`: the tenant's Bedrock agent instead of its endpoint, with the same exit codes.

0 answered (every search the agent ran reported a complete result); 1 config, agent lookup or
credentials problem; 3 refused or unreachable before the stream (AccessDenied, not found, no
connection); 4 the stream carried an error (e.g. the action group failed) or a search reported a
partial or truncated result (the answer is then not complete); 5 a read timeout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from client.agent_client import AgentStep, AgentTarget

EXIT_OK, EXIT_CONFIG, EXIT_HTTP, EXIT_STREAM, EXIT_DEADLINE = 0, 1, 3, 4, 5


def target_for(tenant: str | None, env_name: str, config_dir: Path, use_local: bool) -> AgentTarget:
    from client.agent_client import local_agent_target, local_url_from_environment, resolve_agent

    if use_local:
        return local_agent_target(local_url_from_environment())
    return resolve_agent(config_dir, env_name, tenant or "")


def run(
    question: str, target: AgentTarget, session_id: str | None, user_id: str | None, as_json: bool, quiet: bool
) -> int:
    from botocore.exceptions import BotoCoreError, ClientError, EventStreamError, ReadTimeoutError

    from client.agent_client import ask_agent
    from lambdas.agent_action.search_report import parse

    incomplete: list[str] = []
    try:
        for step in ask_agent(target, question, session_id=session_id, user_id=user_id):
            if step.kind == "observation":
                report = parse(step.text)
                if report.partial_reason or report.truncated:
                    incomplete.append(report.partial_reason or report.truncated or "")
            _show(step, as_json, quiet)
    except EventStreamError as error:
        return _fail(f"the agent's stream failed: {error}", EXIT_STREAM)
    except ReadTimeoutError as error:
        return _fail(f"the agent did not answer in time: {error}", EXIT_DEADLINE)
    except ClientError as error:
        return _fail(f"the agent refused the request: {error}", EXIT_HTTP)
    except BotoCoreError as error:
        return _fail(f"the agent could not be reached: {error}", EXIT_HTTP)
    if incomplete:
        click.echo(f"akb ask: the answer is not complete: {'; '.join(incomplete)}", err=True)
        return EXIT_STREAM
    return EXIT_OK


_LABELS = {"rationale": "thinking", "tool_call": "calls", "observation": "observed"}


def _show(step: AgentStep, as_json: bool, quiet: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(step.to_dict(), ensure_ascii=False) + "\n")
    elif step.kind == "answer":
        click.echo(step.text if quiet else f"\n{step.text}")
    elif not quiet:
        text = step.text if step.kind != "observation" else step.text.splitlines()[0] + " ..."
        click.echo(f"[{_LABELS[step.kind]}] {text}")
    sys.stdout.flush()


def _fail(message: str, code: int) -> int:
    click.echo(f"akb ask: {message}", err=True)
    return code
