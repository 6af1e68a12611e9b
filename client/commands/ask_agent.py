"""`akb ask --agent`: the tenant's Bedrock agent instead of its endpoint, with the same exit codes.

0 answered (every search the agent ran reported a complete result); 1 config, agent lookup (not
found) or credentials problem; 3 refused or unreachable before the stream (AccessDenied, no
connection); 4 the stream carried an error (e.g. the action group failed) or a search reported a
partial or truncated result (the answer is then not complete); 5 a read timeout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from client.exit_codes import ExitCode
from client.failures import Failure

if TYPE_CHECKING:
    from client.agent_client import AgentStep, AgentTarget

EXIT_OK, EXIT_STREAM = ExitCode.OK, ExitCode.INCOMPLETE


def target_for(tenant: str | None, env_name: str, config_dir: Path, use_local: bool) -> AgentTarget:
    from client.agent_client import local_agent_target, local_url_from_environment, resolve_agent

    if use_local:
        return local_agent_target(local_url_from_environment())
    return resolve_agent(config_dir, env_name, tenant or "")


def run(
    question: str, target: AgentTarget, session_id: str | None, user_id: str | None, as_json: bool, quiet: bool
) -> int:
    from botocore.exceptions import EventStreamError, ReadTimeoutError

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
    except EventStreamError as error:  # refused, unreachable, no credentials: the one error path names them
        raise Failure(f"the agent's stream failed: {error}", ExitCode.INCOMPLETE) from None
    except ReadTimeoutError as error:
        raise Failure(f"the agent did not answer in time: {error}", ExitCode.DEADLINE) from None
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
