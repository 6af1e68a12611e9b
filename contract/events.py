"""The endpoint's stream events: one definition shared by the service, the client and the tests.

Every event is a small JSON object. SSE frames it as `event: <type>` + `data: <json>`; NDJSON as
one `{"type": <type>, ...}` line. The field names below are the public contract (camelCase, as
the HTTP API is).

The events are dataclasses, which the service builds by the thousand without validation cost;
the client rebuilds them from JSON with strict_json.py, which checks every field's JSON type and the
nested items and ignores unknown fields (a newer server may add some).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from contract import strict_json
from contract.enums import CacheOutcome, StopReason


@dataclass(frozen=True)
class SubQuery:
    text: str
    knowledgeBases: list[str]


@dataclass(frozen=True)
class GuardrailWarning:
    action: str
    id: str | None = None
    version: str | None = None
    message: str | None = None


@dataclass(frozen=True)
class CodeExecution:
    """A CodeExecution action: the planner ran code over these documents (e.g. arithmetic)."""

    documents: list[str] = field(default_factory=list)  # "<knowledge base alias>/<document id>"


@dataclass(frozen=True)
class MemoryRetrieve:
    """A memoryRetrieve action: the planner read long-term memory (AgentCore Memory)."""

    query: str
    memoryId: str | None = None
    namespace: str | None = None
    namespacePath: str | None = None
    strategyId: str | None = None


@dataclass(frozen=True)
class AppliedInstruction:
    """Which retrieval instruction (and version) Bedrock applied to the plan."""

    id: str
    version: str | None = None


@dataclass(frozen=True)
class RetrievalSource:
    """retrievalMetadata: a source the step read and its kind (BedrockKnowledgeBase | BedrockAgentCoreMemory)."""

    source: str  # knowledge base alias (or the raw identifier when the tenant has no alias for it)
    retrievalType: str | None = None


@dataclass(frozen=True)
class TraceEvent:
    """One planner step as it starts (IN_PROGRESS) and ends (SUCCEEDED | FAILED)."""

    type: ClassVar[str] = "trace"
    step: str
    status: str
    elapsedMs: int
    message: str | None = None
    subQueries: list[SubQuery] = field(default_factory=list)
    retrievedCount: int = 0
    documents: list[str] = field(default_factory=list)
    documentSources: list[str] = field(default_factory=list)  # the knowledge base of each of `documents`
    failures: list[str] = field(default_factory=list)
    guardrail: list[GuardrailWarning] = field(default_factory=list)
    # Step `CacheHit` only: how old the served entry is, and the version its key was built with.
    ageSeconds: int | None = None
    keyVersion: str | None = None
    warnings: list[str] = field(default_factory=list)  # Bedrock's plain warning messages
    codeExecutions: list[CodeExecution] = field(default_factory=list)
    memoryRetrieves: list[MemoryRetrieve] = field(default_factory=list)
    appliedInstruction: AppliedInstruction | None = None
    retrievalSources: list[RetrievalSource] = field(default_factory=list)


@dataclass(frozen=True)
class TextEvent:
    """A piece of the answer, in order; the answer is the concatenation of every delta."""

    type: ClassVar[str] = "text"
    delta: str


@dataclass(frozen=True)
class ResultItem:
    """One source. Non-text results (images, audio, ...) keep `mimeType`/`contentType`; their bytes
    ride in `byteContent` (base64) only up to INLINE_BYTES_LIMIT, otherwise only `byteSize` does."""

    knowledgeBase: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    documentId: str | None = None
    mimeType: str | None = None
    contentType: str | None = None  # TEXT | IMAGE | AUDIO | VIDEO | OTHER, from the mime type's major type
    byteSize: int | None = None
    byteContent: str | None = None  # base64


@dataclass(frozen=True)
class Citation:
    start: int
    end: int
    results: list[int]


@dataclass(frozen=True)
class ResultEvent:
    """The deduplicated results; `answer` repeats the text deltas so a late reader has it whole."""

    type: ClassVar[str] = "result"
    # Defaults where event_to_dict may leave a field out (empty list, None): decoding restores them.
    results: list[ResultItem] = field(default_factory=list)
    answer: str | None = None
    citations: list[Citation] = field(default_factory=list)
    note: str | None = None


@dataclass(frozen=True)
class ErrorEvent:
    type: ClassVar[str] = "error"
    # One of contract.enums.ERROR_CODES; typed as str so an older client still reads a newer code.
    code: str
    message: str
    retryable: bool = False


@dataclass(frozen=True)
class DoneEvent:
    """Always the last event: how the request ended and what it took."""

    type: ClassVar[str] = "done"
    requestId: str
    stopReason: StopReason
    iterations: int
    durationMs: int
    timeToFirstEventMs: int | None = None  # left out of the frame when no event came first
    mode: str = "agentic"  # the path taken (contract.enums.MODES); a str, so older clients read newer modes
    estimatedCostUsd: float | None = None
    # True when the path taken was agentic with a CUSTOM planner: estimatedCostUsd then leaves out
    # the planner model's token cost (unknown to the endpoint) and covers the Retrieve calls only.
    estimatedCostExcludesPlannerModel: bool | None = None
    cache: CacheOutcome | None = None
    # True whenever stopReason is not `complete`: the answer and results may be missing parts.
    partial: bool | None = None
    failedKnowledgeBases: list[str] = field(default_factory=list)
    # The upstream result's nextToken: send it back as the request's `nextToken` for the next page.
    nextToken: str | None = None
    cacheReason: str | None = None  # why the cache was bypassed (e.g. a conversation turn)
    memory: MemoryUse | None = None
    # Why the answer took a lesser path than asked (contract.enums.DEGRADATIONS), e.g. `quota`: `auto` was
    # answered with single-shot retrieval because the tenant's agentic share was used up. A str, so an
    # older client reads a newer reason; absent when nothing was degraded.
    degraded: str | None = None


@dataclass(frozen=True)
class MemoryUse:
    """`done.memory`, for a request that sent a sessionId (docs/conversations.md)."""

    sessionId: str | None = None  # the session the turn was bound to
    persistence: str | None = None  # default: this turn was written back; none: the session is unchanged
    unbound: str | None = None  # why the request was answered without its session


Event = TraceEvent | TextEvent | ResultEvent | ErrorEvent | DoneEvent
EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (TraceEvent, TextEvent, ResultEvent, ErrorEvent, DoneEvent)
}


# Optional fields nested in results and trace details, left out when unset (older readers never see them).
_NESTED_OPTIONAL = frozenset(
    {
        "mimeType",
        "contentType",
        "byteSize",
        "byteContent",
        "memoryId",
        "message",
        "namespace",
        "namespacePath",
        "strategyId",
        "sessionId",
        "persistence",
        "unbound",
    }
)


def _prune(value: Any) -> Any:
    if isinstance(value, list):
        return [_prune(item) for item in value]
    if isinstance(value, dict):
        return {k: _prune(v) for k, v in value.items() if not (v is None and k in _NESTED_OPTIONAL)}
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """The JSON body of an event, without empty optional fields (smaller frames, same meaning)."""
    return {key: _prune(value) for key, value in asdict(event).items() if value not in (None, [], {})}


def event_from_dict(event_type: str, data: dict[str, Any]) -> Event:
    """Rebuilds a typed event from its JSON body; unknown fields are ignored (forward compatible).

    Raises ValueError (strict_json.StrictJsonError is one, naming each field's path) when the body does
    not match the type.
    """
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type '{event_type}'")
    return strict_json.load(EVENT_TYPES[event_type], data, unknown="ignore")
