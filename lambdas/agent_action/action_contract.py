"""The action group's contract with Agents for Amazon Bedrock: the function-details event, the response,
and the text `search_knowledge` returns. One module the handler, the emulator and the client share.

Shapes (Bedrock user guide agents-lambda; ledger in docs/facts-and-decisions.md):
- event: {messageVersion, agent {name, id, alias, version}, inputText, sessionId, actionGroup,
  function, parameters [{name, type, value}], sessionAttributes, promptSessionAttributes}
- response: {messageVersion, response {actionGroup, function, functionResponse {responseState?
  (FAILURE | REPROMPT), responseBody {TEXT {body}}}}, sessionAttributes?, promptSessionAttributes?}

The end user's id is read from `promptSessionAttributes.userId` only: attributes are set by whoever
calls InvokeAgent (IAM-limited to the tenant's trusted invokers when documents carry ACLs), never by
the model, so a prompt cannot choose them; and prompt session attributes last one turn (one
InvokeAgent call), while `sessionAttributes` persist for the whole session (ledger, "Agents for
Amazon Bedrock"). So the end user is stated on every turn, and a turn that states nobody is not
answered as whoever an earlier turn named. A `userId` in `sessionAttributes` is refused: it would
outlive its turn. `parameters` come from the model and never carry identity.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MESSAGE_VERSION = "1.0"
ACTION_GROUP_NAME = "knowledge"
FUNCTION_NAME = "search_knowledge"
QUESTION_PARAMETER = "question"
KNOWLEDGE_BASES_PARAMETER = "knowledge_bases"
USER_ID_ATTRIBUTE = "userId"  # sessionState.promptSessionAttributes key a trusted invoker sets on every turn
FAILURE, REPROMPT = "FAILURE", "REPROMPT"

# The function-details schema of the action group (AWS::Bedrock::Agent FunctionSchema, cfn-lint).
FUNCTION_DESCRIPTION = (
    "Searches this tenant's knowledge bases with agentic retrieval and returns an answer with numbered "
    "sources. Call it for every question about the tenant's documents."
)
PARAMETERS: dict[str, dict[str, Any]] = {
    QUESTION_PARAMETER: {
        "type": "string",
        "required": True,
        "description": "The user's question, complete and self-contained.",
    },
    KNOWLEDGE_BASES_PARAMETER: {
        "type": "string",
        "required": False,
        "description": "Optional comma-separated knowledge-base aliases to search; default all of them.",
    },
}


class ActionError(Exception):
    """A request the function answers with a responseState instead of a result."""

    def __init__(self, state: str, message: str) -> None:
        super().__init__(message)
        self.state = state
        self.message = message


@dataclass(frozen=True)
class FunctionEvent:
    """The parts of the event the function uses."""

    action_group: str
    function: str
    parameters: dict[str, str]
    session_attributes: dict[str, str] = field(default_factory=dict)  # the session's, persisting
    prompt_session_attributes: dict[str, str] = field(default_factory=dict)  # this turn's only
    message_version: str = MESSAGE_VERSION


def _string_map(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(key): item for key, item in value.items() if isinstance(item, str)}


def parse_event(event: Any) -> FunctionEvent:
    """The event's fields; ActionError(FAILURE) for anything that is not a function-details event."""
    if not isinstance(event, Mapping) or not isinstance(event.get("function"), str):
        raise ActionError(FAILURE, "not a function-details action group event (no 'function')")
    parameters: dict[str, str] = {}
    for item in event.get("parameters") or []:
        if isinstance(item, Mapping) and isinstance(item.get("name"), str) and isinstance(item.get("value"), str):
            parameters[item["name"]] = item["value"]
    version = event.get("messageVersion")
    return FunctionEvent(
        action_group=str(event.get("actionGroup") or ""),
        function=event["function"],
        parameters=parameters,
        session_attributes=_string_map(event.get("sessionAttributes")),
        prompt_session_attributes=_string_map(event.get("promptSessionAttributes")),
        message_version=version if isinstance(version, str) else MESSAGE_VERSION,
    )


def function_response(event: FunctionEvent, body: str, state: str | None = None) -> dict[str, Any]:
    """The response Bedrock expects; `state` FAILURE or REPROMPT, None for a result."""
    function_result: dict[str, Any] = {"responseBody": {"TEXT": {"body": body}}}
    if state is not None:
        function_result["responseState"] = state
    return {
        "messageVersion": event.message_version,
        "response": {
            "actionGroup": event.action_group,
            "function": event.function,
            "functionResponse": function_result,
        },
    }


def requested_knowledge_bases(raw: str | None) -> list[str] | None:
    """`a, b` or `["a", "b"]` -> ["a", "b"]; None or blank -> None (all of the tenant's)."""
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return [item.strip() for item in parsed if item.strip()] or None
        text = text.strip("[]")
    return [part.strip().strip("'\"") for part in text.split(",") if part.strip().strip("'\"")] or None


__all__ = [
    "ACTION_GROUP_NAME",
    "FUNCTION_NAME",
    "MESSAGE_VERSION",
    "USER_ID_ATTRIBUTE",
    "ActionError",
    "FunctionEvent",
    "function_response",
    "parse_event",
]
