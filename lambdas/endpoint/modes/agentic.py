"""`mode: agentic` — one AgenticRetrieveStream call; Bedrock plans, retrieves and answers.

Request shapes are botocore's (bedrock-agent-runtime `AgenticRetrieveStream`; docs/facts-and-decisions.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from contract.events import Event
from contract.settings import TenantSettings
from lambdas.endpoint.request import Query
from lambdas.endpoint.retry import RetryPolicy
from lambdas.endpoint.translate import RunStats, Translator
from lambdas.endpoint.upstream import close_event_stream

NAME = "agentic"


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
    def __init__(self, stream: Any, translator: Translator) -> None:
        self._stream = stream
        self._translator = translator
        self.stats: RunStats = translator.stats

    def __iter__(self) -> Iterator[Event]:
        for raw in self._stream:  # blocks between events; botocore yields each as its bytes arrive
            yield from self._translator.translate(raw)

    def close(self) -> None:
        close_event_stream(self._stream)


def open(
    client: Any, request: dict[str, Any], translator: Translator, policy: RetryPolicy | None = None
) -> AgenticUpstream:
    """One call; the relay retries it as a whole (with `policy`), so it is not used here."""
    response = client.agentic_retrieve_stream(**request)
    translator.stats.upstream_request_id = (response.get("ResponseMetadata") or {}).get("RequestId")
    return AgenticUpstream(response["stream"], translator)


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
