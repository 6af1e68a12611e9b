"""What a cache entry holds, and which finished requests may become one.

An entry keeps what a hit replays (the `text` and `result` events, in order), how the original
request ended (its stop reason and the path it took), when it was made, the version key it is
valid for, and the documents it shows, so a hit can re-check the caller's access to each of them.

Only a request that ended normally is stored: never one that ended in an error, at the
deadline or with the client gone, never one in which any step FAILED (a partial answer: some
knowledge base or retrieval is missing from it), never one in which the guardrail intervened,
and never one without a `result` event. `iteration_limit` answers are stored with that stop
reason, so a hit carries the same "possibly incomplete" label as the original.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from contract.events import Event, ResultEvent, TextEvent, TraceEvent, event_to_dict

CACHEABLE_STOP_REASONS = ("complete", "iteration_limit")
# Result metadata keys that name the source document (the ACL re-check's documentId) and its data
# source (ledger: result metadata keys).
DATA_SOURCE_ID_KEY = "x-amz-bedrock-kb-data-source-id"
DOCUMENT_ID_KEY = "x-amz-bedrock-kb-document-id"
SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"


@dataclass(frozen=True)
class DocumentRef:
    """One document an entry shows: enough to ask CheckIngestedDocumentAcl about it."""

    knowledge_base: str  # alias
    data_source_id: str | None
    document_id: str | None


@dataclass
class CachedEntry:
    created_at: float  # epoch seconds
    expires_at: float
    version_key: str
    stop_reason: str
    mode: str  # the path taken (auto -> retrieve | agentic)
    iterations: int
    events: list[dict[str, Any]]  # [{"type": "text" | "result", "data": {...}}]
    documents: list[DocumentRef] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> CachedEntry:
        data = json.loads(text)
        data["documents"] = [DocumentRef(**item) for item in data.get("documents", [])]
        return cls(**data)


def documents_of(result: ResultEvent) -> list[DocumentRef]:
    """Each distinct document a result shows (cited or not: the caller sees every result's text)."""
    refs: dict[tuple[str, str | None, str | None], DocumentRef] = {}
    for item in result.results:
        metadata = item.metadata or {}
        data_source = metadata.get(DATA_SOURCE_ID_KEY)
        document = metadata.get(DOCUMENT_ID_KEY) or metadata.get(SOURCE_URI_KEY) or item.documentId
        ref = DocumentRef(
            knowledge_base=item.knowledgeBase,
            data_source_id=data_source if isinstance(data_source, str) else None,
            document_id=document if isinstance(document, str) else None,
        )
        refs.setdefault((ref.knowledge_base, ref.data_source_id, ref.document_id), ref)
    return list(refs.values())


@dataclass
class EntryRecorder:
    """Watches one request's events as they stream and says whether its outcome may be stored."""

    events: list[dict[str, Any]] = field(default_factory=list)
    documents: list[DocumentRef] = field(default_factory=list)
    refused: str | None = None  # why not, once known
    has_result: bool = False

    def observe(self, event: Event) -> None:
        if isinstance(event, TraceEvent):
            if event.status == "FAILED":
                self.refused = self.refused or f"step {event.step} failed (partial answer)"
            if any(warning.action == "INTERVENED" for warning in event.guardrail):
                self.refused = self.refused or "the guardrail intervened"
        elif isinstance(event, TextEvent | ResultEvent):
            self.events.append({"type": event.type, "data": event_to_dict(event)})
            if isinstance(event, ResultEvent):
                self.has_result = True
                self.documents = documents_of(event)

    def refusal(self, stop_reason: str) -> str | None:
        """None when the request may be stored, else the reason it may not."""
        if stop_reason not in CACHEABLE_STOP_REASONS:
            return f"stop reason {stop_reason}"
        if self.refused:
            return self.refused
        if not self.has_result:
            return "no result event"
        return None
