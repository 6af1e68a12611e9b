"""AgenticRetrieveStream behind the wire: the plan/retrieve/expand loop as a lazy stream of messages.

The loop is a generator so that work happens between messages, as in the service: a consumer that
stops reading (client gone) stops the planning too. Decisions come from planner.py, the answer
from answer.py; this module only sequences them into trace events, response chunks and the result.
"""

from __future__ import annotations

import base64
import itertools
import time
import uuid
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from local.emulator.answer import compose_answer, stream_pieces
from local.emulator.eventstream import StreamMessage
from local.emulator.follow_up import standalone
from local.emulator.guardrails import ALLOWED, GuardrailPolicy, Source, Verdict
from local.emulator.index import Hit, KnowledgeBaseIndex
from local.emulator.pages import Page, Pages
from local.emulator.planner import needs_arithmetic, route, wants_full_documents
from local.emulator.sessions import MemoryRecord, MemoryStore, Turn
from local.emulator.sufficiency import Chain, PlanState, chains_for, needs_for, next_step, titled
from local.emulator.text import counted, roots

DEFAULT_MAX_AGENT_ITERATION = 3  # UNVERIFIED: the service's default; AWS suggests 3 for one KB (ledger)
DEFAULT_MAX_RESULTS = 10  # UNVERIFIED: the service's default maxNumberOfResults
HARD_ITERATION_CAP = 20  # the emulator's own safety net; leads run out long before this
EXPANDED_DOCUMENTS = 2
RRF_K = 60
MIME_TYPE = "text/plain"  # the model marks content.mimeType required; its value here is UNVERIFIED
CODE_EXECUTION_DOCUMENTS = 3  # documents a CodeExecution step reads (the emulator's choice)


@dataclass(frozen=True)
class Retriever:
    index: KnowledgeBaseIndex
    description: str
    max_results: int
    where: Mapping[str, Any] | None

    @property
    def kb_id(self) -> str:
        return self.index.kb.kb_id


def retrievers_from(body: Mapping[str, Any], indexes: Mapping[str, KnowledgeBaseIndex]) -> list[Retriever]:
    out = []
    for retriever in body["retrievers"]:
        kb = retriever["configuration"]["knowledgeBase"]
        overrides = kb.get("retrievalOverrides") or {}
        out.append(
            Retriever(
                index=indexes[kb["knowledgeBaseId"]],
                description=retriever.get("description") or "",
                max_results=overrides.get("maxNumberOfResults", DEFAULT_MAX_RESULTS),
                where=overrides.get("filter"),
            )
        )
    return out


def result_item(hit: Hit) -> dict[str, Any]:
    """A result as both the trace's retrievalResponse and the final result carry it: text, or for a
    binary document (an image) its bytes as `byteContent` (a JSON blob: base64) with its mime type."""
    data = hit.document.data
    content = (
        {"text": hit.chunk.text, "mimeType": MIME_TYPE}
        if data is None
        else {"byteContent": base64.b64encode(data).decode("ascii"), "mimeType": hit.document.mime_type}
    )
    return {
        "content": content,
        "metadata": hit.metadata,
        "sourceRetriever": {"identifier": hit.kb.kb_id},
    }


def _record_item(record: MemoryRecord) -> dict[str, Any]:
    """A long-term memory record as a trace result (sourceRetriever: the memory)."""
    return {
        "content": {"text": record.text, "mimeType": MIME_TYPE},
        "metadata": {"namespace": record.namespace},
        "sourceRetriever": {"identifier": record.memory_id},
    }


def _retrieve_action(query: str, retrievers: Sequence[Retriever]) -> dict[str, Any]:
    return {
        "retrieve": {
            "inputQuery": {"text": query},
            "sourceRetrievers": [{"identifier": r.kb_id} for r in retrievers],
        }
    }


class _Evidence:
    """Everything retrieved so far, fused by reciprocal rank and deduplicated by chunk id."""

    def __init__(self) -> None:
        self._hits: dict[str, Hit] = {}
        self._scores: dict[str, float] = {}
        self._queries: dict[str, frozenset[str]] = {}  # chunk id -> roots of every query that reached it

    def add(self, ranked: Sequence[Hit], query: str = "") -> None:
        asked = roots(query)
        for rank, hit in enumerate(ranked):
            key = hit.chunk.chunk_id
            self._hits.setdefault(key, hit)
            self._scores[key] = self._scores.get(key, 0.0) + 1.0 / (RRF_K + rank + 1)
            self._queries[key] = self._queries.get(key, frozenset()) | asked

    def reached(self, hit: Hit, name: frozenset[str]) -> bool:
        """Did a search naming `name` (its roots) return this passage? (sufficiency.Reached)"""
        return name <= self._queries.get(hit.chunk.chunk_id, frozenset())

    def ranked(self) -> list[Hit]:
        """Every hit, best first (what later pages draw from)."""
        return [self._hits[key] for key in sorted(self._hits, key=lambda key: -self._scores[key])]

    def final(self, caps: Mapping[str, int], first: Sequence[str] = ()) -> list[Hit]:
        """The passages supporting the answer (`first`: chunk ids), then the rest best first; each
        knowledge base contributes at most its maxNumberOfResults."""
        ranked = sorted(self._hits, key=lambda key: -self._scores[key])  # stable: ties keep first-seen order
        order = list(dict.fromkeys([key for key in first if key in self._hits] + ranked))
        taken: dict[str, int] = {}
        out = []
        for key in order:
            hit = self._hits[key]
            if taken.get(hit.kb.kb_id, 0) < caps.get(hit.kb.kb_id, DEFAULT_MAX_RESULTS):
                taken[hit.kb.kb_id] = taken.get(hit.kb.kb_id, 0) + 1
                out.append(hit)
        return out


class AgenticRun:
    """One AgenticRetrieveStream request. Iterate `messages()` to run it."""

    def __init__(
        self,
        body: Mapping[str, Any],
        indexes: Mapping[str, KnowledgeBaseIndex],
        fail_retrieval: Callable[[], bool] = lambda: False,
        pages: Pages | None = None,
        memory: MemoryStore | None = None,
        guardrail_policy: GuardrailPolicy | None = None,
    ) -> None:
        self.asked: str = body["messages"][-1]["content"]["text"]
        self.memory_store = memory or MemoryStore()
        self.memory: dict[str, Any] = body.get("memoryConfiguration") or {}
        self.binding: dict[str, Any] = self.memory.get("sessionBinding") or {}
        self.history = self._restored_history()
        earlier = [str(m["content"].get("text") or "") for m in body["messages"][:-1] if m["role"] == "user"]
        # What planning works from: a follow-up completed from the conversation (follow_up.py).
        self.question: str = standalone(self.asked, [t.question for t in self.history] + earlier)
        self.retrievers = retrievers_from(body, indexes)
        config = body["agenticRetrieveConfiguration"]
        self.max_iterations = min(config.get("maxAgentIteration", DEFAULT_MAX_AGENT_ITERATION), HARD_ITERATION_CAP)
        self.generate = body.get("generateResponse", True)
        self.user_id = (body.get("userContext") or {}).get("userId")
        self.guardrail = (body.get("policyConfiguration") or {}).get("bedrockGuardrailConfiguration")
        self.guardrail_policy = guardrail_policy  # the registered policy the request's guardrail names
        instruction = body.get("retrievalInstructionConfiguration")
        self.applied_instruction = (
            {
                k: v
                for k, v in (
                    ("id", instruction["retrievalInstructionId"]),
                    ("version", instruction.get("version")),
                )
                if v
            }
            if instruction
            else None
        )
        self.fail_retrieval = fail_retrieval
        self.pages = pages or Pages()
        # A request with nextToken only collects the page it is owed (ValidationException if none).
        token = body.get("nextToken")
        self.page: Page | None = self.pages.take(token, self.user_id) if token else None
        self.request_id = uuid.uuid4().hex[:12]
        self._event_numbers = itertools.count(1)
        self.evidence = _Evidence()
        self.needs = needs_for(self.question)  # what the planner must find (sufficiency.py)
        self.plan = PlanState()
        self.plan.ask(self.question)  # the speculative retrieval runs it
        self.planning_steps = 0

    # -- memory (sessions.py) -------------------------------------------------------------------
    def _restored_history(self) -> list[Turn]:
        if not self.binding:
            return []
        return self.memory_store.history(self.memory["memoryId"], self.binding["actorId"], self.binding["sessionId"])

    def _session_history_load(self) -> Iterator[StreamMessage]:
        yield self._trace("SessionHistoryLoad", "IN_PROGRESS", "Loading the session's history")
        yield self._trace(
            "SessionHistoryLoad", "SUCCEEDED", f"Loaded {counted(len(self.history), 'earlier turn')} of the session"
        )

    def _memory_retrievals(self) -> Iterator[StreamMessage]:
        """One Retrieval step per long-term retrieval config (the service takes at most one)."""
        memory_id = self.memory["memoryId"]
        for config in self.memory.get("retrievalConfigs") or []:
            where = {k: config[k] for k in ("namespace", "namespacePath", "strategyId") if config.get(k)}
            action = [{"memoryRetrieve": {"inputQuery": {"text": self.question}, "memoryId": memory_id} | where}]
            label = f"long-term memory {config.get('namespace') or config.get('namespacePath')}"
            yield self._trace("Retrieval", "IN_PROGRESS", f"Retrieving from {label}", actions=action)
            records = self.memory_store.search(
                memory_id, self.question, config.get("namespace"), config.get("namespacePath"), config.get("strategyId")
            )
            yield self._trace(
                "Retrieval",
                "SUCCEEDED",
                f"Retrieved {counted(len(records), 'memory record')} from {label}",
                actions=action,
                retrievalResponse=[_record_item(r) for r in records],
                retrievalMetadata=[{"identifier": memory_id, "retrievalType": "BedrockAgentCoreMemory"}],
            )

    def _write_back(self, answer: str) -> None:
        """persistenceMode DEFAULT (the default): the question and the answer, as one event."""
        if self.binding and self.memory.get("persistenceMode", "DEFAULT") == "DEFAULT" and self.generate:
            turn = Turn(question=self.asked, answer=answer)
            self.memory_store.append(self.memory["memoryId"], self.binding["actorId"], self.binding["sessionId"], turn)

    # -- trace events -------------------------------------------------------------------------
    def _trace(self, step: str, status: str, message: str, **attributes: Any) -> StreamMessage:
        body = {
            "id": f"{self.request_id}:{next(self._event_numbers)}",
            "timestamp": int(time.time() * 1000),
            "attributes": {"step": step, "status": status, "message": message}
            | {k: v for k, v in attributes.items() if v},
        }
        return StreamMessage("event", "traceEvent", body)

    def _guardrail_warning(self, verdict: Verdict, source: Source) -> list[dict[str, Any]] | None:
        """The trace's `warnings` with the guardrail's verdict (ledger, Guardrails: shape CONFIRMED,
        placement and message UNVERIFIED)."""
        if not self.guardrail:
            return None
        warning = {
            "action": "INTERVENED" if verdict.intervened else "NONE",
            "id": self.guardrail["guardrailId"],
            "version": self.guardrail["guardrailVersion"],
        }
        if verdict.intervened:
            warning["message"] = verdict.message(source)
        return [{"guardrail": warning}]

    def _check(self, text: str, source: Source) -> Verdict:
        return self.guardrail_policy.check(text, source) if self.guardrail_policy is not None else ALLOWED

    # -- steps --------------------------------------------------------------------------------
    def _search(self, query: str, retrievers: Sequence[Retriever]) -> list[Hit]:
        hits = [h for r in retrievers for h in r.index.search(query, r.max_results, self.user_id, r.where)]
        return sorted(hits, key=lambda h: -h.score)

    def _retrieval(
        self, step: str, query: str, retrievers: Sequence[Retriever], label: str
    ) -> Generator[StreamMessage, None, list[Hit]]:
        """IN_PROGRESS, then SUCCEEDED with the hits or FAILED with failures; returns the hits."""
        action = [_retrieve_action(query, retrievers)]
        yield self._trace(step, "IN_PROGRESS", f"Retrieving with {label}", actions=action)
        if step == "Retrieval" and self.fail_retrieval():
            failures = [{"message": f"Retrieval failed for {label} (injected fault)"}]
            yield self._trace(
                step,
                "FAILED",
                f"Retrieval failed for {label}",
                actions=action,
                failures=failures,
            )
            return []
        hits = self._search(query, retrievers)
        self.evidence.add(hits, query)
        yield self._trace(
            step,
            "SUCCEEDED",
            f"Retrieved {counted(len(hits), 'result')} for {label}",
            actions=action,
            retrievalResponse=[result_item(h) for h in hits],
            retrievalMetadata=[{"identifier": r.kb_id, "retrievalType": "BedrockKnowledgeBase"} for r in retrievers],
        )
        return hits

    def _expansion(self, hit: Hit) -> Iterator[StreamMessage]:
        action = [
            {
                "fullDocumentExpansion": {
                    "documentId": hit.document.document_id,
                    "sourceRetriever": {"identifier": hit.kb.kb_id},
                }
            }
        ]
        label = f"document {hit.document.document_id}"
        yield self._trace("FullDocumentExpansion", "IN_PROGRESS", f"Reading the full {label}", actions=action)
        index = next(r.index for r in self.retrievers if r.kb_id == hit.kb.kb_id)
        chunks = index.document_hits(hit.document.document_id)
        self.evidence.add(chunks)
        yield self._trace(
            "FullDocumentExpansion",
            "SUCCEEDED",
            f"Read {counted(len(chunks), 'chunk')} of the {label}",
            actions=action,
            retrievalResponse=[result_item(h) for h in chunks],
        )

    def _planning(
        self, message: str, queries: Sequence[str], routes: Sequence[Sequence[Retriever]], final: bool
    ) -> Iterator[StreamMessage]:
        self.planning_steps += 1
        n = self.planning_steps
        yield self._trace("Planning", "IN_PROGRESS", f"Planning iteration {n} of {self.max_iterations}")
        yield self._trace(
            "Planning",
            "SUCCEEDED",
            message,
            actions=[_retrieve_action(q, r) for q, r in zip(queries, routes, strict=True)],
            appliedInstruction=self.applied_instruction,
        )

    def _iteration(self, queries: Sequence[str], message: str, final: bool, expand: bool) -> Iterator[StreamMessage]:
        """One planning step and its retrievals (and, for summaries, the top documents read whole)."""
        routes = [route(q, self.retrievers) for q in queries]
        yield from self._planning(message, queries, routes, final)
        expand_candidates: list[Hit] = []
        for n, (query, targets) in enumerate(zip(queries, routes, strict=True), start=1):
            hits = yield from self._retrieval("Retrieval", query, targets, f"sub-query {n}/{len(queries)}")
            expand_candidates += hits[:1]
        if expand:
            documents: dict[tuple[str, str], Hit] = {}
            for hit in expand_candidates:
                documents.setdefault((hit.kb.kb_id, hit.document.document_id), hit)
            for hit in list(documents.values())[:EXPANDED_DOCUMENTS]:
                yield from self._expansion(hit)

    # -- the run ------------------------------------------------------------------------------
    def messages(self) -> Iterator[StreamMessage]:
        if self.page is not None:
            yield from self._next_page(self.page)
            return
        if self.binding:
            yield from self._session_history_load()
        verdict = self._check(self.asked, "INPUT")
        if verdict.intervened:
            yield from self._blocked(verdict)
            return
        yield from self._verdict_on_last_step(self._steps())

    def _steps(self) -> Iterator[StreamMessage]:
        """Every trace step of a run that passed the input guardrail, up to the answer."""
        yield from self._retrieval("SpeculativeRetrieval", self.question, self.retrievers, "the original query")
        if self.memory:
            yield from self._memory_retrievals()
        if self.max_iterations > 0:
            yield from self._plan_and_retrieve()
        if needs_arithmetic(self.question):
            yield from self._code_execution()

    def _verdict_on_last_step(self, steps: Iterator[StreamMessage]) -> Iterator[StreamMessage]:
        """The steps as they come, but the last one held until the answer has passed the output
        guardrail: the verdict rides on the last step before the answer (its `warnings`)."""
        held: StreamMessage | None = None
        for message in steps:
            if held is not None:
                yield held
            held = message
        answer_messages, verdict = self._finish()
        warnings = self._guardrail_warning(verdict, "OUTPUT")
        if held is not None:
            attributes = dict(held.body["attributes"]) | ({"warnings": warnings} if warnings else {})
            yield StreamMessage(held.kind, held.name, dict(held.body) | {"attributes": attributes})
        yield from answer_messages

    def _code_execution(self) -> Iterator[StreamMessage]:
        """Arithmetic questions: a CodeExecution step over the best documents found so far."""
        seen: dict[tuple[str, str], Hit] = {}
        for hit in self.evidence.final({r.kb_id: r.max_results for r in self.retrievers}):
            seen.setdefault((hit.kb.kb_id, hit.document.document_id), hit)
        documents = [
            {"documentId": hit.document.document_id, "sourceRetriever": {"identifier": hit.kb.kb_id}}
            for hit in list(seen.values())[:CODE_EXECUTION_DOCUMENTS]
        ]
        action = [{"codeExecution": {"documents": documents}}]
        label = counted(len(documents), "document")
        yield self._trace("CodeExecution", "IN_PROGRESS", f"Running code over {label}", actions=action)
        yield self._trace("CodeExecution", "SUCCEEDED", f"Computed the answer's figures from {label}", actions=action)

    def _next_page(self, page: Page) -> Iterator[StreamMessage]:
        """A follow-up request: the owed results, capped as the first page was, and a token for the rest."""
        caps = dict(page.caps)
        taken: dict[str, int] = {}
        now, later = [], []
        for hit in page.items:
            if taken.get(hit.kb.kb_id, 0) < caps.get(hit.kb.kb_id, DEFAULT_MAX_RESULTS):
                taken[hit.kb.kb_id] = taken.get(hit.kb.kb_id, 0) + 1
                now.append(hit)
            else:
                later.append(hit)
        result: dict[str, Any] = {"results": [result_item(h) for h in now]}
        token = self.pages.issue(self.user_id, later, caps)
        if token:
            result["nextToken"] = token
        yield StreamMessage("event", "result", result)

    def _plan_and_retrieve(self) -> Iterator[StreamMessage]:
        """Planning steps until the evidence supports every need, nothing is left to try, or the cap.

        A summary or enumeration always runs its sub-queries first, reading the top documents whole.
        """
        known = roots(self.question)
        for iteration in range(1, self.max_iterations + 1):
            step = next_step(self.needs, self.evidence.ranked(), known, self.evidence.reached, self.plan)
            queries, message = list(step.queries), step.message()
            expand = iteration == 1 and wants_full_documents(self.question)
            if expand:
                queries = list(dict.fromkeys([need.text for need in self.needs] + queries))
                message = f"Split the question into {counted(len(queries), 'sub-query', 'sub-queries')}"
            if not queries:
                yield from self._planning(step.stop_message(), [], [], True)
                return
            yield from self._iteration(queries, message, iteration == self.max_iterations, expand)

    def _blocked(self, verdict: Verdict) -> Iterator[StreamMessage]:
        """The input guardrail intervened: one step with its verdict, no retrieval, and the
        guardrail's blocked-input messaging as the answer."""
        warnings = self._guardrail_warning(verdict, "INPUT")
        if self.max_iterations == 0:
            yield self._trace("SpeculativeRetrieval", "IN_PROGRESS", "Checking the query")
            yield self._trace("SpeculativeRetrieval", "SUCCEEDED", "Blocked by the guardrail", warnings=warnings)
        else:
            self.planning_steps += 1
            yield self._trace("Planning", "IN_PROGRESS", f"Planning iteration 1 of {self.max_iterations}")
            yield self._trace("Planning", "SUCCEEDED", "Blocked by the guardrail", warnings=warnings)
        yield from self._blocked_result(self.guardrail_policy.blocked_input if self.guardrail_policy else "")

    def _blocked_result(self, text: str) -> Iterator[StreamMessage]:
        result: dict[str, Any] = {"results": []}
        if self.generate:
            yield StreamMessage("event", "responseEvent", {"text": text})
            result["generatedResponse"] = {"answer": text, "citations": []}
        yield StreamMessage("event", "result", result)

    def _support(self) -> list[Chain | None]:
        """Each need's best supporting chain in the evidence gathered (None: nothing about it)."""
        return chains_for(self.needs, self.evidence.ranked(), roots(self.question), self.evidence.reached)

    def _finish(self) -> tuple[list[StreamMessage], Verdict]:
        """The answer's messages (response pieces, then the result) and the output guardrail's verdict.

        Blocked output: no results and the guardrail's blocked-outputs messaging instead of the answer.
        """
        caps = {r.kb_id: r.max_results for r in self.retrievers}
        chains = self._support()
        supporting = [
            hit.chunk.chunk_id
            for need, chain in zip(self.needs, chains, strict=True)
            if chain is not None and chain.sufficient_for(need)
            for hit in chain.links
        ]
        # Then the documents about what the question names (titled by it), then the rest.
        evidence = self.evidence.ranked()
        about = [h.chunk.chunk_id for h in evidence if any(titled(need, h) for need in self.needs)]
        hits = self.evidence.final(caps, supporting + about)
        answer = compose_answer(self.needs, chains, hits) if self.generate else None
        verdict = self._check(answer.text if answer else "\n".join(h.chunk.text for h in hits), "OUTPUT")
        if verdict.intervened:
            blocked = self.guardrail_policy.blocked_output if self.guardrail_policy else ""
            return list(self._blocked_result(blocked)), verdict
        result: dict[str, Any] = {"results": [result_item(h) for h in hits]}
        chosen = {h.chunk.chunk_id for h in hits}
        token = self.pages.issue(self.user_id, [h for h in evidence if h.chunk.chunk_id not in chosen], caps)
        if token:
            result["nextToken"] = token
        messages: list[StreamMessage] = []
        if answer is not None:
            messages += [StreamMessage("event", "responseEvent", {"text": p}) for p in stream_pieces(answer.text)]
            result["generatedResponse"] = answer.to_wire()
            self._write_back(answer.text)
        return [*messages, StreamMessage("event", "result", result)], verdict
