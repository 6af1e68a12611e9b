"""`search_knowledge`: one AgenticRetrieveStream call with the tenant's settings, read to the end.

Everything that decides what is sent is the endpoint's own code, not a copy (DESIGN: one identity
module, several doors): `request.parse_query` validates the question and the aliases against the
tenant (caps, allowed knowledge bases), `identity.resolve_user_id` applies the tenant's
user_context rules, `modes.agentic.build_request` builds the call, `translate.Translator` and
`stop_reason.StopReasonObserver` read the stream (checked whole: modes/stream_integrity.py).
Failures become ActionErrors with messages that name no ARN or account (api_errors.classify +
redaction).
"""

from __future__ import annotations

import json
import time
from typing import Any

from contract.events import ErrorEvent, ResultEvent, TextEvent
from contract.request_body import user_id_problem
from contract.settings import TenantSettings
from lambdas.agent_action.action_contract import FAILURE, REPROMPT, USER_ID_ATTRIBUTE, ActionError
from lambdas.agent_action.search_report import SearchReport, Source
from lambdas.endpoint import api_errors
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.identity import Caller, resolve_user_id
from lambdas.endpoint.modes import agentic
from lambdas.endpoint.redaction import redact
from lambdas.endpoint.request import Query, parse_query
from lambdas.endpoint.run_stats import RunStats
from lambdas.endpoint.stop_reason import StopReasonObserver
from lambdas.endpoint.translate import Translator

# The action group's caller, as the identity rules see it: the agent vouches for nobody by name.
# With user_context `trusted`, IAM lets only the tenant's trusted invokers call InvokeAgent on the
# alias (cdk_constructs/bedrock_agent.py), so the turn's `userId` prompt session attribute is a trusted
# caller's; the function cannot see which one, hence this single principal.
AGENT_CALLER = Caller(arn="bedrock-agent", account_id="", principal="bedrock-agent", name=None, kind="agent")
# ApiError codes that the model can fix by calling again differently (REPROMPT); the rest FAIL.
_REPROMPT_CODES = frozenset({"invalid_request", "limit_exceeded", "knowledge_base_not_allowed"})


def build_query(question: str, knowledge_bases: list[str] | None, settings: TenantSettings) -> Query:
    """The endpoint's own validation of a request body with these fields (mode agentic)."""
    body: dict[str, Any] = {"question": question, "mode": "agentic"}
    if knowledge_bases is not None:
        body["knowledgeBases"] = knowledge_bases
    try:
        return parse_query(json.dumps(body).encode(), settings, {"agentic"})
    except ApiError as error:
        raise ActionError(REPROMPT if error.code in _REPROMPT_CODES else FAILURE, error.message) from None


def user_id_for(settings: TenantSettings, stated_user_id: str | None) -> str | None:
    """The endpoint's identity rules with the agent as caller; ActionError(FAILURE) when refused. The
    user id itself follows the rule every door applies (contract/request_body.py)."""
    problem = None if stated_user_id is None else user_id_problem(stated_user_id)
    if problem is not None:
        raise ActionError(FAILURE, f"invalid_user_id: the {USER_ID_ATTRIBUTE} attribute {problem}")
    trusted = [AGENT_CALLER.principal] if settings.user_context == "trusted" else []
    try:
        return resolve_user_id(settings.user_context, AGENT_CALLER, stated_user_id, trusted)
    except ApiError as error:
        raise ActionError(FAILURE, f"{error.code}: {error.message}") from None


def search(
    client: Any, settings: TenantSettings, query: Query, user_id: str | None, deadline: float | None = None
) -> SearchReport:
    """Runs the query to the end of its stream; a partial run says why (never reported as complete).
    `deadline` (time.monotonic) is the function's own end: past it the search fails instead of
    being cut off by Lambda's timeout with nothing said."""
    alias_of = {r.knowledge_base_id: r.alias for r in settings.retrievers}
    translator = Translator(alias_of, time.monotonic())
    stop = StopReasonObserver(query.max_agent_iteration)
    answer_parts: list[str] = []
    result: ResultEvent | None = None
    upstream = None
    try:
        upstream = agentic.open(client, agentic.build_request(query, settings, user_id), translator, settings)
        for event in upstream:
            if deadline is not None and time.monotonic() > deadline:
                raise ActionError(
                    FAILURE, "deadline: the search did not finish in the function's time; retry or narrow it"
                )
            stop.observe(event)
            if isinstance(event, TextEvent):
                answer_parts.append(event.delta)
            elif isinstance(event, ResultEvent):
                result = event
            elif isinstance(event, ErrorEvent):
                raise ActionError(FAILURE, f"{event.code}: {event.message}")
    except ActionError:
        raise
    except Exception as error:  # botocore ClientError / EventStreamError / connection errors
        failure = api_errors.classify(error, alias_of)
        raise ActionError(FAILURE, redact(f"{failure.code}: {failure.message}", alias_of)) from None
    finally:
        if upstream is not None:
            upstream.close()
    return _report(result, answer_parts, stop.reason("agentic"), upstream.stats)


def _report(result: ResultEvent | None, parts: list[str], stop_reason: str, stats: RunStats) -> SearchReport:
    if result is None:
        raise ActionError(FAILURE, "the retrieval stream ended without a result; nothing to report")
    reason = None if stop_reason == "complete" else stop_reason
    if stats.sources_failed:
        failed = ", ".join(stats.failed_knowledge_bases) or "a knowledge base"
        reason = f"retrieval failed for {failed}" if reason is None else f"{reason}; retrieval failed for {failed}"
    answer = result.answer if result.answer is not None else ("".join(parts) or None)
    sources = [Source(item.knowledgeBase, item.documentId or "-", item.text) for item in result.results]
    return SearchReport(answer=answer, sources=sources, partial_reason=reason)
