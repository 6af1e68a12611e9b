"""A Python client for a tenant's endpoint, deployed (IAM-signed) or local (`akb local`).

`Client.query()` yields the typed events of `contract.events` the moment each arrives
(an `ErrorEvent` is yielded like any other: the caller decides); `Client.ask()` collects them into
an `Answer` — with its stop reason: a budget-limited (`iteration_limit`) or `partial` answer is
returned flagged (`Answer.complete` is False), never as a complete one — and raises `StreamError`
if the stream carried an error or ended any other way. Failures before the stream
starts raise `EndpointHTTPError` (the endpoint answered with a status) or `EndpointConnectionError`
(it could not be reached); `EndpointTimeout` when the first event or the next one is late. See
docs/client.md.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import httpx

from client import sigv4
from client.sse import ACCEPT, DECODERS, StreamDecodeError, StreamFormat
from contract.events import (
    Citation,
    DoneEvent,
    ErrorEvent,
    Event,
    ResultEvent,
    ResultItem,
    TextEvent,
    TraceEvent,
)
from contract.request_body import QUESTION_OR_MESSAGES, BodyError, validate_body

if TYPE_CHECKING:  # botocore loads only to sign (sigv4.py): a local endpoint is never signed
    from botocore.credentials import Credentials, ReadOnlyCredentials

QUERY_PATH = "/v1/query"


@dataclass(frozen=True)
class Timeouts:
    """Seconds. `first_event` runs from sending the request to the first event; `idle` is the
    longest silence allowed on the socket once connected (keep-alive comments count as traffic),
    so it also bounds the wait for the first event. The endpoint's own deadline (the tenant's
    `deadline_seconds`, 290 by default) normally ends a request first, with a `deadline` error event.
    """

    connect: float = 10.0
    first_event: float = 60.0
    idle: float = 120.0


class EndpointError(Exception):
    """Base of every error this client raises."""


class EndpointHTTPError(EndpointError):
    """The endpoint refused the request before streaming (4xx/5xx with `{"error": {code, message}}`)."""

    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None) -> None:
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after
        hint = f" (retry after {retry_after:g} s)" if retry_after is not None else ""
        super().__init__(f"HTTP {status} {code}: {message}{hint}")


class InvalidRequest(EndpointError, ValueError):
    """A body the endpoint would refuse (400 invalid_request), caught before sending: the message is the
    endpoint's own (contract/request_body.py states the rules once for both)."""

    code = "invalid_request"


class EndpointConnectionError(EndpointError):
    """No HTTP answer at all: refused, DNS, TLS or connect timeout. `url`: the endpoint tried."""

    def __init__(self, message: str, url: str = "") -> None:
        super().__init__(message)
        self.url = url


class EndpointTimeout(EndpointError):
    """The endpoint answered but went quiet: `phase` is 'first_event' or 'idle'."""

    def __init__(self, phase: str, seconds: float) -> None:
        self.phase, self.seconds = phase, seconds
        what = "the first event" if phase == "first_event" else "the next event"
        super().__init__(f"no {what} within {seconds:g} s")


class StreamError(EndpointError):
    """The stream reported an error (an `error` event), or broke off before its `done` event.

    `code` is the endpoint's error code (`deadline`, `throttled`, ...) or `stream_interrupted` /
    `bad_event` for a broken stream; `retryable` says whether the same request may succeed later.
    """

    def __init__(self, code: str, message: str, retryable: bool = False, done: DoneEvent | None = None) -> None:
        self.code, self.message, self.retryable, self.done = code, message, retryable, done
        super().__init__(f"{code}: {message}")


@dataclass
class Answer:
    """Everything one request produced, collected by `Client.ask()`."""

    answer: str
    results: list[ResultItem]
    citations: list[Citation]
    trace: list[TraceEvent]
    done: DoneEvent
    note: str | None = None
    errors: list[ErrorEvent] = field(default_factory=list)

    @property
    def stop_reason(self) -> str:
        """`complete`, or why the answer may miss parts: `iteration_limit` (the planner used every
        iteration the tenant allows before judging the evidence sufficient) or `partial` (a source failed)."""
        return self.done.stopReason

    @property
    def complete(self) -> bool:
        """True only when the planner judged the evidence sufficient and nothing failed."""
        return self.done.stopReason == "complete"


# Stop reasons of a stream that ended normally: ask() returns these answers, flagged by stop_reason.
ANSWERED_STOP_REASONS = ("complete", "iteration_limit", "partial")


class QueryOptions(TypedDict, total=False):
    """The endpoint's request options (docs/endpoint.md); omitted ones take the tenant's defaults."""

    messages: Sequence[dict[str, Any]] | None
    knowledge_bases: Sequence[str] | None
    generate_response: bool | None
    max_agent_iteration: int | None
    max_results: int | None  # per knowledge base: 3 over two knowledge bases returns up to 6
    filter: dict[str, Any] | None
    mode: str | None
    user_id: str | None
    next_token: str | None  # the previous page's done.nextToken
    session_id: str | None  # a conversation of the verified end user (docs/conversations.md)
    persistence: str | None  # default | none: write this turn back to the session or not


def request_body(
    question: str | None = None,
    *,
    messages: Sequence[dict[str, Any]] | None = None,
    knowledge_bases: Sequence[str] | None = None,
    generate_response: bool | None = None,
    max_agent_iteration: int | None = None,
    max_results: int | None = None,
    filter: dict[str, Any] | None = None,
    mode: str | None = None,
    user_id: str | None = None,
    next_token: str | None = None,
    session_id: str | None = None,
    persistence: str | None = None,
) -> dict[str, Any]:
    """The endpoint's camelCase JSON body; options left as None are omitted (the tenant's defaults).

    Checked by the contract's own validator (contract/request_body.py, the endpoint's): a body the
    endpoint would refuse raises InvalidRequest with the endpoint's sentence, before anything is sent."""
    fields = {
        "question": question,
        "messages": list(messages) if messages is not None else None,
        "knowledgeBases": list(knowledge_bases) if knowledge_bases else None,
        "generateResponse": generate_response,
        "maxAgentIteration": max_agent_iteration,
        "maxResults": max_results,
        "filter": filter,
        "mode": mode,
        "userId": user_id,
        "nextToken": next_token,
        "sessionId": session_id,
        "persistence": persistence,
    }
    body = {key: value for key, value in fields.items() if value is not None}
    try:
        validate_body(body)
    except BodyError as error:
        raise InvalidRequest(error.described()) from None
    if (question is None) == (messages is None):
        raise InvalidRequest(QUESTION_OR_MESSAGES)
    return body


class Client:
    """One tenant endpoint. `url` is the function URL, the API's URL (execute-api or custom domain), or
    `http://127.0.0.1:8080` for `akb local`.

    Requests to any host other than localhost/127.0.0.1 are signed with SigV4: for `lambda` (function
    URLs) or `execute-api` (anything else; sigv4.service_for); `credentials` default to the standard AWS
    chain, `region` to the one in the URL's host name (a custom domain needs `region`). `sign` forces
    signing on or off (None: decide by host); `service` the SigV4 service (None: decide by host).
    """

    def __init__(
        self,
        url: str,
        credentials: Credentials | ReadOnlyCredentials | None = None,
        region: str | None = None,
        *,
        format: StreamFormat = "sse",
        timeouts: Timeouts = Timeouts(),
        sign: bool | None = None,
        service: str | None = None,
    ) -> None:
        if format not in DECODERS:
            raise ValueError(f"format must be one of {sorted(DECODERS)}, not {format!r}")
        self.url = url.rstrip("/")
        self.format: StreamFormat = format
        self.timeouts = timeouts
        self.signed = (not sigv4.is_local(url)) if sign is None else sign
        self.region = region or sigv4.region_from_url(url)
        self.service = service or sigv4.service_for(url)  # lambda (function URL) | execute-api (API Gateway)
        if self.signed and not self.region:
            raise ValueError(f"cannot tell the region of {url}: pass region=")
        self._credentials = credentials
        self._http = http_client(timeouts)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def query(
        self,
        question: str | None = None,
        *,
        format: StreamFormat | None = None,
        **options: Unpack[QueryOptions],
    ) -> Iterator[Event]:
        """Yields each event as it arrives, `ErrorEvent`s included, ending with the `DoneEvent`.

        Options are `request_body`'s. The request is sent when iteration starts; closing the
        iterator early closes the connection (the endpoint then stops its upstream call).
        Raises EndpointHTTPError / EndpointConnectionError before the first event, EndpointTimeout,
        and StreamError only when the stream breaks off without `done` or carries an invalid frame.
        """
        body = json.dumps(request_body(question, **options), separators=(",", ":")).encode()
        fmt = format or self.format
        request = self._http.build_request(
            "POST", self.url + QUERY_PATH, content=body, headers=self._headers(fmt, body)
        )
        started = time.monotonic()
        try:
            response = self._http.send(request, stream=True)
        except httpx.TimeoutException as error:
            if isinstance(error, httpx.ConnectTimeout):
                raise EndpointConnectionError(f"cannot connect to {self.url}: timed out", self.url) from None
            raise EndpointTimeout("first_event", self.timeouts.idle) from None
        except httpx.TransportError as error:
            raise EndpointConnectionError(
                f"cannot reach {self.url}: {error or type(error).__name__}", self.url
            ) from None
        try:
            if response.status_code != 200:
                raise _http_error(response)
            yield from self._events(response, fmt, started)
        finally:
            response.close()

    def ask(
        self,
        question: str | None = None,
        *,
        format: StreamFormat | None = None,
        **options: Unpack[QueryOptions],
    ) -> Answer:
        """Runs one request to the end and returns the collected `Answer`.

        Returns answers that ended `complete`, `iteration_limit` or `partial`: check
        `Answer.complete` / `Answer.stop_reason` before treating one as whole. Raises StreamError
        (with `.done` when it arrived) if the stream carried an `error` event or ended any other way
        (`deadline`, `error`, ...).
        """
        trace: list[TraceEvent] = []
        deltas: list[str] = []
        errors: list[ErrorEvent] = []
        result: ResultEvent | None = None
        done: DoneEvent | None = None
        for event in self.query(question, format=format, **options):
            if isinstance(event, TraceEvent):
                trace.append(event)
            elif isinstance(event, TextEvent):
                deltas.append(event.delta)
            elif isinstance(event, ResultEvent):
                result = event
            elif isinstance(event, ErrorEvent):
                errors.append(event)
            elif isinstance(event, DoneEvent):
                done = event
        if done is None:  # query() raises this already; never return an answer the stream did not finish
            raise StreamError("stream_interrupted", "the stream ended before its done event", True)
        if errors:
            first = errors[0]
            raise StreamError(first.code, first.message, first.retryable, done)
        if done.stopReason not in ANSWERED_STOP_REASONS:
            raise StreamError(done.stopReason, f"the request ended with stopReason {done.stopReason}", False, done)
        answer = "".join(deltas) or (result.answer if result and result.answer else "")
        return Answer(
            answer=answer,
            results=list(result.results) if result else [],
            citations=list(result.citations) if result else [],
            trace=trace,
            done=done,
            note=result.note if result else None,
        )

    def _headers(self, fmt: StreamFormat, body: bytes) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": ACCEPT[fmt]}
        if not self.signed:
            return headers
        credentials = self._credentials if self._credentials is not None else sigv4.default_credentials()
        self._credentials = credentials
        if self.region is None:  # __init__ refuses a signed client without one
            raise sigv4.SigningError(f"no region to sign for {self.url}: pass region=")
        return sigv4.sign(
            "POST", self.url + QUERY_PATH, headers, body, sigv4.frozen(credentials), self.region, self.service
        )

    def _events(self, response: httpx.Response, fmt: StreamFormat, started: float) -> Iterator[Event]:
        content_type = response.headers.get("content-type", "").split(";")[0].strip()
        if content_type != ACCEPT[fmt]:
            raise EndpointHTTPError(
                response.status_code,
                "unexpected_content_type",
                f"expected {ACCEPT[fmt]}, got {content_type or 'none'}",
            )
        first_seen = False

        def chunks() -> Iterator[bytes]:
            # The socket's idle read timeout covers total silence; this covers a server that sends
            # keep-alives but no event, checked as each chunk arrives (no timer thread needed).
            for chunk in response.iter_bytes():
                if not first_seen and time.monotonic() - started > self.timeouts.first_event:
                    raise EndpointTimeout("first_event", self.timeouts.first_event)
                yield chunk

        try:
            for event in DECODERS[fmt](chunks()):
                first_seen = True
                yield event
                if isinstance(event, DoneEvent):
                    return
        except StreamDecodeError as error:
            raise StreamError("bad_event", str(error)) from None
        except httpx.ReadTimeout:
            raise EndpointTimeout("idle", self.timeouts.idle) from None
        except httpx.TransportError as error:
            raise StreamError("stream_interrupted", f"connection lost: {error or type(error).__name__}", True) from None
        raise StreamError("stream_interrupted", "the stream ended before its done event", True)


def http_client(timeouts: Timeouts) -> httpx.Client:
    """The HTTP client every `Client` (signed or local) talks through.

    httpx writes a request's headers and body as two sends; with Nagle's algorithm on, the body
    would wait for the server's delayed (~40 ms) ACK of the headers. httpcore's sync backend sets
    TCP_NODELAY on every connection it opens, so the default transport needs no socket options
    (tests/client/test_endpoint_client.py reads the option back off the real connection).
    """
    return httpx.Client(
        timeout=httpx.Timeout(timeouts.idle, connect=timeouts.connect),
        follow_redirects=False,
    )


def _http_error(response: httpx.Response) -> EndpointHTTPError:
    """The endpoint's `{"error": {code, message}}`, or what Lambda's URL front end says (`{"Message"}`)."""
    text = response.read().decode("utf-8", "replace")
    code, message = f"http_{response.status_code}", text.strip()[:500] or response.reason_phrase
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            code = str(error.get("code") or code)
            message = str(error.get("message") or message)
        elif isinstance(front_end := body.get("Message") or body.get("message"), str):
            message = front_end
    return EndpointHTTPError(response.status_code, code, message, _retry_after(response.headers.get("retry-after")))


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
