"""`mode: retrieve` — one single-shot Retrieve per selected knowledge base, in parallel, fused with RRF.

Retrieve has no planner — the lowest cost and latency per call — and suits short,
well-bounded questions (docs/facts-and-decisions.md). Each knowledge base is searched with the question (the last user
message) as is; the ranked lists are fused with Reciprocal Rank Fusion (fusion.py: scores of
different knowledge bases are not on one scale) and deduplicated by chunk, remembering every
knowledge base that found a chunk. The stream carries the same event types as agentic mode: one
`Retrieval` trace per knowledge base, then `result` with no answer (its `note` says so); the
handler adds `done`. `generateResponse` and `maxAgentIteration` do not apply.

The calls run inside `open()`, each retried on its own like agentic mode's stream (throttling,
transient 5xx, connection failures; the request's retry.RetryPolicy: bounded attempts, backoff
with full jitter, never past the deadline). When every knowledge base still fails, the error
surfaces before the first event and is answered with an HTTP status like any upstream failure;
when only some fail, each failure is a FAILED trace naming the alias and the error, the others
still count, and `done` says `stopReason: partial` with the failed aliases — results from some
knowledge bases are never presented as a complete answer.

Request shape (botocore's service model, bedrock-agent-runtime `Retrieve`): `knowledgeBaseId`,
`retrievalQuery {text}`, `retrievalConfiguration {managedSearchConfiguration |
vectorSearchConfiguration: {numberOfResults, filter}}`, optional `guardrailConfiguration` and
`userContext`. The project deploys MANAGED knowledge bases, so the request uses
`managedSearchConfiguration` ("managed search automatically determines the best search strategy");
AWS's sample (utils/managed_knowledge_base.py) reports the service rejecting `vectorSearchConfiguration`
on MANAGED knowledge bases (docs/facts-and-decisions.md, Ledger).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from typing import Any, Final

from contract.enums import StopReason
from contract.events import Event, GuardrailWarning, ResultEvent, ResultItem, SubQuery, TraceEvent
from contract.settings import TenantSettings
from lambdas.endpoint.api_errors import classify
from lambdas.endpoint.fusion import chunk_key, reciprocal_rank_fusion
from lambdas.endpoint.modes import CallContext
from lambdas.endpoint.modes.stream_integrity import StreamBroken
from lambdas.endpoint.request import Query
from lambdas.endpoint.retry import RetryPolicy, mark_exhausted
from lambdas.endpoint.run_stats import RunStats
from lambdas.endpoint.translate import Tally

NAME: Final = "retrieve"
SEARCH_CONFIGURATION = "managedSearchConfiguration"
RETRIEVAL_STEP = "Retrieval"
DOCUMENT_ID_KEY = "x-amz-bedrock-kb-document-id"
SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"
# Added to each fused result's metadata (x-akb-: this endpoint's keys, never Bedrock's).
FOUND_IN_KEY = "x-akb-found-in"
RRF_SCORE_KEY = "x-akb-rrf-score"


def retrieve_call(knowledge_base_id: str, query: Query, settings: TenantSettings, user_id: str | None) -> dict:
    """The boto3 `retrieve(**kwargs)` for one knowledge base."""
    search: dict[str, Any] = {"numberOfResults": query.max_results}
    if query.filter is not None:
        search["filter"] = query.filter
    call: dict[str, Any] = {
        "knowledgeBaseId": knowledge_base_id,
        "retrievalQuery": {"text": query.question},
        "retrievalConfiguration": {SEARCH_CONFIGURATION: search},
    }
    if settings.guardrail_id and settings.guardrail_version:
        call["guardrailConfiguration"] = {
            "guardrailId": settings.guardrail_id,
            "guardrailVersion": settings.guardrail_version,
        }
    if user_id is not None:
        call["userContext"] = {"userId": user_id}
    return call


def note_for(count: int, k: int) -> str:
    return (
        f"retrieve mode: single-shot Retrieve on {count} knowledge base{'s' * (count != 1)}, fused with "
        f"Reciprocal Rank Fusion (k={k}); no generated answer"
    )


def build_request(query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
    """Every Retrieve call of the request, by alias in the tenant's order (pure; tests compare it whole)."""
    calls = {}
    for alias in query.knowledge_bases:
        retriever = settings.require_retriever(alias)
        calls[alias] = retrieve_call(retriever.knowledge_base_id, query, settings, user_id)
    return {
        "question": query.question,
        "calls": calls,
        "rrfK": settings.routing.rrf_k,
        "note": note_for(len(calls), settings.routing.rrf_k),
    }


def _document_of(result: Mapping[str, Any]) -> str | None:
    metadata = result.get("metadata") or {}
    value = result.get("documentId") or metadata.get(DOCUMENT_ID_KEY) or metadata.get(SOURCE_URI_KEY)
    return value if isinstance(value, str) and value else None


def fuse(lists: Mapping[str, Sequence[Mapping[str, Any]]], k: int) -> list[ResultItem]:
    """Per-alias Retrieve results -> one deduplicated, RRF-ordered list of ResultItems."""
    items = []
    for entry in reciprocal_rank_fusion(lists, chunk_key, k=k):
        result = entry.item
        metadata = dict(result.get("metadata") or {})
        metadata[FOUND_IN_KEY] = entry.sources
        metadata[RRF_SCORE_KEY] = round(entry.score, 6)
        items.append(
            ResultItem(
                knowledgeBase=min(entry.ranks, key=entry.ranks.__getitem__),  # the one that ranked it best
                text=(result.get("content") or {}).get("text") or "",
                metadata=metadata,
                documentId=_document_of(result),
            )
        )
    return items


@dataclass(frozen=True)
class Outcome:
    alias: str
    elapsed_ms: int
    response: Mapping[str, Any] | None = None
    error: BaseException | None = None


def _well_formed(client: Any, call: dict[str, Any]) -> Mapping[str, Any]:
    """One Retrieve; a response without the list of results botocore's model requires is broken,
    never an empty answer (stream_integrity.py explains why botocore does not refuse it itself)."""
    try:
        response = client.retrieve(**call)
    except (AttributeError, TypeError, KeyError) as error:  # botocore's parser on a malformed body
        raise StreamBroken(f"an unreadable Retrieve response from Bedrock ({type(error).__name__})") from error
    results = response.get("retrievalResults")
    if not isinstance(results, list) or not all(isinstance(item, Mapping) for item in results):
        raise StreamBroken("a Retrieve response from Bedrock whose retrievalResults is not a list of results")
    return response


def _call_all(client: Any, calls: Mapping[str, dict], started_at: float, policy: RetryPolicy) -> list[Outcome]:
    """Every call in parallel, each with its own retries; outcomes in the order they completed.

    Each call runs in a copy of the caller's context, so it belongs to the request's
    upstream.CallScope and is cut off when the request ends (deadline, client gone)."""
    outcomes = []
    with ThreadPoolExecutor(max_workers=max(1, len(calls)), thread_name_prefix="akb-retrieve") as pool:
        futures = {
            pool.submit(contextvars.copy_context().run, policy.run, lambda call=call: _well_formed(client, call)): alias
            for alias, call in calls.items()
        }
        for future in as_completed(futures):
            elapsed = int((time.monotonic() - started_at) * 1000)
            try:
                outcomes.append(Outcome(futures[future], elapsed, response=future.result()))
            except Exception as error:  # one knowledge base failing must not hide the others
                outcomes.append(Outcome(futures[future], elapsed, error=error))
    return outcomes


class RetrieveUpstream:
    """The finished calls as endpoint events: a trace per knowledge base, then the fused result."""

    def __init__(self, request: Mapping[str, Any], outcomes: list[Outcome], call: CallContext) -> None:
        self._request = request
        self._outcomes = outcomes
        self._alias_of = call.alias_of
        self._settings = call.settings
        order = list(request["calls"])
        self._tally = Tally(sub_queries=sum(1 for outcome in outcomes if outcome.error is None))
        failed = sorted((o.alias for o in outcomes if o.error is not None), key=order.index)
        if failed:
            self._tally.knowledge_bases_failed(failed)
        self._ended = False

    def __iter__(self) -> Iterator[Event]:
        lists: dict[str, list[Mapping[str, Any]]] = {alias: [] for alias in self._request["calls"]}
        for outcome in self._outcomes:
            if outcome.error is not None:
                yield self._failed_trace(outcome, outcome.error)
                continue
            if outcome.response is None:  # a call without an error has a response; never guess one
                raise RuntimeError(f"Retrieve on {outcome.alias} returned neither a response nor an error")
            results = list(outcome.response["retrievalResults"])
            lists[outcome.alias] = results
            guardrail = []
            if outcome.response.get("guardrailAction") == "INTERVENED":
                self._tally.guardrail_interventions += 1
                config = self._request["calls"][outcome.alias].get("guardrailConfiguration") or {}
                guardrail = [GuardrailWarning("INTERVENED", config.get("guardrailId"), config.get("guardrailVersion"))]
            yield TraceEvent(
                step=RETRIEVAL_STEP,
                status="SUCCEEDED",
                elapsedMs=outcome.elapsed_ms,
                message=f"Retrieve on {outcome.alias}",
                subQueries=[SubQuery(text=self._request["question"], knowledgeBases=[outcome.alias])],
                retrievedCount=len(results),
                documents=list(dict.fromkeys(d for d in map(_document_of, results) if d)),
                guardrail=guardrail,
            )
        items = fuse(lists, self._request["rrfK"])
        self._tally.results = len(items)
        self._tally.distinct_documents = len({item.documentId or item.text for item in items})
        yield ResultEvent(results=items, answer=None, note=self._request["note"])
        self._ended = True

    def _failed_trace(self, outcome: Outcome, error: BaseException) -> TraceEvent:
        failure = classify(error, self._alias_of)  # message without ARNs or account ids
        return TraceEvent(
            step=RETRIEVAL_STEP,
            status="FAILED",
            elapsedMs=outcome.elapsed_ms,
            message=(
                f"Retrieve on {outcome.alias} failed ({failure.code}); "
                f"the results below leave out knowledge base {outcome.alias}"
            ),
            subQueries=[SubQuery(text=self._request["question"], knowledgeBases=[outcome.alias])],
            failures=[f"{failure.code}: {failure.message}"],
        )

    def close(self) -> None:
        """Nothing stays open: every call finished inside `open()`."""

    @property
    def stats(self) -> RunStats:
        counted = replace(self._tally.snapshot(), mode=NAME)
        ended: StopReason = "partial" if counted.sources_failed else "complete"
        return replace(
            counted,
            stop_reason=ended if self._ended else None,
            estimated_cost_usd=estimated_cost_usd(counted, self._settings),
        )


def open(request: dict[str, Any], call: CallContext) -> RetrieveUpstream:
    """Runs every Retrieve now (each retried per the request's policy); raises the first error (in the
    tenant's order) when all of them failed, flagged so the relay does not retry the whole set again."""
    outcomes = _call_all(call.client, request["calls"], call.started_at, call.policy)
    order = list(request["calls"])
    if outcomes and all(outcome.error is not None for outcome in outcomes):
        first = min(outcomes, key=lambda outcome: order.index(outcome.alias))
        raise mark_exhausted(first.error or RuntimeError(f"Retrieve on {first.alias} failed without an error"))
    return RetrieveUpstream(request, outcomes, call)


class RetrieveMode:
    name: Final = NAME

    def build_request(self, query: Query, settings: TenantSettings, user_id: str | None) -> dict[str, Any]:
        return build_request(query, settings, user_id)

    def open(self, request: dict[str, Any], call: CallContext) -> RetrieveUpstream:
        return open(request, call)


def estimated_cost_usd(stats: RunStats, settings: TenantSettings) -> float:
    """Retrieve's list price per call only: no planner, no generation (USD 1 per 1,000; docs/facts-and-decisions.md)."""
    return round(settings.retrieve_price_per_1000_usd / 1000 * stats.sub_queries, 6)
