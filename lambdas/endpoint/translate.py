"""Bedrock's AgenticRetrieveStream events -> the endpoint's events (events.py), plus what they add up to.

Knowledge-base ids become the tenant's aliases (clients never see raw ids unless Bedrock names one
the tenant does not have), results are deduplicated (citations re-pointed at the deduplicated
list), and the answer is sent once: `responseEvent` texts become `text` deltas and the final
`generatedResponse.answer` rides only in the `result` event, for readers that join late.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from contract.events import (
    AppliedInstruction,
    Citation,
    CodeExecution,
    Event,
    GuardrailWarning,
    MemoryRetrieve,
    ResultEvent,
    ResultItem,
    RetrievalSource,
    SubQuery,
    TextEvent,
    TraceEvent,
)
from lambdas.endpoint.redaction import redact
from lambdas.endpoint.run_stats import RunStats

# Metadata keys Bedrock puts on results; the first present one identifies the source document.
DOCUMENT_ID_KEYS = ("x-amz-bedrock-kb-document-id", "x-amz-bedrock-kb-source-uri")
CHUNK_ID_KEY = "x-amz-bedrock-kb-chunk-id"
RETRIEVAL_STEPS = frozenset({"Retrieval", "SpeculativeRetrieval"})
TERMINAL = frozenset({"SUCCEEDED", "FAILED"})
# Non-text result bytes up to this size ride in the stream (base64); larger ones are summarized
# (type, size, source) so one image cannot balloon a frame. Documented in docs/endpoint.md.
INLINE_BYTES_LIMIT = 16 * 1024
CONTENT_TYPES = {"text": "TEXT", "image": "IMAGE", "audio": "AUDIO", "video": "VIDEO"}


@dataclass
class Tally:
    """The counts one Translator keeps while the stream runs (its own; others read `Translator.stats`)."""

    iterations: int = 0  # distinct Planning steps
    sub_queries: int = 0  # retrieve actions run (each one underlying Retrieve call)
    results: int = 0
    distinct_documents: int = 0
    cited_results: int = 0
    guardrail_interventions: int = 0
    failed_knowledge_bases: list[str] = field(default_factory=list)  # aliases whose retrieval failed
    sources_failed: bool = False  # a retrieval failed (even one that named no knowledge base)
    next_token: str | None = None  # the result's nextToken: there is another page

    def knowledge_bases_failed(self, aliases: Iterable[str]) -> None:
        self.sources_failed = True
        for alias in aliases:
            if alias not in self.failed_knowledge_bases:
                self.failed_knowledge_bases.append(alias)

    def snapshot(self) -> RunStats:
        return RunStats(
            iterations=self.iterations,
            sub_queries=self.sub_queries,
            results=self.results,
            distinct_documents=self.distinct_documents,
            cited_results=self.cited_results,
            guardrail_interventions=self.guardrail_interventions,
            failed_knowledge_bases=tuple(self.failed_knowledge_bases),
            sources_failed=self.sources_failed,
            next_token=self.next_token,
        )


@dataclass
class _Actions:
    sub_queries: list[SubQuery] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)  # the knowledge base of each document ("" if unnamed)
    code: list[CodeExecution] = field(default_factory=list)
    memory: list[MemoryRetrieve] = field(default_factory=list)


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


def content_type(mime_type: str | None) -> str | None:
    """TEXT | IMAGE | AUDIO | VIDEO from the mime type's major type; OTHER for anything else."""
    if not mime_type:
        return None
    return CONTENT_TYPES.get(mime_type.split("/", 1)[0].strip().lower(), "OTHER")


def _bytes_of(content: Mapping[str, Any]) -> bytes | None:
    raw = content.get("byteContent")
    if isinstance(raw, bytes | bytearray):
        return bytes(raw)
    if isinstance(raw, str):  # a JSON reader that left the blob base64-encoded
        try:
            return base64.b64decode(raw, validate=True)
        except ValueError:
            return raw.encode("utf-8")
    return None


def result_item(alias: str, raw: Mapping[str, Any]) -> ResultItem:
    """One upstream result: text as is; bytes inlined only under INLINE_BYTES_LIMIT, else summarized."""
    content = raw.get("content") or {}
    metadata = dict(raw.get("metadata") or {})
    mime_type = content.get("mimeType") if isinstance(content.get("mimeType"), str) else None
    data = _bytes_of(content)
    inline = data is not None and len(data) <= INLINE_BYTES_LIMIT
    return ResultItem(
        knowledgeBase=alias,
        text=content.get("text") or "",
        metadata=metadata,
        documentId=_document_id(metadata),
        mimeType=mime_type,
        contentType=content_type(mime_type),
        byteSize=None if data is None else len(data),
        byteContent=base64.b64encode(data).decode("ascii") if inline and data is not None else None,
    )


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
    tally: Tally = field(default_factory=Tally)
    _open: dict[str, _OpenStep] = field(default_factory=dict)

    @property
    def stats(self) -> RunStats:
        """What the stream added up to so far (a snapshot: the counts stay the translator's)."""
        return self.tally.snapshot()

    def _elapsed_ms(self) -> int:
        return int((time.monotonic() - self.started_at) * 1000)

    def _redacted(self, message: Any) -> Any:
        return redact(message, self.alias_of) if isinstance(message, str) else message

    def translate(self, upstream: Mapping[str, Any]) -> list[Event]:
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
                self.tally.sub_queries += retrieve_actions - opened.retrieve_actions
            del self._open[step]

    def _begin(self, step: str, retrieve_actions: int) -> None:
        self._open[step] = _OpenStep(step, retrieve_actions)
        if step == "Planning":
            self.tally.iterations += 1
        elif step in RETRIEVAL_STEPS:
            self.tally.sub_queries += retrieve_actions

    def _actions(self, actions: Iterable[Any]) -> _Actions:
        """The trace's actions by kind (retrieve, fullDocumentExpansion, codeExecution, memoryRetrieve)."""
        out = _Actions()
        for action in actions:
            if not isinstance(action, dict):
                continue
            retrieve = action.get("retrieve")
            if isinstance(retrieve, dict):
                text = (retrieve.get("inputQuery") or {}).get("text") or ""
                sources = _aliases(retrieve.get("sourceRetrievers") or [], self.alias_of)
                out.sub_queries.append(SubQuery(text=text, knowledgeBases=sources))
            expansion = action.get("fullDocumentExpansion")
            if isinstance(expansion, dict) and expansion.get("documentId"):
                out.documents.append(str(expansion["documentId"]))
                (source,) = _aliases([expansion.get("sourceRetriever") or {}], self.alias_of) or [""]
                out.sources.append(source)
            code = action.get("codeExecution")
            if isinstance(code, dict):
                out.code.append(CodeExecution(documents=self._code_documents(code.get("documents") or [])))
            memory = action.get("memoryRetrieve")
            if isinstance(memory, dict):
                out.memory.append(
                    MemoryRetrieve(
                        query=str((memory.get("inputQuery") or {}).get("text") or ""),
                        memoryId=memory.get("memoryId"),
                        namespace=memory.get("namespace"),
                        namespacePath=memory.get("namespacePath"),
                        strategyId=memory.get("strategyId"),
                    )
                )
        return out

    def _code_documents(self, documents: Iterable[Any]) -> list[str]:
        out = []
        for document in documents:
            if isinstance(document, dict) and document.get("documentId"):
                (alias,) = _aliases([document.get("sourceRetriever") or {}], self.alias_of) or [""]
                out.append(f"{alias}/{document['documentId']}" if alias else str(document["documentId"]))
        return out

    def _warnings(self, attributes: Mapping[str, Any], status: str) -> tuple[list[GuardrailWarning], list[str]]:
        guardrails, messages = [], []
        for warning in attributes.get("warnings") or []:
            if not isinstance(warning, dict):
                continue
            guardrail = warning.get("guardrail")
            if isinstance(guardrail, dict):
                action = str(guardrail.get("action", "NONE"))
                guardrails.append(
                    GuardrailWarning(
                        action=action,
                        id=guardrail.get("id"),
                        version=guardrail.get("version"),
                        message=self._redacted(guardrail.get("message")),
                    )
                )
                if action == "INTERVENED" and status in TERMINAL:
                    self.tally.guardrail_interventions += 1
            plain = warning.get("message")
            if isinstance(plain, dict) and plain.get("message"):
                messages.append(redact(str(plain["message"]), self.alias_of))
        return guardrails, messages

    def _trace(self, attributes: Mapping[str, Any]) -> TraceEvent:
        step = str(attributes.get("step", "Unknown"))
        status = str(attributes.get("status", "UNKNOWN"))
        actions = self._actions(attributes.get("actions") or [])
        self._count_step(step, status, len(actions.sub_queries))
        if step in RETRIEVAL_STEPS and status == "FAILED":  # a source ran out: the answer is partial
            self.tally.knowledge_bases_failed(a for sub in actions.sub_queries for a in sub.knowledgeBases)
        guardrails, warnings = self._warnings(attributes, status)
        applied = attributes.get("appliedInstruction")
        return TraceEvent(
            step=step,
            status=status,
            elapsedMs=self._elapsed_ms(),
            message=self._redacted(attributes.get("message")),
            subQueries=actions.sub_queries,
            retrievedCount=len(attributes.get("retrievalResponse") or []),
            documents=actions.documents,
            documentSources=actions.sources if any(actions.sources) else [],
            # Bedrock's failure texts can name ARNs and the account: callers get them redacted.
            failures=[
                redact(str(f.get("message", "")), self.alias_of)
                for f in attributes.get("failures") or []
                if isinstance(f, dict)
            ],
            guardrail=guardrails,
            warnings=warnings,
            codeExecutions=actions.code,
            memoryRetrieves=actions.memory,
            appliedInstruction=(
                AppliedInstruction(id=str(applied["id"]), version=applied.get("version"))
                if isinstance(applied, dict) and applied.get("id")
                else None
            ),
            retrievalSources=[
                RetrievalSource(
                    source=self.alias_of.get(str(m.get("identifier")), str(m.get("identifier"))),
                    retrievalType=m.get("retrievalType"),
                )
                for m in attributes.get("retrievalMetadata") or []
                if isinstance(m, dict) and m.get("identifier")
            ],
        )

    def _result(self, result: Mapping[str, Any]) -> ResultEvent:
        items: list[ResultItem] = []
        position: dict[tuple[str, str], int] = {}  # dedup key -> index in `items`
        remap: dict[int, int] = {}  # upstream result index -> index in `items`
        for index, raw in enumerate(result.get("results") or []):
            identifier = (raw.get("sourceRetriever") or {}).get("identifier") or ""
            item = result_item(self.alias_of.get(identifier, identifier), raw)
            key = (item.knowledgeBase, str(item.metadata.get(CHUNK_ID_KEY) or item.text or item.byteContent))
            if key not in position:
                position[key] = len(items)
                items.append(item)
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
        self.tally.results = len(items)
        self.tally.distinct_documents = len({(i.knowledgeBase, i.documentId or i.text) for i in items})
        self.tally.cited_results = len(cited)
        token = result.get("nextToken")
        self.tally.next_token = token if isinstance(token, str) and token else None
        return ResultEvent(results=items, answer=generated.get("answer"), citations=citations)
