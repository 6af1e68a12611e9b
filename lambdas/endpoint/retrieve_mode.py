"""`mode: retrieve`: one single-shot Retrieve per selected knowledge base, in parallel, fused with RRF.

Seed 000: Retrieve has no planner — the lowest cost and latency per call — and suits short,
well-bounded questions. Each knowledge base is searched with the question as is; their ranked
lists are fused with Reciprocal Rank Fusion (fusion.py; knowledge bases' scores are not on one
scale) and deduplicated by chunk, remembering every knowledge base that found a chunk. The stream
carries the same event types as agentic mode: one `Retrieval` trace per knowledge base as each
answers, then `result` (no generated answer: its `note` says so); the app adds `done`.

Request shape (botocore's service model, bedrock-agent-runtime `Retrieve`): `knowledgeBaseId`,
`retrievalQuery {text}`, `retrievalConfiguration {managedSearchConfiguration | vectorSearchConfiguration
{numberOfResults, filter}}`, optional `guardrailConfiguration` and `userContext`. The project deploys
MANAGED knowledge bases, so the request uses `managedSearchConfiguration` ("managed search
automatically determines the best search strategy"); whether Bedrock also accepts
`vectorSearchConfiguration` on a MANAGED knowledge base is UNVERIFIED.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from lambdas.endpoint.events import Event, GuardrailWarning, ResultEvent, ResultItem, SubQuery, TraceEvent
from lambdas.endpoint.fusion import chunk_key, reciprocal_rank_fusion
from lambdas.endpoint.settings import TenantSettings

SEARCH_CONFIGURATION = "managedSearchConfiguration"
RETRIEVAL_STEP = "Retrieval"
DOCUMENT_ID_KEY = "x-amz-bedrock-kb-document-id"
SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"
# Added to each fused result's metadata (x-akb-: this endpoint's keys, never Bedrock's).
FOUND_IN_KEY = "x-akb-found-in"
RRF_SCORE_KEY = "x-akb-rrf-score"


@dataclass(frozen=True)
class RetrieveQuery:
    """The parts of a request retrieve mode uses (the service's parsed query maps onto it)."""

    question: str
    knowledge_bases: Sequence[str]  # aliases, in the tenant's order
    max_results: int
    filter: Mapping[str, Any] | None = None
    user_id: str | None = None


@dataclass
class RetrieveStats:
    """What the request added up to, for `done`, logs and metrics."""

    calls: int = 0  # Retrieve calls that returned (billed)
    failed: int = 0
    results: int = 0
    distinct_documents: int = 0
    guardrail_interventions: int = 0
    first_event_at: float | None = None  # monotonic
    errors: list[BaseException] = field(default_factory=list)

    def estimated_cost_usd(self, settings: TenantSettings) -> float:
        """Retrieve's price per call only: no planner, no generation (seed 000: $1 per 1,000)."""
        return round(self.calls * settings.retrieve_price_per_1000_usd / 1000, 6)


def retrieve_request(
    knowledge_base_id: str, query: RetrieveQuery, settings: TenantSettings
) -> dict[str, Any]:
    """The boto3 `retrieve(**kwargs)` for one knowledge base."""
    search: dict[str, Any] = {"numberOfResults": query.max_results}
    if query.filter:
        search["filter"] = dict(query.filter)
    request: dict[str, Any] = {
        "knowledgeBaseId": knowledge_base_id,
        "retrievalQuery": {"text": query.question},
        "retrievalConfiguration": {SEARCH_CONFIGURATION: search},
    }
    if settings.guardrail_id and settings.guardrail_version:
        request["guardrailConfiguration"] = {
            "guardrailId": settings.guardrail_id,
            "guardrailVersion": settings.guardrail_version,
        }
    if query.user_id:
        request["userContext"] = {"userId": query.user_id}
    return request


def _document_of(result: Mapping[str, Any]) -> str | None:
    metadata = result.get("metadata") or {}
    value = result.get("documentId") or metadata.get(DOCUMENT_ID_KEY) or metadata.get(SOURCE_URI_KEY)
    return value if isinstance(value, str) and value else None


def fuse(lists: Mapping[str, Sequence[Mapping[str, Any]]], k: int) -> list[ResultItem]:
    """Per-alias Retrieve results -> one deduplicated, RRF-ordered list of ResultItems."""
    fused = reciprocal_rank_fusion(lists, chunk_key, k=k)
    items = []
    for entry in fused:
        result = entry.item
        metadata = dict(result.get("metadata") or {})
        metadata[FOUND_IN_KEY] = entry.sources
        metadata[RRF_SCORE_KEY] = round(entry.score, 6)
        items.append(
            ResultItem(
                knowledgeBase=min(entry.ranks, key=entry.ranks.get),  # the one that ranked it best
                text=(result.get("content") or {}).get("text") or "",
                metadata=metadata,
                documentId=_document_of(result),
            )
        )
    return items


def note_for(query: RetrieveQuery, k: int) -> str:
    count = len(query.knowledge_bases)
    return (
        f"retrieve mode: single-shot Retrieve on {count} knowledge base{'s' * (count != 1)}, fused with "
        f"Reciprocal Rank Fusion (k={k}); no generated answer"
    )


def run_retrieve(
    client: Any,
    settings: TenantSettings,
    query: RetrieveQuery,
    stats: RetrieveStats,
    describe_error: Callable[[BaseException], str],
    started_at: float | None = None,
) -> Iterator[Event]:
    """Yields one Retrieval trace per knowledge base (as each answers), then the fused result.

    A knowledge base that fails yields a FAILED trace and the others still count; when every one
    fails, the first error is raised after the traces so the app maps it like any upstream error.
    """
    started_at = time.monotonic() if started_at is None else started_at
    ids = {retriever.alias: retriever.knowledge_base_id for retriever in settings.retrievers}
    lists: dict[str, list[Mapping[str, Any]]] = {alias: [] for alias in query.knowledge_bases}

    def elapsed() -> int:
        return int((time.monotonic() - started_at) * 1000)

    def mark_first() -> None:
        if stats.first_event_at is None:
            stats.first_event_at = time.monotonic()

    with ThreadPoolExecutor(max_workers=max(1, len(query.knowledge_bases))) as pool:
        futures = {
            pool.submit(client.retrieve, **retrieve_request(ids[alias], query, settings)): alias
            for alias in query.knowledge_bases
        }
        for future in as_completed(futures):
            alias = futures[future]
            sub_query = [SubQuery(text=query.question, knowledgeBases=[alias])]
            try:
                response = future.result()
            except Exception as error:  # one knowledge base failing must not hide the others
                stats.failed += 1
                stats.errors.append(error)
                mark_first()
                yield TraceEvent(
                    step=RETRIEVAL_STEP,
                    status="FAILED",
                    elapsedMs=elapsed(),
                    message=f"Retrieve on {alias} failed",
                    subQueries=sub_query,
                    failures=[describe_error(error)],
                )
                continue
            stats.calls += 1
            results = list(response.get("retrievalResults") or [])
            lists[alias] = results
            guardrail = []
            if response.get("guardrailAction") == "INTERVENED":
                stats.guardrail_interventions += 1
                guardrail = [GuardrailWarning("INTERVENED", settings.guardrail_id, settings.guardrail_version)]
            mark_first()
            yield TraceEvent(
                step=RETRIEVAL_STEP,
                status="SUCCEEDED",
                elapsedMs=elapsed(),
                message=f"Retrieve on {alias}",
                subQueries=sub_query,
                retrievedCount=len(results),
                documents=list(dict.fromkeys(d for d in map(_document_of, results) if d)),
                guardrail=guardrail,
            )
    if stats.calls == 0 and stats.errors:
        raise stats.errors[0]
    k = settings.routing.rrf_k
    items = fuse({alias: lists[alias] for alias in query.knowledge_bases}, k)
    stats.results = len(items)
    stats.distinct_documents = len({item.documentId or item.text for item in items})
    mark_first()
    yield ResultEvent(results=items, answer=None, note=note_for(query, k))
