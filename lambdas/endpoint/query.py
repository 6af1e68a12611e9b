"""`POST /v1/query`: validate, open the upstream, stream its events, end with `done`, log and count.

This is the only module that sees both HTTP and the upstream; each step it takes is another
module's job (request, identity, modes, relay, encoding, errors, logs, metrics).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from contract import log_fields as lf
from contract.enums import USER_CONTEXT_MODES
from contract.events import DoneEvent, ErrorEvent, Event, MemoryUse, TraceEvent, event_to_dict
from contract.settings import TenantSettings
from lambdas.endpoint import api_errors as errors
from lambdas.endpoint import conversation, identity, modes
from lambdas.endpoint import request_metrics as metrics
from lambdas.endpoint.cache import cache_metrics
from lambdas.endpoint.encoding import Encoder, encoder_for
from lambdas.endpoint.logs import RequestLog
from lambdas.endpoint.page_tokens import PageTokens
from lambdas.endpoint.relay import Item, Relay
from lambdas.endpoint.request import Query, body_timeout, check_content_type, parse_query, too_large
from lambdas.endpoint.retry import Backoff
from lambdas.endpoint.stop_reason import StopReasonObserver
from lambdas.endpoint.translate import RunStats, Translator
from lambdas.endpoint.upstream import shared_client

if TYPE_CHECKING:  # the cache's modules load only for tenants with a cache (cold start: bench/RESULTS.md)
    from lambdas.endpoint.cache.result_cache import Decision, ResultCache

REQUEST_ID_HEADER = "x-request-id"
_MAX_REQUEST_ID_CHARS = 128


@dataclass
class Service:
    """What every request shares: the tenant, the mode of trust, and where clients and metrics come from."""

    settings: TenantSettings
    local_mode: bool = False
    local_caller_arn: str | None = None
    # The request-context shapes of this function's front doors (identity.py; AKB_REQUEST_CONTEXTS).
    request_contexts: tuple[str, ...] = identity.DEFAULT_REQUEST_CONTEXTS
    client_factory: Callable[[], Any] = shared_client
    write_metrics: Callable[[str], None] = metrics.write_stdout
    backoff: Backoff = field(default_factory=Backoff)
    cache: ResultCache | None = None  # the tenant's result cache (cache/), None when it is off
    # A client gets this long to send the whole body once its request head is in (the head has its
    # own bound: http_timeouts.py); a stalled upload holds nothing longer. 408 `body_timeout`.
    body_timeout_seconds: float = 10.0
    # Seals done.nextToken to its request (page_tokens.py); the function's key comes from its environment.
    page_tokens: PageTokens = field(default_factory=PageTokens.random)

    def __post_init__(self) -> None:
        if self.settings.user_context not in USER_CONTEXT_MODES:
            raise ValueError(f"user_context '{self.settings.user_context}' is not one of {USER_CONTEXT_MODES}")
        self.alias_of = {r.knowledge_base_id: r.alias for r in self.settings.retrievers}


def correlation_id(request: Request) -> str:
    """The Lambda request id from the verified context, else the caller's X-Request-Id, else a new one.

    A request carrying the context header more than once is refused by identity.py; until then its
    (untrusted) context names no request id."""
    contexts = identity.context_header_values(request.scope.get("headers", []))
    request_id = identity.parse_context(contexts[0], ())[1] if len(contexts) == 1 else None
    given = request.headers.get(REQUEST_ID_HEADER, "")
    if not request_id and given and len(given) <= _MAX_REQUEST_ID_CHARS and given.isprintable():
        request_id = given
    return request_id or str(uuid.uuid4())


async def _read_body(request: Request, limit: int, seconds: float) -> bytes | None:
    """The body, or None when the client hung up before sending all of it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    body = bytearray()
    try:
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise too_large(limit)
    except ClientDisconnect:
        return None
    except TimeoutError:
        raise body_timeout(seconds) from None
    return bytes(body)


async def _disconnected(request: Request) -> None:
    """Returns once the client hangs up (the body has been read: nothing else can arrive)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _first_item(relay: Relay, request: Request) -> Item | None:
    """The relay's first item, or None when the client hangs up first (the caller cancels)."""
    first = asyncio.ensure_future(relay.next())
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({first, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if first.done():
        return first.result()
    first.cancel()
    return None


def _abandoned(log: RequestLog, started: float) -> Response:
    """A client that hung up mid-upload: one structured record, no traceback, nobody to answer."""
    log.info(
        lf.EVENT_DONE,
        **{lf.EVENT: lf.EVENT_DONE, lf.STOP_REASON: "client_closed", lf.DURATION_MS: _ms(started), lf.ITERATIONS: 0},
        detail="the client closed the connection before sending the whole body",
    )
    return Response(status_code=400)


def _ms(since: float) -> int:
    return int((time.monotonic() - since) * 1000)


class EventStreamResponse(StreamingResponse):
    """A StreamingResponse that always finalizes its event generator, also when the client hangs up
    (Starlette cancels the sending task then; closing the generator runs its cleanup at once)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.body_iterator.aclose()  # type: ignore[attr-defined]


class QueryRun:
    """One accepted query from the upstream call to the `done` event."""

    def __init__(
        self,
        service: Service,
        query: Query,
        log: RequestLog,
        cid: str,
        started: float,
        cache: Decision | None = None,
        memory: conversation.MemoryOutcome | None = None,
    ) -> None:
        self.service = service
        self.memory = memory
        self.query = query
        self.log = log
        self.cid = cid
        self.started = started
        self.mode = modes.load(query.mode)
        self.translator = Translator(service.alias_of, started)
        self.first_event_ms: int | None = None
        self.relay: Relay | None = None
        self.stop = StopReasonObserver(query.max_agent_iteration)
        self.cache = cache
        self.recorder = _recorder() if cache is not None and cache.outcome == "miss" else None

    @property
    def stats(self) -> RunStats:
        return self.translator.stats

    def start(self, user_id: str | None) -> Relay:
        settings = self.service.settings
        request = self.mode.build_request(self.query, settings, user_id)
        self.relay = Relay(
            lambda policy: self.mode.open(self.service.client_factory(), request, self.translator, policy),
            deadline=self.started + settings.deadline_seconds,
            max_attempts=settings.upstream_max_attempts,
            should_retry=errors.is_retryable_before_first_byte,
            backoff=self.service.backoff,
            on_retry=lambda attempt, error: self.log.warning(
                "upstream retry", attempt=attempt, upstream_error=errors.error_code_of(error)
            ),
        )
        self.relay.start()
        return self.relay

    def _observe(self, event: Event) -> None:
        if self.first_event_ms is None:
            self.first_event_ms = _ms(self.started)
        self.stop.observe(event)
        if self.recorder is not None:
            self.recorder.observe(event)
        if isinstance(event, TraceEvent):
            # One record per trace event: the sub-queries are what an audit needs to see. A
            # Retrieval step's start also names each sub-query on a record of its own (SUB_QUERY),
            # because Logs Insights counts strings, not list members (log_fields.py).
            body = event_to_dict(event)
            fields = {
                lf.EVENT: lf.EVENT_TRACE,
                lf.STEP: event.step,
                lf.STATUS: event.status,
                lf.SUB_QUERIES: body.get("subQueries", []),
                "detail": event.message,
                "retrieved_count": event.retrievedCount,
                "documents": event.documents,
                "failures": event.failures,
                "guardrail": body.get("guardrail", []),
                "elapsed_ms": event.elapsedMs,
            }
            # Newer trace details (issue 21), logged only when present so older records keep their shape.
            for key in ("warnings", "codeExecutions", "memoryRetrieves", "appliedInstruction", "retrievalSources"):
                if key in body:
                    fields[key] = body[key]
            texts = [q.text for q in event.subQueries]
            if event.step == "Retrieval" and event.status == "IN_PROGRESS" and texts:
                for text in texts:
                    self.log.info(lf.EVENT_TRACE, **fields, **{lf.SUB_QUERY: text})
            else:
                self.log.info(lf.EVENT_TRACE, **fields)

    def _done(self, stop_reason: str) -> DoneEvent:
        return DoneEvent(
            requestId=self.cid,
            stopReason=stop_reason,  # type: ignore[arg-type]
            # Anything short of the whole answer says so: never a partial answer that looks complete.
            partial=True if stop_reason != "complete" else None,
            failedKnowledgeBases=list(self.stats.failed_knowledge_bases),
            iterations=self.stats.iterations,
            durationMs=_ms(self.started),
            timeToFirstEventMs=self.first_event_ms,
            mode=self.stats.mode or self.query.mode,  # auto: the path it took
            estimatedCostUsd=self.mode.estimated_cost_usd(self.stats, self.service.settings),
            estimatedCostExcludesPlannerModel=self._cost_excludes_planner_model() or None,
            cache=self.cache.outcome if self.cache is not None else "off",  # type: ignore[arg-type]
            nextToken=self._sealed_next_token(),
            cacheReason=self.cache.reason if self.cache is not None and self.cache.outcome == "bypass" else None,
            memory=self._memory_use(),
        )

    def _sealed_next_token(self) -> str | None:
        token, binding = self.stats.next_token, self.query.page_binding
        return None if token is None or binding is None else self.service.page_tokens.seal(token, binding)

    def _memory_use(self) -> MemoryUse | None:
        """`done.memory`: the session this turn was bound to, or why it was not (None: no sessionId sent)."""
        if self.memory is None:
            return None
        binding = self.memory.binding
        if binding is None:
            return MemoryUse(unbound=self.memory.unbound_reason)
        return MemoryUse(sessionId=binding.session_id, persistence=binding.persistence.lower())

    def _cost_excludes_planner_model(self) -> bool:
        taken = self.stats.mode or self.query.mode
        return taken == "agentic" and modes.load("agentic").excludes_planner_model_cost(self.service.settings)

    async def events(self, first: Item, encoder: Encoder) -> AsyncIterator[bytes]:
        relay = self.relay
        if relay is None:
            raise RuntimeError("events() runs only after start() opened the relay")
        stop_reason, error_code, finished = "complete", None, False
        try:
            item = first
            while item.kind == "event":
                event = item.event
                if event is None:  # an "event" item always carries one; if not, end as an internal error
                    raise RuntimeError("the relay yielded an event item without its event")
                self._observe(event)
                yield encoder.encode(event)
                item = await relay.next()
            failure: ErrorEvent | None = None
            upstream_detail = None
            if item.kind == "error":
                upstream = item.error or RuntimeError("the stream failed without an error")
                failure = errors.error_event_for(upstream, self.service.alias_of)
                upstream_detail = errors.classify(upstream).detail  # Bedrock's text, ARNs included: logs only
                if failure.code == "internal":
                    self.log.exception("stream failed", upstream)
            elif item.kind == "deadline":
                relay.cancel()
                failure = errors.deadline_event(self.service.settings.deadline_seconds)
            if failure is not None:
                stop_reason = "deadline" if failure.code == "deadline" else "error"
                error_code = failure.code
                self.log.warning(
                    lf.EVENT_ERROR, **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: failure.code}, detail=upstream_detail
                )
                yield encoder.encode(failure)
            elif self.stats.sources_failed:
                stop_reason = "partial"  # the stream ended, but some sources failed on the way
            else:
                stop_reason = self.stop.reason(self.stats.mode or self.query.mode)
            yield encoder.encode(self._done(stop_reason))
            finished = True
            if self.recorder is not None:  # after `done` went out: the caller never waits for it
                await asyncio.to_thread(self._store, stop_reason)
        except Exception:  # a bug of ours mid-stream: still end the stream properly, never a traceback
            self.log.exception("endpoint error while streaming")
            relay.cancel()
            stop_reason, error_code = "error", "internal"
            yield encoder.encode(errors.internal_event())
            yield encoder.encode(self._done(stop_reason))
            finished = True
        finally:
            if not finished:
                stop_reason = "client_closed"
                relay.cancel()
            self.finish(stop_reason, error_code)

    def _store(self, stop_reason: str) -> None:
        cache, recorder = self.service.cache, self.recorder
        if cache is None or self.cache is None or recorder is None:
            return
        mode = self.stats.mode or self.query.mode
        if self.stats.next_token:  # a replayed page token would be stale or used: never store a paged answer
            recorder.refused = recorder.refused or "the answer has more pages (nextToken)"
        refusal = cache.store_result(self.cache, self.query, recorder, stop_reason, mode, self.stats.iterations)
        self.log.info("cache store", stored=refusal is None, reason=refusal)

    def finish(self, stop_reason: str, error_code: str | None) -> None:
        duration = _ms(self.started)
        cost = self.mode.estimated_cost_usd(self.stats, self.service.settings)
        self.log.info(
            lf.EVENT_DONE,
            **{
                lf.EVENT: lf.EVENT_DONE,
                lf.STOP_REASON: stop_reason,
                lf.ITERATIONS: self.stats.iterations,
                lf.DURATION_MS: duration,
                lf.TIME_TO_FIRST_EVENT_MS: self.first_event_ms,
            },
            mode=self.stats.mode or self.query.mode,  # auto: the path it took
            error_code=error_code,
            sub_query_count=self.stats.sub_queries,
            result_count=self.stats.results,
            distinct_documents=self.stats.distinct_documents,
            cited_results=self.stats.cited_results,
            guardrail_interventions=self.stats.guardrail_interventions,
            estimated_cost_usd=cost,
            estimated_cost_excludes_planner_model=self._cost_excludes_planner_model(),
            upstream_request_id=self.stats.upstream_request_id,
            failed_knowledge_bases=list(self.stats.failed_knowledge_bases) or None,
        )
        metrics.emit(
            self.service.settings.tenant,
            metrics.RequestOutcome(
                correlation_id=self.cid,
                duration_ms=duration,
                error_code=error_code,
                streamed=True,
                stop_reason=stop_reason,
                time_to_first_event_ms=self.first_event_ms,
                iterations=self.stats.iterations,
                sub_queries=self.stats.sub_queries,
                results=self.stats.results,
                distinct_documents=self.stats.distinct_documents,
                cited_results=self.stats.cited_results,
                guardrail_interventions=self.stats.guardrail_interventions,
                estimated_cost_usd=cost,
            ),
            self.service.write_metrics,
        )
        tenant = self.service.settings.tenant
        cache_metrics.emit(tenant, self.cid, self.cache, duration, self.service.write_metrics)


def _recorder() -> Any:
    from lambdas.endpoint.cache.entry import EntryRecorder  # only tenants with a cache get here

    return EntryRecorder()


async def _cache_lookup(service: Service, query: Query, user_id: str | None, log: RequestLog) -> Decision | None:
    """The cache's decision for this request (None: the tenant has no cache), off the event loop."""
    if service.cache is None:
        return None
    decision = await asyncio.to_thread(service.cache.decide, query, user_id, query.cache_bypass)
    log.info(
        "cache",
        cache=decision.outcome,
        reason=decision.reason,
        lookup_ms=decision.lookup_ms,
        stale=decision.stale,
        acl_denied=decision.acl_denied,
    )
    return decision


def _log_request(
    log: RequestLog, query: Query, user_id: str | None, memory: conversation.MemoryOutcome | None = None
) -> None:
    """The accepted request, one record (the question cut at 1,000 characters)."""
    log.info(
        lf.EVENT_REQUEST,
        **{lf.EVENT: lf.EVENT_REQUEST},
        mode=query.mode,
        question=query.question[:1000],
        messages=len(query.messages),
        knowledge_bases=list(query.knowledge_bases),
        max_agent_iteration=query.max_agent_iteration,
        max_results=query.max_results,
        generate_response=query.generate_response,
        has_filter=query.filter is not None,
        user_id=user_id,
        session_id=query.session_id,
        memory_bound=None if memory is None else memory.binding is not None,
        memory_unbound_reason=None if memory is None else memory.unbound_reason,
        persistence=query.memory.persistence if query.memory is not None else None,
    )


def _serve_hit(
    service: Service, request: Request, decision: Decision, log: RequestLog, cid: str, started: float
) -> Response:
    """The same event contract as a run, from the stored entry (cache/replay.py)."""
    from lambdas.endpoint.cache import replay  # only tenants with a cache get here

    encoder = encoder_for(request.headers.get("accept"))
    return EventStreamResponse(
        replay.hit_events(service.settings.tenant, service.write_metrics, decision, log, cid, started, encoder),
        media_type=encoder.media_type,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "X-Request-Id": cid},
    )


def _rejected(service: Service, log: RequestLog, cid: str, started: float, error: errors.ApiError) -> Response:
    log.info(
        lf.EVENT_ERROR,
        **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: error.code},
        status=error.status,
        detail=error.detail or error.message,  # the logs keep the full text (ARNs included); the body never does
    )
    # The same stop reason a stream reports when its deadline passes (`deadline`, not `error`).
    stop_reason = "deadline" if error.code == "deadline" else "error"
    log.info(
        lf.EVENT_DONE,
        **{lf.EVENT: lf.EVENT_DONE, lf.STOP_REASON: stop_reason, lf.DURATION_MS: _ms(started), lf.ITERATIONS: 0},
        error_code=error.code,
    )
    metrics.emit(
        service.settings.tenant,
        metrics.RequestOutcome(
            correlation_id=cid, duration_ms=_ms(started), error_code=error.code, stop_reason=stop_reason
        ),
        service.write_metrics,
    )
    return JSONResponse(error.body(), error.status, headers={**error.headers, "X-Request-Id": cid})


async def _accept(
    service: Service, request: Request, log: RequestLog
) -> tuple[Query, str | None, conversation.MemoryOutcome | None] | None:
    """Caller, body, query, end user and memory binding, or ApiError; None: the client hung up mid-body."""
    settings = service.settings
    # Raw ASGI headers: a repeated x-amzn-request-context is refused, never resolved to its first copy.
    caller = identity.caller_from_raw_headers(
        request.scope["headers"], service.local_mode, service.local_caller_arn, service.request_contexts
    )
    log.bind(**{lf.CALLER: caller.arn})
    check_content_type(request.headers.get("content-type"))
    body = await _read_body(request, settings.max_body_bytes, service.body_timeout_seconds)
    if body is None:
        return None
    query = parse_query(body, settings, modes.MODES)
    user_id = identity.resolve_user_id(
        settings.user_context, caller, query.user_id, settings.trusted_callers, settings.session_name_callers
    )
    # The session's actor is the verified end user, never a value from the body (conversation.py).
    memory = conversation.bind(settings, query, caller, user_id)
    if memory is not None and memory.binding is not None:
        query = dataclasses.replace(query, memory=memory.binding)
    # A nextToken continues only the request it was sealed to (page_tokens.py): 400 before Bedrock otherwise.
    binding = service.page_tokens.binding(settings.tenant, caller.arn, user_id, query)
    upstream_token = None if query.next_token is None else service.page_tokens.open(query.next_token, binding)
    query = dataclasses.replace(query, page_binding=binding, next_token=upstream_token)
    return query, user_id, memory


async def handle_query(service: Service, request: Request) -> Response:
    started = time.monotonic()
    settings = service.settings
    cid = correlation_id(request)
    log = RequestLog(cid, settings.tenant)
    try:
        accepted = await _accept(service, request, log)
    except errors.ApiError as error:
        return _rejected(service, log, cid, started, error)
    if accepted is None:
        return _abandoned(log, started)
    query, user_id, memory = accepted
    _log_request(log, query, user_id, memory)
    decision = await _cache_lookup(service, query, user_id, log)
    if decision is not None and decision.outcome == "hit":
        return _serve_hit(service, request, decision, log, cid, started)
    run = QueryRun(service, query, log, cid, started, decision, memory)
    relay = run.start(user_id)
    first = await _first_item(relay, request)
    if first is None:  # the client left before the first event: end the upstream call now
        relay.cancel()
        run.finish("client_closed", None)
        return Response(status_code=400)
    if first.kind in ("error", "deadline"):
        relay.cancel()
        if first.kind == "deadline":
            rejection = errors.deadline_api_error(settings.deadline_seconds)
        else:
            # An "error" outcome carries its exception; were it missing, answer 500 rather than guess.
            failure = first.error or RuntimeError("the upstream call failed without an error")
            attempts = max(relay.attempts, relay.policy.attempts)
            rejection = errors.api_error_for(failure, service.backoff.retry_after_seconds(attempts), service.alias_of)
            if rejection.code == "internal":
                log.exception("upstream call failed", failure)
        return _rejected(service, log, cid, started, rejection)
    encoder = encoder_for(request.headers.get("accept"))
    return EventStreamResponse(
        run.events(first, encoder),
        media_type=encoder.media_type,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "X-Request-Id": cid},
    )
