"""`mode: agentic` — one AgenticRetrieveStream call; Bedrock plans, retrieves and answers.

Request shapes are botocore's (bedrock-agent-runtime `AgenticRetrieveStream`; docs/facts-and-decisions.md).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, Final

from contract.enums import StopReason
from contract.events import Event
from contract.settings import TenantSettings
from lambdas.endpoint.modes import CallContext
from lambdas.endpoint.modes.stream_integrity import StreamCheck, checked
from lambdas.endpoint.request import Query
from lambdas.endpoint.run_stats import RunStats
from lambdas.endpoint.stop_reason import StopReasonObserver
from lambdas.endpoint.translate import Translator
from lambdas.endpoint.upstream import close_event_stream

NAME: Final = "agentic"


def _model(arn: str | None) -> dict[str, Any]:
    return {"modelConfiguration": {"modelArn": arn}}


def _retrievers(query: Query, settings: TenantSettings) -> list[dict[str, Any]]:
    """One retriever per requested alias, with the request's overrides and the planner's description."""
    retrievers = []
    for alias in query.knowledge_bases:
        retriever = settings.require_retriever(alias)
        overrides: dict[str, Any] = {"maxNumberOfResults": query.max_results}
        if query.filter is not None:
            overrides["filter"] = query.filter
        retrievers.append(
            {
                "configuration": {
                    "knowledgeBase": {
                        "knowledgeBaseId": retriever.knowledge_base_id,
                        "retrievalOverrides": overrides,
                    }
                },
                # The planner routes sub-queries by these descriptions.
                "description": retriever.description,
            }
        )
    return retrievers


def build_request(query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
    """The AgenticRetrieveStream parameters for a validated query (pure; tests compare it whole)."""
    configuration: dict[str, Any] = {
        "foundationModelType": settings.planner_type,
        "maxAgentIteration": query.max_agent_iteration,
    }
    # Only when configured: left out, the service picks MANAGED or NONE by the knowledge bases'
    # embedding type, and MANAGED must not be forced on custom-embedding ones (botocore docs).
    if settings.reranking_type is not None:
        configuration["rerankingModelType"] = settings.reranking_type
    if settings.planner_type == "CUSTOM":
        configuration["foundationModelConfiguration"] = {
            "type": "BEDROCK_FOUNDATION_MODEL",
            "bedrockFoundationModelConfiguration": _model(settings.planner_model_arn),
        }
    if settings.reranking_type == "CUSTOM":
        configuration["rerankingConfiguration"] = {
            "type": "BEDROCK_RERANKING_MODEL",
            "bedrockRerankingConfiguration": _model(settings.reranking_model_arn),
        }
    request: dict[str, Any] = {
        "messages": [{"role": role, "content": {"text": text}} for role, text in query.messages],
        "retrievers": _retrievers(query, settings),
        "agenticRetrieveConfiguration": configuration,
        "generateResponse": query.generate_response,
    }
    if settings.guardrail_id and settings.guardrail_version:
        request["policyConfiguration"] = {
            "bedrockGuardrailConfiguration": {
                "guardrailId": settings.guardrail_id,
                "guardrailVersion": settings.guardrail_version,
            }
        }
    if settings.retrieval_instruction_id:
        instruction = {"retrievalInstructionId": settings.retrieval_instruction_id}
        if settings.retrieval_instruction_version:
            instruction["version"] = settings.retrieval_instruction_version
        request["retrievalInstructionConfiguration"] = instruction
    if user_id is not None:
        request["userContext"] = {"userId": user_id}
    if query.next_token is not None:
        request["nextToken"] = query.next_token
    if query.memory is not None:  # bound by conversation.py to the verified end user's session
        request["memoryConfiguration"] = query.memory.to_request()
    return request


class AgenticUpstream:
    """One AgenticRetrieveStream response as endpoint events; its stop reason once it ended whole."""

    def __init__(
        self, response: Mapping[str, Any], translator: Translator, settings: TenantSettings, max_agent_iteration: int
    ) -> None:
        self._stream = response["stream"]
        self._max_agent_iteration = max_agent_iteration
        self._request_id = (response.get("ResponseMetadata") or {}).get("RequestId")
        self._translator = translator
        self._settings = settings
        self._stop: StopReason | None = None

    def __iter__(self) -> Iterator[Event]:
        observer = StopReasonObserver(self._max_agent_iteration)
        # Blocks between events; botocore yields each as its bytes arrive, checked (stream_integrity.py).
        for raw in checked(self._stream, StreamCheck()):
            for event in self._translator.translate(raw):
                observer.observe(event)
                yield event
        self._stop = "partial" if self._translator.tally.sources_failed else observer.reason(NAME)

    def close(self) -> None:
        close_event_stream(self._stream)

    @property
    def stats(self) -> RunStats:
        counted = self._translator.stats
        return replace(
            counted,
            upstream_request_id=self._request_id,
            stop_reason=self._stop,
            estimated_cost_usd=estimated_cost_usd(counted, self._settings),
            cost_excludes_planner_model=excludes_planner_model_cost(self._settings),
        )


def open(client: Any, request: dict[str, Any], translator: Translator, settings: TenantSettings) -> AgenticUpstream:
    """One call; the relay retries it as a whole (with the request's RetryPolicy)."""
    cap = int(request["agenticRetrieveConfiguration"]["maxAgentIteration"])
    return AgenticUpstream(client.agentic_retrieve_stream(**request), translator, settings, cap)


class AgenticMode:
    name: Final = NAME

    def build_request(self, query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
        return build_request(query, settings, user_id)

    def open(self, request: dict[str, Any], call: CallContext) -> AgenticUpstream:
        return open(call.client, request, Translator(call.alias_of, call.started_at), call.settings)


def excludes_planner_model_cost(settings: TenantSettings) -> bool:
    """A CUSTOM planner is billed at its model's Bedrock token price, which the endpoint never sees
    (the stream reports no token counts): its estimate then covers the Retrieve calls only."""
    return settings.planner_type == "CUSTOM"


def estimated_cost_usd(stats: RunStats, settings: TenantSettings) -> float:
    """Bedrock's list price as AWS's sample records it (utils/kb_pricing.yaml; ledger rows in
    docs/facts-and-decisions.md): the managed planner's fee per AgenticRetrieveStream call (not for a
    CUSTOM planner, see `excludes_planner_model_cost`) + the underlying Retrieve calls, counted as the
    request's planner iterations — the endpoint's stand-in for TotalIterationCount, the proxy the
    sample prices them by (the service reports no per-call count of them)."""
    planner_fee = 0.0 if excludes_planner_model_cost(settings) else settings.agentic_price_per_1000_usd / 1000
    return round(planner_fee + settings.retrieve_price_per_1000_usd / 1000 * stats.iterations, 6)
