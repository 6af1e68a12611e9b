"""Lambda entry of the agent's action group: `search_knowledge(question, knowledge_bases?)`.

Bedrock invokes it synchronously with a function-details event (action_contract.py) and passes
what it returns to the agent's orchestration. It never raises to Bedrock: every failure is a
FAILURE (identity refused, upstream error: the agent stops) or REPROMPT (a parameter the model
can fix) response whose text names no ARN or account id. The settings are the endpoint's
(`AKB_TENANT_SETTINGS`, same builder), plus `AKB_AGENT_RESPONSE_MAX_BYTES`.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from contract.env_vars import AGENT_RESPONSE_MAX_BYTES
from contract.settings import TenantSettings
from lambdas.agent_action.action_contract import (
    FAILURE,
    FUNCTION_NAME,
    KNOWLEDGE_BASES_PARAMETER,
    QUESTION_PARAMETER,
    REPROMPT,
    USER_ID_ATTRIBUTE,
    ActionError,
    FunctionEvent,
    function_response,
    parse_event,
    requested_knowledge_bases,
)
from lambdas.agent_action.knowledge_search import build_query, search, user_id_for
from lambdas.agent_action.search_report import render

MAX_BYTES_ENV = AGENT_RESPONSE_MAX_BYTES
DEFAULT_MAX_BYTES = 20_000
DEADLINE_MARGIN_SECONDS = 3.0
log = logging.getLogger("akb.agent_action")


def handle(
    event: Any, settings: TenantSettings, client: Any, max_bytes: int = DEFAULT_MAX_BYTES, deadline: float | None = None
) -> dict[str, Any]:
    """One invocation: the function response for `event` (pure apart from the Bedrock call)."""
    try:
        parsed = parse_event(event)
    except ActionError as error:
        parsed = FunctionEvent(action_group="", function="", parameters={})
        return function_response(parsed, error.message, error.state)
    try:
        return function_response(parsed, _run(parsed, settings, client, max_bytes, deadline))
    except ActionError as error:
        log.warning("search_knowledge refused: %s", error.state)
        return function_response(parsed, error.message, error.state)


def _run(event: FunctionEvent, settings: TenantSettings, client: Any, max_bytes: int, deadline: float | None) -> str:
    if event.function != FUNCTION_NAME:
        raise ActionError(FAILURE, f"unknown function '{event.function}'; this action group has {FUNCTION_NAME}")
    question = event.parameters.get(QUESTION_PARAMETER)
    if not question or not question.strip():
        raise ActionError(REPROMPT, f"'{QUESTION_PARAMETER}' is required: pass the user's question")
    # Identity first (fail closed), from this turn's prompt session attributes only: never from
    # parameters, the prompt, or a session attribute an earlier turn left behind.
    user_id = user_id_for(settings, turn_user_id(event))
    query = build_query(question, requested_knowledge_bases(event.parameters.get(KNOWLEDGE_BASES_PARAMETER)), settings)
    return render(search(client, settings, query, user_id, deadline), max_bytes)


def turn_user_id(event: FunctionEvent) -> str | None:
    """The end user this turn states (`promptSessionAttributes.userId`), or None; ActionError(FAILURE)
    when the session carries a `userId` session attribute, which would name a user for every later turn."""
    persisting = [key for key in event.session_attributes if key.lower() == USER_ID_ATTRIBUTE.lower()]
    if persisting:
        raise ActionError(
            FAILURE,
            f"user_id_not_allowed: sessionAttributes.{persisting[0]} persists for the whole session, so a later "
            f"turn would read as that user; start a new session and state the end user on every turn in "
            f"sessionState.promptSessionAttributes.{USER_ID_ATTRIBUTE}",
        )
    return event.prompt_session_attributes.get(USER_ID_ATTRIBUTE)


_settings: TenantSettings | None = None


def lambda_handler(event: Any, context: Any) -> dict[str, Any]:
    """The function's handler: settings and the bedrock-agent-runtime client are made once per container."""
    global _settings
    from lambdas.endpoint.upstream import shared_client

    if _settings is None:
        _settings = TenantSettings.from_environment()
    max_bytes = int(os.environ.get(MAX_BYTES_ENV) or DEFAULT_MAX_BYTES)
    remaining = (
        context.get_remaining_time_in_millis() / 1000 if hasattr(context, "get_remaining_time_in_millis") else None
    )
    # Leave time to answer: a FAILURE the agent can relay beats a timeout nobody explains.
    deadline = time.monotonic() + remaining - DEADLINE_MARGIN_SECONDS if remaining is not None else None
    return handle(event, _settings, shared_client(), max_bytes, deadline)
