"""Calls a tenant's Bedrock agent (InvokeAgent) and turns its event stream into steps to show.

The Python client's agent call: `ask_agent(target, question, session_id=..., user_id=...)` yields
`AgentStep`s: the orchestration trace as it arrives (rationale, tool call, observation) and then
the answer. The end user's id goes in `sessionState.promptSessionAttributes.userId`, on every turn:
prompt session attributes last one InvokeAgent call, so each turn states its own user and a turn
without one is refused for a tenant with document ACLs (the action group reads it from there only;
the caller must be one of the tenant's trusted invokers; docs/agents.md).
Targets: a deployed agent (ids from SSM `/akb/<env>/<tenant>/agent/...`) or the local one that
`akb local` registers with the emulator (found from AKB_LOCAL_URL: `local_agent_target`).
"""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lambdas.agent_action.action_contract import USER_ID_ATTRIBUTE


class AgentTargetError(Exception):
    """The agent could not be found; the message says what to do."""


@dataclass(frozen=True)
class AgentTarget:
    agent_id: str
    alias_id: str
    region: str | None = None
    endpoint_url: str | None = None  # the emulator, for a local agent


@dataclass(frozen=True)
class AgentStep:
    kind: str  # rationale | tool_call | observation | answer
    text: str
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "text": self.text, **({"detail": self.detail} if self.detail else {})}


def discovery_file(endpoint_url: str) -> Path:
    """Where `akb local` on this endpoint port writes where its agent is (removed when it stops)."""
    port = urlsplit(endpoint_url).port or 80
    return Path(tempfile.gettempdir()) / f"akb-local-{port}-agent.json"


def write_discovery(endpoint_url: str, emulator_url: str, agent_id: str, alias_id: str) -> Path:
    path = discovery_file(endpoint_url)
    path.write_text(json.dumps({"emulator": emulator_url, "agentId": agent_id, "agentAliasId": alias_id}))
    return path


def local_agent_target(endpoint_url: str) -> AgentTarget:
    """The agent `akb local` runs beside the endpoint at `endpoint_url` (AKB_LOCAL_URL)."""
    path = discovery_file(endpoint_url)
    try:
        data = json.loads(path.read_text())
        return AgentTarget(data["agentId"], data["agentAliasId"], "us-west-2", data["emulator"])
    except (OSError, ValueError, KeyError, TypeError):
        raise AgentTargetError(
            f"no local agent beside {endpoint_url}: run `akb local` for a tenant with an `agent:` block "
            "(and point AKB_LOCAL_URL at the endpoint it prints)"
        ) from None


def resolve_agent(config_dir: Path, env_name: str, tenant: str, ssm_client: Any = None) -> AgentTarget:
    """A deployed tenant's agent and alias ids from its SSM parameters."""
    from botocore.exceptions import BotoCoreError, ClientError

    from schema import load_project

    project = load_project(config_dir, env_name)
    if tenant not in project.tenants:
        raise AgentTargetError(f"tenant '{tenant}' is not deployed in environment '{env_name}'")
    if project.tenants[tenant].agent is None:
        raise AgentTargetError(f"tenant '{tenant}' has no `agent:` block in environment '{env_name}'")
    region = project.environment.region
    if ssm_client is None:
        import boto3

        ssm_client = boto3.client("ssm", region_name=region)
    values = []
    for key in ("agent/id", "agent/alias-id"):
        name = f"/akb/{env_name}/{tenant}/{key}"
        try:
            values.append(ssm_client.get_parameter(Name=name)["Parameter"]["Value"])
        except (ClientError, BotoCoreError) as error:
            raise AgentTargetError(f"reading {name} in {region} failed: {error}") from None
    return AgentTarget(values[0], values[1], region)


def _client(target: AgentTarget) -> Any:
    import boto3

    if target.endpoint_url:  # the emulator checks no signature
        return boto3.client(
            "bedrock-agent-runtime",
            endpoint_url=target.endpoint_url,
            region_name=target.region or "us-west-2",
            aws_access_key_id="local",
            aws_secret_access_key="local",  # noqa: S106 - not a secret: the local emulator
        )
    return boto3.client("bedrock-agent-runtime", region_name=target.region)


def ask_agent(
    target: AgentTarget, question: str, *, session_id: str | None = None, user_id: str | None = None, client: Any = None
) -> Iterator[AgentStep]:
    """InvokeAgent with the trace on; botocore errors (ClientError, EventStreamError) propagate."""
    request: dict[str, Any] = {
        "agentId": target.agent_id,
        "agentAliasId": target.alias_id,
        "sessionId": session_id or uuid.uuid4().hex,
        "inputText": question,
        "enableTrace": True,
    }
    if user_id is not None:
        request["sessionState"] = {"promptSessionAttributes": {USER_ID_ATTRIBUTE: user_id}}
    response = (client or _client(target)).invoke_agent(**request)
    answer: list[str] = []
    for event in response["completion"]:
        if "trace" in event:
            yield from steps_of_trace(event["trace"].get("trace") or {})
        elif "chunk" in event:
            answer.append((event["chunk"].get("bytes") or b"").decode("utf-8", errors="replace"))
    yield AgentStep("answer", "".join(answer), {"sessionId": request["sessionId"]})


def steps_of_trace(trace: dict[str, Any]) -> Iterator[AgentStep]:
    """The orchestration parts of one trace event (other steps are not shown)."""
    orchestration = trace.get("orchestrationTrace") or {}
    if "rationale" in orchestration:
        yield AgentStep("rationale", orchestration["rationale"].get("text") or "")
    invocation = (orchestration.get("invocationInput") or {}).get("actionGroupInvocationInput")
    if invocation:
        parameters = {p.get("name"): p.get("value") for p in invocation.get("parameters") or []}
        call = f"{invocation.get('function') or invocation.get('apiPath')}({json.dumps(parameters)})"
        yield AgentStep("tool_call", call, {"actionGroup": invocation.get("actionGroupName"), "parameters": parameters})
    observation = orchestration.get("observation") or {}
    output = observation.get("actionGroupInvocationOutput")
    if output:
        yield AgentStep("observation", output.get("text") or "")


def local_url_from_environment() -> str:
    from client.endpoint_url import local_url

    return os.environ.get("AKB_LOCAL_URL") or local_url()
