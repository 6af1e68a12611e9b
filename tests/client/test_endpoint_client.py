"""The Python client against a stub endpoint (real HTTP, scripted wire): events, errors, timeouts.

The same behaviours against the real endpoint service are in the `*_real_endpoint` tests below.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from botocore.credentials import Credentials

from client import endpoint_client
from client.endpoint_client import (
    Client,
    EndpointConnectionError,
    EndpointHTTPError,
    EndpointTimeout,
    InvalidRequest,
    StreamError,
    Timeouts,
    request_body,
)
from contract.events import DoneEvent, ErrorEvent, TextEvent, TraceEvent
from tests.client.stub_endpoint import Reply, ndjson, sample_events, sse, stub_endpoint
from tests.emulator_http import emulator_streams


@pytest.fixture
def stub():
    with stub_endpoint() as endpoint:
        yield endpoint


def test_query_posts_camel_case_body_and_yields_typed_sse_events(stub):
    stub.reply = Reply(chunks=[sse(*sample_events())])
    with Client(stub.url) as client:
        events = list(
            client.query("What is the rate limit?", knowledge_bases=["docs"], max_results=5, generate_response=False)
        )
    assert events == sample_events()
    request = stub.requests[0]
    assert request.path == "/v1/query"
    assert request.headers["Accept"] == "text/event-stream"
    assert json.loads(request.body) == {
        "question": "What is the rate limit?",
        "knowledgeBases": ["docs"],
        "maxResults": 5,
        "generateResponse": False,
    }
    assert "Authorization" not in request.headers  # local endpoints are never signed


def test_ndjson_format_asks_for_ndjson_and_yields_the_same_events(stub):
    stub.reply = Reply(headers={"Content-Type": "application/x-ndjson"}, chunks=[ndjson(*sample_events())])
    with Client(stub.url, format="ndjson") as client:
        assert list(client.query("q")) == sample_events()
    assert stub.requests[0].headers["Accept"] == "application/x-ndjson"


def test_first_event_is_yielded_while_the_server_is_still_streaming(stub):
    """The stub holds the rest of the stream until the test has the first event in hand; a
    buffering client would never get it, and the stub would report that it gave up waiting."""
    first_received = threading.Event()
    gave_up: list[bool] = []
    events = sample_events()
    stub.reply = Reply(chunks=[sse(events[0]), lambda: gave_up.append(not first_received.wait(5)), sse(*events[1:])])
    with Client(stub.url) as client:
        stream = client.query("q")
        assert next(stream) == events[0]
        first_received.set()
        assert list(stream) == events[1:]
    assert gave_up == [False]


def test_http_error_before_streaming_carries_status_code_message_and_retry_after(stub):
    body = json.dumps({"error": {"code": "throttled", "message": "Bedrock is throttling"}}).encode()
    stub.reply = Reply(status=429, headers={"Content-Type": "application/json", "Retry-After": "3"}, chunks=[body])
    with Client(stub.url) as client, pytest.raises(EndpointHTTPError) as caught:
        list(client.query("q"))
    error = caught.value
    assert (error.status, error.code, error.message, error.retry_after) == (
        429,
        "throttled",
        "Bedrock is throttling",
        3,
    )
    assert "retry after 3 s" in str(error)


def test_lambda_url_front_end_errors_are_reported_with_their_message(stub):
    body = b'{"Message":"Forbidden. For troubleshooting Function URL authorization issues, see: ..."}'
    stub.reply = Reply(status=403, headers={"Content-Type": "application/json"}, chunks=[body])
    with Client(stub.url) as client, pytest.raises(EndpointHTTPError) as caught:
        list(client.query("q"))
    assert (caught.value.status, caught.value.code) == (403, "http_403")
    assert caught.value.message.startswith("Forbidden.")


def test_a_200_with_the_wrong_content_type_is_not_read_as_a_stream(stub):
    stub.reply = Reply(headers={"Content-Type": "text/html"}, chunks=[b"<html>proxy login</html>"])
    with Client(stub.url) as client, pytest.raises(EndpointHTTPError, match="unexpected_content_type"):
        list(client.query("q"))


def test_connection_refused_raises_endpoint_connection_error():
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with (
        Client(f"http://127.0.0.1:{port}") as client,
        pytest.raises(EndpointConnectionError, match="cannot reach"),
    ):
        list(client.query("q"))


def test_stream_ending_without_done_raises_stream_interrupted(stub):
    stub.reply = Reply(chunks=[sse(*sample_events()[:3])])
    with Client(stub.url) as client, pytest.raises(StreamError) as caught:
        list(client.query("q"))
    assert (caught.value.code, caught.value.retryable) == ("stream_interrupted", True)


def test_an_invalid_frame_raises_bad_event(stub):
    stub.reply = Reply(chunks=[b"event: trace\ndata: {oops\n\n"])
    with Client(stub.url) as client, pytest.raises(StreamError, match="bad_event"):
        list(client.query("q"))


def test_silence_longer_than_idle_timeout_raises_endpoint_timeout(stub):
    # The stub stalls on purpose between two events: the silence is what is tested.
    stub.reply = Reply(chunks=[sse(sample_events()[0]), lambda: time.sleep(1.5), sse(sample_events()[-1])])
    with Client(stub.url, timeouts=Timeouts(idle=0.3)) as client, pytest.raises(EndpointTimeout) as caught:
        list(client.query("q"))
    assert caught.value.phase == "idle"


def test_keep_alives_without_an_event_hit_the_first_event_timeout(stub):
    keep_alive = [b": keep-alive\n\n", lambda: time.sleep(0.1)] * 15  # comments only, on purpose, for 1.5 s
    stub.reply = Reply(chunks=[*keep_alive, sse(*sample_events())])
    client = Client(stub.url, timeouts=Timeouts(first_event=0.4, idle=5))
    with client, pytest.raises(EndpointTimeout) as caught:
        list(client.query("q"))
    assert caught.value.phase == "first_event"


def test_error_events_are_yielded_by_query_and_raised_by_ask(stub):
    error = ErrorEvent(code="upstream_error", message="internalServerException", retryable=True)
    done = DoneEvent(requestId="r", stopReason="error", iterations=0, durationMs=5, timeToFirstEventMs=1)
    stub.reply = Reply(chunks=[sse(sample_events()[0], error, done)])
    with Client(stub.url) as client:
        assert error in list(client.query("q"))
        with pytest.raises(StreamError) as caught:
            client.ask("q")
    assert (caught.value.code, caught.value.retryable, caught.value.done) == ("upstream_error", True, done)


def test_ask_collects_answer_results_citations_trace_and_done(stub):
    stub.reply = Reply(chunks=[sse(*sample_events())])
    with Client(stub.url) as client:
        answer = client.ask("q")
    assert answer.answer == "The limit is 100 requests per minute."
    assert [item.knowledgeBase for item in answer.results] == ["docs", "wiki"]
    assert answer.citations[0].results == [0, 1]
    assert [(step.step, step.status) for step in answer.trace] == [
        ("Planning", "IN_PROGRESS"),
        ("Planning", "SUCCEEDED"),
        ("Retrieval", "SUCCEEDED"),
    ]
    assert answer.done.requestId == "req-1" and answer.complete and answer.stop_reason == "complete"


@pytest.mark.parametrize("stop_reason", ["iteration_limit", "partial"])
def test_ask_returns_a_budget_limited_or_partial_answer_flagged_by_its_stop_reason(stub, stop_reason):
    events = [e for e in sample_events() if not isinstance(e, DoneEvent)]
    done = DoneEvent(requestId="r", stopReason=stop_reason, iterations=3, durationMs=9, partial=True)
    stub.reply = Reply(chunks=[sse(*events, done)])
    with Client(stub.url) as client:
        answer = client.ask("q")
    assert answer.answer == "The limit is 100 requests per minute." and answer.results
    assert (answer.stop_reason, answer.complete) == (stop_reason, False)


def test_ask_raises_on_a_deadline_stop_reason_without_an_error_event(stub):
    done = DoneEvent(requestId="r", stopReason="deadline", iterations=2, durationMs=9, timeToFirstEventMs=1)
    stub.reply = Reply(chunks=[sse(TextEvent("partial"), done)])
    with Client(stub.url) as client, pytest.raises(StreamError) as caught:
        client.ask("q")
    assert caught.value.code == "deadline"


@pytest.mark.parametrize("signed", [False, True], ids=["local", "signed"])
def test_client_sockets_have_nagle_disabled(stub, monkeypatch, signed):
    """httpcore sets TCP_NODELAY itself; this reads it off the real connection each request used
    (httpx's `network_stream` extension), so a transport that stops doing it is caught."""
    nodelay: list[int] = []
    build = endpoint_client.http_client

    def record(response):
        sock = response.extensions["network_stream"].get_extra_info("socket")
        nodelay.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    def observed(timeouts):
        http = build(timeouts)
        http.event_hooks["response"].append(record)
        return http

    monkeypatch.setattr(endpoint_client, "http_client", observed)
    stub.reply = Reply(chunks=[sse(*sample_events())])
    credentials = Credentials("AKIDEXAMPLE", "secret") if signed else None
    with Client(stub.url, credentials=credentials, region="us-east-1", sign=signed) as client:
        assert list(client.query("q")) == sample_events()
    assert ("Authorization" in stub.requests[0].headers) is signed
    assert len(nodelay) == 1 and nodelay[0] != 0


def test_request_body_needs_exactly_one_of_question_or_messages():
    with pytest.raises(InvalidRequest, match="exactly one"):
        request_body("q", messages=[{"role": "user", "content": "q"}])
    with pytest.raises(InvalidRequest, match="exactly one"):
        request_body()
    assert request_body(messages=[{"role": "user", "content": "q"}], user_id="u1", mode="auto") == {
        "messages": [{"role": "user", "content": "q"}],
        "userId": "u1",
        "mode": "auto",
    }


@pytest.mark.parametrize(
    "options",
    [
        {"question": "q", "max_results": 0},
        {"question": "q", "session_id": "-starts-with-a-dash"},
        {"question": "q", "next_token": "two words"},
        {"question": "   "},
        {"messages": [{"role": "user", "content": {"text": "q"}}]},
        {"messages": [{"role": "assistant", "content": "a"}]},
        {"question": "q", "user_id": "bo\u200bb"},
        {"question": "q", "persistence": "sometimes"},
        {"question": "q", "messages": [{"role": "user", "content": "q"}]},
    ],
)
def test_a_body_the_endpoint_would_refuse_is_refused_before_sending_with_the_endpoints_sentence(options):
    """contract/request_body.py states the rules once: the client's error is the endpoint's 400, word for word."""
    from lambdas.endpoint.api_errors import ApiError
    from lambdas.endpoint.request import parse_query
    from tests.endpoint_server import tenant_settings

    with pytest.raises(InvalidRequest) as refused:
        request_body(**options)
    names = {"max_results": "maxResults", "session_id": "sessionId", "next_token": "nextToken", "user_id": "userId"}
    body = {names.get(key, key): value for key, value in options.items()}
    with pytest.raises(ApiError) as endpoint_said:
        parse_query(json.dumps(body).encode(), tenant_settings())
    assert endpoint_said.value.code == refused.value.code == "invalid_request"
    assert str(refused.value) == endpoint_said.value.message


def test_closing_the_iterator_early_closes_the_connection(stub):
    """The endpoint notices the hang-up and stops its upstream call; here the stub notices its
    writes failing once the client has gone."""
    events = sample_events()
    # The stub pauses on purpose (the client leaves meanwhile), then writes until its writes fail.
    stub.reply = Reply(chunks=[sse(events[0]), lambda: time.sleep(0.3), *([sse(events[1])] * 5000)])
    with Client(stub.url) as client:
        stream = client.query("q")
        assert isinstance(next(stream), TraceEvent)
        stream.close()
    assert stub.hung_up.wait(10)


# --- Against the real endpoint service (tests/conftest.py `endpoint`) and the real emulator ---

QUESTION = "How do I rotate an API key?"


@pytest.mark.parametrize("stream_format", ["sse", "ndjson"])
def test_real_endpoint_streams_trace_then_answer_then_result_then_done(endpoint, stream_format):
    with Client(endpoint.url, format=stream_format) as client:
        events = list(client.query(QUESTION))
    types = [event.type for event in events]
    assert types[0] == "trace" and types[-1] == "done"
    assert "text" in types and types.index("result") > types.index("text")
    assert events[-1].stopReason == "complete"
    assert all(isinstance(event, TraceEvent) for event in events[: types.index("text")])


def test_real_endpoint_ask_collects_a_cited_answer(endpoint):
    with Client(endpoint.url) as client:
        answer = client.ask(QUESTION, max_agent_iteration=2)
    assert "key" in answer.answer.lower()
    assert answer.results and answer.citations
    assert all(0 <= index < len(answer.results) for c in answer.citations for index in c.results)
    assert {step.step for step in answer.trace} >= {"SpeculativeRetrieval", "Planning"}
    assert answer.done.iterations >= 1 and answer.done.stopReason == "complete"


def test_real_endpoint_first_event_arrives_while_the_emulator_is_still_streaming(endpoint, emulator, faults):
    faults.set(delay_ms=150)
    with Client(endpoint.url) as client:
        stream = client.query(QUESTION)
        first = next(stream)
        at_first = max(emulator_streams(emulator.url), key=lambda record: record["id"])
        rest = list(stream)
    final = next(record for record in emulator_streams(emulator.url) if record["id"] == at_first["id"])
    assert isinstance(first, TraceEvent) and rest[-1].type == "done"
    assert at_first["finished"] is False
    assert final["finished"] is True and final["events_sent"] > at_first["events_sent"]


def test_real_endpoint_throttled_past_its_retries_raises_429_with_retry_after(endpoint, faults):
    faults.set(throttle_before=20)
    with Client(endpoint.url) as client, pytest.raises(EndpointHTTPError) as caught:
        list(client.query(QUESTION))
    assert (caught.value.status, caught.value.code) == (429, "throttled")
    assert caught.value.retry_after is not None and caught.value.retry_after >= 1


def test_real_endpoint_error_mid_stream_is_yielded_then_raised_by_ask(endpoint, faults):
    faults.set(error_after_events=3, error_type="internalServerException")
    with Client(endpoint.url) as client:
        events = list(client.query(QUESTION))
        errors = [event for event in events if isinstance(event, ErrorEvent)]
        assert len(errors) == 1 and events[-1].stopReason == "error"
        faults.set(error_after_events=3, error_type="internalServerException")
        with pytest.raises(StreamError) as caught:
            client.ask(QUESTION)
    assert caught.value.code == errors[0].code
    assert caught.value.done is not None and caught.value.done.stopReason == "error"
