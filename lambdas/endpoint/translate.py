"""Bedrock's AgenticRetrieveStream events -> the endpoint's events (events.py), plus what they add up to.

Knowledge-base ids become the tenant's aliases (clients never see raw ids unless Bedrock names one
the tenant does not have), results are deduplicated (citations re-pointed at the deduplicated
list), and the answer is sent once: `responseEvent` texts become `text` deltas and the final
`generatedResponse.answer` rides only in the `result` event, for readers that join late.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lambdas.endpoint.events import (
    Citation,
    Event,
    GuardrailWarning,
    ResultEvent,
    ResultItem,
    SubQuery,
    TextEvent,
    TraceEvent,
)
from lambdas.endpoint.redaction import redact

# Metadata keys Bedrock puts on results; the first present one identifies the source document.
DOCUMENT_ID_KEYS = ("x-amz-bedrock-kb-document-id", "x-amz-bedrock-kb-source-uri")
CHUNK_ID_KEY = "x-amz-bedrock-kb-chunk-id"
RETRIEVAL_STEPS = frozenset({"Retrieval", "SpeculativeRetrieval"})
TERMINAL = frozenset({"SUCCEEDED", "FAILED"})


@dataclass
class RunStats:
    """What one request added up to: read by the `done` event, the logs and the metrics."""

    iterations: int = 0  # distinct Planning steps
    sub_queries: int = 0  # retrieve actions run (each one underlying Retrieve call)
    results: int = 0
    distinct_documents: int = 0
    cited_results: int = 0
    guardrail_interventions: int = 0
    first_event_at: float | None = None  # monotonic
    upstream_request_id: str | None = None
    mode: str | None = None  # the path taken when it differs from the request's (auto -> retrieve | agentic)
    failed_knowledge_bases: list[str] = field(default_factory=list)  # aliases whose retrieval failed
    sources_failed: bool = False  # a retrieval failed (even one that named no knowledge base)

    def knowledge_bases_failed(self, aliases: Iterable[str]) -> None:
        self.sources_failed = True
        for alias in aliases:
            if alias not in self.failed_knowledge_bases:
                self.failed_knowledge_bases.append(alias)


@dataclass
class _OpenStep:
    step: str
    retrieve_actions: int


def _aliases(identifiers: Iterable[Any], alias_of: Mapping[str, str]) -> list[str]:
    out = []
    for item in identifiers:
        identifier = item.get("identifier") if isinstance(item, dict) else None
        if isinstance(identifier, str):
            out.append(alias_of.get(identifier, identifier))
    return out


def _document_id(metadata: Mapping[str, Any]) -> str | None:
    for key in DOCUMENT_ID_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return None


@dataclass
class Translator:
    """Stateful: one per request, fed every upstream event in order."""

    alias_of: Mapping[str, str]  # knowledge-base id -> alias
    started_at: float = field(default_factory=time.monotonic)
    stats: RunStats = field(default_factory=RunStats)
    _open: dict[str, _OpenStep] = field(default_factory=dict)

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started_at) * 1000)

    def _redacted(self, message: Any) -> Any:
        return redact(message, self.alias_of) if isinstance(message, str) else message

    def translate(self, upstream: Mapping[str, Any]) -> list[Event]:
        if self.stats.first_event_at is None:
            self.stats.first_event_at = time.monotonic()
        if "traceEvent" in upstream:
            return [self._trace(upstream["traceEvent"].get("attributes") or {})]
        if "responseEvent" in upstream:
            text = upstream["responseEvent"].get("text") or ""
            return [TextEvent(delta=text)] if text else []
        if "result" in upstream:
            return [self._result(upstream["result"])]
        return []  # a member this version does not know: skipped, never fatal

    def _count_step(self, step: str, status: str, retrieve_actions: int) -> None:
        """A step is one IN_PROGRESS..SUCCEEDED|FAILED pair; a lone terminal event is a step too."""
        opened = self._open.get(step)
        if status == "IN_PROGRESS":
            if opened is None:
                self._begin(step, retrieve_actions)
            else:
                opened.retrieve_actions = max(opened.retrieve_actions, retrieve_actions)
            return
        if status in TERMINAL:
            if opened is None:
                self._begin(step, retrieve_actions)
                opened = self._open[step]
            elif retrieve_actions > opened.retrieve_actions and step in RETRIEVAL_STEPS:
                self.stats.sub_queries += retrieve_actions - opened.retrieve_actions
            del self._open[step]

    def _begin(self, step: str, retrieve_actions: int) -> None:
        self._open[step] = _OpenStep(step, retrieve_actions)
        if step == "Planning":
            self.stats.iterations += 1
        elif step in RETRIEVAL_STEPS:
            self.stats.sub_queries += retrieve_actions

    def _trace(self, attributes: Mapping[str, Any]) -> TraceEvent:
        step = str(attributes.get("step", "Unknown"))
        status = str(attributes.get("status", "UNKNOWN"))
        sub_queries: list[SubQuery] = []
        documents: list[str] = []
        for action in attributes.get("actions") or []:
            retrieve = action.get("retrieve") if isinstance(action, dict) else None
            if isinstance(retrieve, dict):
                text = (retrieve.get("inputQuery") or {}).get("text") or ""
                sub_queries.append(
                    SubQuery(
                        text=text,
                        knowledgeBases=_aliases(retrieve.get("sourceRetrievers") or [], self.alias_of),
                    )
                )
            expansion = action.get("fullDocumentExpansion") if isinstance(action, dict) else None
            if isinstance(expansion, dict) and expansion.get("documentId"):
                documents.append(str(expansion["documentId"]))
        self._count_step(step, status, len(sub_queries))
        if step in RETRIEVAL_STEPS and status == "FAILED":  # a source ran out: the answer is partial
            self.stats.knowledge_bases_failed(a for sub in sub_queries for a in sub.knowledgeBases)
        warnings = []
        for warning in attributes.get("warnings") or []:
            guardrail = warning.get("guardrail") if isinstance(warning, dict) else None
            if isinstance(guardrail, dict):
                action = str(guardrail.get("action", "NONE"))
                warnings.append(
                    GuardrailWarning(action=action, id=guardrail.get("id"), version=guardrail.get("version"))
                )
                if action == "INTERVENED" and status in TERMINAL:
                    self.stats.guardrail_interventions += 1
        return TraceEvent(
            step=step,
            status=status,
            elapsedMs=self._elapsed_ms(),
            message=self._redacted(attributes.get("message")),
            subQueries=sub_queries,
            retrievedCount=len(attributes.get("retrievalResponse") or []),
            documents=documents,
            # Bedrock's failure texts can name ARNs and the account: callers get them redacted.
            failures=[
                redact(str(f.get("message", "")), self.alias_of)
                for f in attributes.get("failures") or []
                if isinstance(f, dict)
            ],
            guardrail=warnings,
        )

    def _result(self, result: Mapping[str, Any]) -> ResultEvent:
        items: list[ResultItem] = []
        position: dict[tuple[str, str], int] = {}  # dedup key -> index in `items`
        remap: dict[int, int] = {}  # upstream result index -> index in `items`
        for index, raw in enumerate(result.get("results") or []):
            content = raw.get("content") or {}
            metadata = dict(raw.get("metadata") or {})
            identifier = (raw.get("sourceRetriever") or {}).get("identifier") or ""
            alias = self.alias_of.get(identifier, identifier)
            text = content.get("text") or ""
            key = (alias, str(metadata.get(CHUNK_ID_KEY) or text))
            if key not in position:
                position[key] = len(items)
                items.append(
                    ResultItem(knowledgeBase=alias, text=text, metadata=metadata, documentId=_document_id(metadata))
                )
            remap[index] = position[key]
        generated = result.get("generatedResponse") or {}
        citations = []
        cited: set[int] = set()
        for citation in generated.get("citations") or []:
            indices = []
            for reference in citation.get("references") or []:
                mapped = remap.get(reference.get("resultIndex"))
                if mapped is not None and mapped not in indices:
                    indices.append(mapped)
            cited.update(indices)
            citations.append(
                Citation(
                    start=int(citation.get("startIndex", 0)),
                    end=int(citation.get("endIndex", 0)),
                    results=indices,
                )
            )
        self.stats.results = len(items)
        self.stats.distinct_documents = len({(i.knowledgeBase, i.documentId or i.text) for i in items})
        self.stats.cited_results = len(cited)
        return ResultEvent(results=items, answer=generated.get("answer"), citations=citations)
