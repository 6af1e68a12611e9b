"""InvokeAgent (bedrock-agent-runtime) for locally registered agents: a deterministic orchestration.

`POST /agents/{agentId}/agentAliases/{agentAliasId}/sessions/{sessionId}/text` answers with the
same event stream Bedrock sends (botocore's InvokeAgent model: `chunk` {bytes} and `trace`
{agentId, agentAliasId, sessionId, agentVersion, trace {orchestrationTrace {rationale |
invocationInput | observation}}}). The "model" is a fixed plan, not a language model: it always
calls the agent's one action, `search_knowledge(question=<inputText>)`, by running the real
action-group handler (lambdas/agent_action) in this process, whose AgenticRetrieveStream call
comes back to this emulator's knowledge bases; then it answers with what the action returned.
A FAILURE response ends the stream with `dependencyFailedException` (what Bedrock does when an
action group fails). Agents are registered through `POST /_emulator/agents` (akb local, tests).

Session state follows the ledger ("Agents for Amazon Bedrock"): `sessionAttributes` persist for the
session (every InvokeAgent with the same sessionId; a request that sends them replaces the stored
ones, which is UNVERIFIED), `promptSessionAttributes` last one turn: the action event of this call
carries the ones this call sent, or none.
"""

from __future__ import annotations

import hashlib
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from local.emulator.eventstream import StreamMessage
from local.emulator.service_errors import ServiceError

INVOKE_AGENT_PATH = re.compile(r"^/agents/([^/]+)/agentAliases/([^/]+)/sessions/([^/]+)/text$")
_SESSION_ID = re.compile(r"^[0-9a-zA-Z._:-]{2,100}$")  # botocore SessionId
_AGENT_ID = re.compile(r"^[0-9a-zA-Z]{1,10}$")  # botocore AgentId / AgentAliasId
AGENT_VERSION = "1"


def local_agent_ids(tenant: str) -> tuple[str, str]:
    """(agentId, agentAliasId) for a tenant's local agent: 10 alphanumerics each, stable per tenant."""
    digest = hashlib.sha256(f"akb-local-agent:{tenant}".encode()).hexdigest().upper()
    return digest[:10], digest[10:20]


@dataclass
class LocalAgent:
    agent_id: str
    alias_id: str
    name: str
    settings_json: str
    response_max_bytes: int
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)  # sessionId -> sessionAttributes


class Agents:
    """The registered agents; thread-safe (each request runs on its own thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._agents: dict[tuple[str, str], LocalAgent] = {}

    def register(self, spec: Mapping[str, Any]) -> dict[str, str]:
        from contract.settings import TenantSettings

        agent_id, alias_id = str(spec.get("agentId") or ""), str(spec.get("agentAliasId") or "")
        if not (_AGENT_ID.fullmatch(agent_id) and _AGENT_ID.fullmatch(alias_id)):
            raise ValueError("agentId and agentAliasId must be 1-10 letters or digits")
        settings_json = spec.get("settings")
        if not isinstance(settings_json, str):
            raise ValueError('"settings" must be the tenant settings JSON (a string)')
        TenantSettings.from_json(settings_json)  # refuse what the handler could not load
        max_bytes = spec.get("responseMaxBytes", 20_000)
        if not isinstance(max_bytes, int) or max_bytes < 500:
            raise ValueError('"responseMaxBytes" must be an integer of at least 500')
        agent = LocalAgent(agent_id, alias_id, str(spec.get("agentName") or agent_id), settings_json, max_bytes)
        with self._lock:
            self._agents[(agent_id, alias_id)] = agent
        return {"agentId": agent_id, "agentAliasId": alias_id}

    def get(self, agent_id: str, alias_id: str) -> LocalAgent:
        with self._lock:
            agent = self._agents.get((agent_id, alias_id))
        if agent is None:
            raise ServiceError("ResourceNotFoundException", f"Agent {agent_id} with alias {alias_id} was not found")
        return agent


@dataclass(frozen=True)
class TurnState:
    """What one InvokeAgent request sends: its text, its session state, whether to trace."""

    text: str
    session_attributes: dict[str, str] | None  # None: keep the session's
    prompt_session_attributes: dict[str, str]  # this turn only
    trace: bool


def _string_map(state: dict[str, Any], name: str) -> dict[str, str] | None:
    value = state.get(name)
    if value is not None and not (
        isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    ):
        raise ServiceError("ValidationException", f"sessionState.{name} must map strings to strings")
    return value


def _validate(body: Any, session_id: str) -> TurnState:
    """The request's turn state, or ValidationException."""
    if not _SESSION_ID.fullmatch(session_id):
        raise ServiceError("ValidationException", "sessionId must be 2-100 characters of [0-9a-zA-Z._:-]")
    if not isinstance(body, dict):
        raise ServiceError("ValidationException", "The request body must be a JSON object")
    text = body.get("inputText")
    if not isinstance(text, str) or not text.strip():
        raise ServiceError("ValidationException", "inputText is required")
    state = body.get("sessionState") or {}
    if not isinstance(state, dict):
        raise ServiceError("ValidationException", "sessionState must be an object")
    attributes = _string_map(state, "sessionAttributes")
    prompt_attributes = _string_map(state, "promptSessionAttributes") or {}
    return TurnState(text, attributes, dict(prompt_attributes), bool(body.get("enableTrace")))


class Orchestration:
    """One InvokeAgent call: the messages to stream, produced lazily (the action runs in between)."""

    def __init__(self, agent: LocalAgent, session_id: str, body: Any, client_factory: Callable[[], Any]) -> None:
        self.agent = agent
        self.session_id = session_id
        turn = _validate(body, session_id)
        self.text, self.trace = turn.text, turn.trace
        if turn.session_attributes is not None:  # kept for the session's life (ledger)
            agent.sessions[session_id] = dict(turn.session_attributes)
        self.attributes = agent.sessions.get(session_id, {})
        self.prompt_attributes = turn.prompt_session_attributes  # this turn only: never stored
        self.client_factory = client_factory
        self.trace_id = uuid.uuid4().hex[:12]

    def _trace(self, orchestration: dict[str, Any]) -> StreamMessage:
        part = {
            "agentId": self.agent.agent_id,
            "agentAliasId": self.agent.alias_id,
            "agentVersion": AGENT_VERSION,
            "sessionId": self.session_id,
            "trace": {"orchestrationTrace": {**orchestration}},
        }
        return StreamMessage("event", "trace", part)

    def messages(self) -> Iterator[StreamMessage]:
        from lambdas.agent_action import action_contract as contract

        parameters = [{"name": contract.QUESTION_PARAMETER, "type": "string", "value": self.text}]
        if self.trace:
            yield self._trace({"rationale": {"text": _RATIONALE, "traceId": self.trace_id}})
            yield self._trace({"invocationInput": self._invocation_input(parameters)})
        response = self._run_action(parameters)
        result = response["response"]["functionResponse"]
        body = result["responseBody"]["TEXT"]["body"]
        if self.trace:
            yield self._trace({"observation": _observation(self.trace_id, "ACTION_GROUP", body)})
        if result.get("responseState") == contract.FAILURE:
            message = f"The action group function failed: {body}"
            yield StreamMessage(
                "exception", "dependencyFailedException", {"message": message, "resourceName": "Lambda"}
            )
            return
        answer = final_answer(body)
        if self.trace:
            yield self._trace({"observation": _observation(self.trace_id, "FINISH", answer)})
        yield StreamMessage("event", "chunk", {"bytes": _base64(answer)})

    def _invocation_input(self, parameters: list[dict[str, str]]) -> dict[str, Any]:
        from lambdas.agent_action import action_contract as contract

        return {
            "invocationType": "ACTION_GROUP",
            "traceId": self.trace_id,
            "actionGroupInvocationInput": {
                "actionGroupName": contract.ACTION_GROUP_NAME,
                "function": contract.FUNCTION_NAME,
                "executionType": "LAMBDA",
                "parameters": parameters,
            },
        }

    def _run_action(self, parameters: list[dict[str, str]]) -> dict[str, Any]:
        """The event Bedrock would send, given to the real handler in this process."""
        from contract.settings import TenantSettings
        from lambdas.agent_action import action_contract as contract
        from lambdas.agent_action.action_handler import handle

        event = {
            "messageVersion": contract.MESSAGE_VERSION,
            "agent": {"name": self.agent.name, "id": self.agent.agent_id, "alias": self.agent.alias_id, "version": "1"},
            "inputText": self.text,
            "sessionId": self.session_id,
            "actionGroup": contract.ACTION_GROUP_NAME,
            "function": contract.FUNCTION_NAME,
            "parameters": parameters,
            "sessionAttributes": dict(self.attributes),
            "promptSessionAttributes": dict(self.prompt_attributes),
        }
        settings = TenantSettings.from_json(self.agent.settings_json)
        return handle(event, settings, self.client_factory(), self.agent.response_max_bytes)


_RATIONALE = "The user asks about the tenant's documents: search them with search_knowledge, then answer."


def _observation(trace_id: str, kind: str, text: str) -> dict[str, Any]:
    if kind == "FINISH":
        return {"type": "FINISH", "traceId": trace_id, "finalResponse": {"text": text}}
    return {"type": kind, "traceId": trace_id, "actionGroupInvocationOutput": {"text": text}}


def final_answer(body: str) -> str:
    """What the emulated model answers: the action's answer, its sources, and any partial/cut notice."""
    from lambdas.agent_action.search_report import parse

    report = parse(body)
    if report.answer is None and not report.sources and report.partial_reason is None:
        return body  # a REPROMPT text: passed on as the model would ask the user
    lines = [report.answer or "I found sources but no generated answer."]
    if report.sources:
        lines.append("")
        lines.append("Sources:")
        lines.extend(f"[{n}] {s.knowledge_base}/{s.document_id}" for n, s in enumerate(report.sources, 1))
    if report.partial_reason is not None:
        lines.append(f"\nNote: this answer is partial ({report.partial_reason}).")
    if report.truncated is not None:
        lines.append(f"\nNote: the search result was truncated ({report.truncated}).")
    return "\n".join(lines)


def _base64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode("utf-8")).decode("ascii")


_clients: dict[str, Any] = {}
_clients_lock = threading.Lock()


def emulator_client(url: str) -> Any:
    """A bedrock-agent-runtime client aimed at this emulator (the handler's AgenticRetrieveStream calls)."""
    with _clients_lock:
        client = _clients.get(url)
        if client is None:
            import boto3
            from botocore.config import Config

            client = boto3.client(
                "bedrock-agent-runtime",
                endpoint_url=url,
                region_name="us-west-2",
                aws_access_key_id="local",
                aws_secret_access_key="local",  # noqa: S106 - the emulator checks no signature
                config=Config(retries={"mode": "standard", "total_max_attempts": 1}, read_timeout=120),
            )
            _clients[url] = client
    return client
