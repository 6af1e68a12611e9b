"""`POST /v1/query` as one pipeline: identity → request → mode → wrappers → upstream → relay → finish.

The steps, each another module's job:
1. intake.py: correlation id, the verified caller, the body (bounded in size and time), the query
   (request.py), the end user (identity.py) and the conversation binding (conversation.py);
2. upstream_chain.py: the query's mode (modes/) as the innermost source, inside every wrapper the
   service has (the result cache is one: cache/cache_wrapper.py) — this module never names one;
3. relay.py: the source opened on a worker thread (retried before the first event), its events
   handed to the event loop as each exists;
4. the first event decides the answer: an HTTP error (nothing was sent yet) or a stream
   (event_response.py), each event encoded (encoding.py) and sent, then logged (audit_log.py);
5. finish.py: one `done` event, `done` log record and metrics, for every way a request ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from typing import Any

from contract import log_fields as lf
from contract.enums import StopReason
from contract.events import ErrorEvent, TraceEvent, event_to_dict
from lambdas.endpoint import api_errors as errors
from lambdas.endpoint import intake
from lambdas.endpoint.audit_log import log_request, log_trace
from lambdas.endpoint.encoding import Encoder, encoder_for
from lambdas.endpoint.event_response import EventStreamResponse, disconnected
from lambdas.endpoint.finish import Ending, RequestRecord, finish, ms_since
from lambdas.endpoint.http_exchange import App, HttpRequest, HttpResponse, json_response
from lambdas.endpoint.logs import RequestLog
from lambdas.endpoint.relay import Item, Relay
from lambdas.endpoint.service import Service
from lambdas.endpoint.upstream_chain import Plan, chain

STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
_ABANDONED = "the client closed the connection before sending the whole body"


async def handle_query(service: Service, request: HttpRequest) -> App:
    started = time.monotonic()
    cid = intake.correlation_id(request)
    record = RequestRecord(cid, RequestLog(cid, service.settings.tenant), started)
    relay: Relay | None = None
    try:
        accepted = await intake.accept(service, request, record.log)
        if accepted is None:  # hung up mid-body: one record, no traceback, nobody to answer
            finish(service, record, Ending("client_closed", streamed=False, detail=_ABANDONED))
            return HttpResponse(400)
        record.query, record.memory = accepted.query, accepted.memory
        relay = _start(service, record, accepted)  # first: the upstream call is on its way while we log
        log_request(record.log, accepted.query, accepted.user_id, accepted.memory)
    except errors.ApiError as error:
        return _refused(service, record, error)
    except Exception:  # a bug of ours before any event: a 500 without the traceback, still finished
        if relay is not None:  # the upstream call already started: end it
            relay.cancel()
        record.log.exception("endpoint error before streaming")
        return _refused(service, record, errors.internal_api_error())
    first = await _first_item(relay, request)
    if first is None:  # the client left before the first event: end the upstream call now
        relay.cancel()
        finish(service, record, Ending("client_closed", stats=relay.stats))
        return HttpResponse(400)
    if first.kind in ("error", "deadline"):
        relay.cancel()
        return _refused(service, record, _rejection(service, record, relay, first))
    encoder = encoder_for(request.headers.get("accept"))
    frames = _frames(service, record, relay, first, encoder)
    return EventStreamResponse(frames, encoder.media_type, {**STREAM_HEADERS, "X-Request-Id": cid})


def _start(service: Service, record: RequestRecord, accepted: intake.Accepted) -> Relay:
    """The request's upstream (its mode inside the service's wrappers), opening on a worker thread."""
    settings = service.settings
    plan = Plan(
        accepted.query,
        accepted.user_id,
        settings,
        record.log,
        record.started,
        service.client_factory,
        service.alias_of,
    )
    relay = Relay(
        chain(plan, service.wrappers).open,
        deadline=record.started + settings.deadline_seconds,
        max_attempts=settings.upstream_max_attempts,
        should_retry=errors.is_retryable_before_first_byte,
        backoff=service.backoff,
        on_retry=lambda attempt, error: record.log.warning(
            "upstream retry", attempt=attempt, upstream_error=errors.error_code_of(error)
        ),
    )
    relay.start()
    return relay


async def _first_item(relay: Relay, request: HttpRequest) -> Item | None:
    """The relay's first item, or None when the client hangs up first (the caller cancels)."""
    first = asyncio.ensure_future(relay.next())
    gone = asyncio.ensure_future(disconnected(request.receive))
    try:
        await asyncio.wait({first, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if first.done():
        return first.result()
    first.cancel()
    return None


def _rejection(service: Service, record: RequestRecord, relay: Relay, first: Item) -> errors.ApiError:
    """What to answer when the upstream failed (or the deadline passed) before its first event."""
    if first.kind == "deadline":
        return errors.deadline_api_error(service.settings.deadline_seconds)
    # An "error" outcome carries its exception; were it missing, answer 500 rather than guess.
    failure = first.error or RuntimeError("the upstream call failed without an error")
    attempts = max(relay.attempts, relay.policy.attempts)
    rejection = errors.api_error_for(failure, service.backoff.retry_after_seconds(attempts), service.alias_of)
    if rejection.code == "internal":
        record.log.exception("upstream call failed", failure)
    return rejection


def _refused(service: Service, record: RequestRecord, error: errors.ApiError) -> App:
    record.log.info(
        lf.EVENT_ERROR,
        **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: error.code},
        status=error.status,
        detail=error.detail or error.message,  # the logs keep the full text (ARNs included); the body never does
    )
    # The same stop reason a stream reports when its deadline passes (`deadline`, not `error`).
    stop_reason: StopReason = "deadline" if error.code == "deadline" else "error"
    finish(service, record, Ending(stop_reason, error.code, streamed=False))
    return json_response(error.body(), error.status, headers={**error.headers, "X-Request-Id": record.correlation_id})


def _failure(service: Service, record: RequestRecord, relay: Relay, item: Item) -> ErrorEvent | None:
    """The `error` event for how the stream stopped (None: it ended whole), logged with Bedrock's text."""
    if item.kind == "end":
        return None
    detail = None
    if item.kind == "deadline":
        relay.cancel()
        failure = errors.deadline_event(service.settings.deadline_seconds)
    else:
        upstream = item.error or RuntimeError("the stream failed without an error")
        failure = errors.error_event_for(upstream, service.alias_of)
        detail = errors.classify(upstream).detail  # Bedrock's text, ARNs included: logs only
        if failure.code == "internal":
            record.log.exception("stream failed", upstream)
    record.log.warning(lf.EVENT_ERROR, **{lf.EVENT: lf.EVENT_ERROR, lf.ERROR_CODE: failure.code}, detail=detail)
    return failure


def _ending(relay: Relay, failure: ErrorEvent | None) -> Ending:
    if failure is not None:
        stopped: StopReason = "deadline" if failure.code == "deadline" else "error"
        return Ending(stopped, failure.code, relay.stats)
    stats = relay.stats
    if stats is None or stats.stop_reason is None:  # every upstream says how a whole stream ended
        raise RuntimeError("the upstream ended without a stop reason")
    return Ending(stats.stop_reason, None, stats)


async def _frames(
    service: Service, record: RequestRecord, relay: Relay, first: Item, encoder: Encoder
) -> AsyncGenerator[bytes, Any]:
    """Each event's frame as it arrives, then `done`; however the stream stops, `finish` runs once."""
    finished = False
    try:
        item = first
        while item.kind == "event" and item.event is not None:
            event = item.event
            body = event_to_dict(event)
            if record.first_event_ms is None:
                record.first_event_ms = ms_since(record.started)
            try:
                yield encoder.encode(event, body)
            finally:  # logged once it went out (or the client left): never between Bedrock and the caller
                if isinstance(event, TraceEvent):
                    log_trace(record.log, event, body)
            item = await relay.next()
        failure = _failure(service, record, relay, item)
        if failure is not None:
            yield encoder.encode(failure)
        done = finish(service, record, _ending(relay, failure))
        finished = True
        yield encoder.encode(done)
    except Exception:  # a bug of ours mid-stream: still end the stream properly, never a traceback
        if finished:
            raise
        record.log.exception("endpoint error while streaming")
        relay.cancel()
        finished = True
        done = finish(service, record, Ending("error", "internal", relay.stats))
        yield encoder.encode(errors.internal_event())
        yield encoder.encode(done)
    finally:
        if not finished:  # the client went away (or the server is stopping): end the upstream call now
            relay.cancel()
            finish(service, record, Ending("client_closed", stats=relay.stats))
