"""Errors as botocore sees them: validation and faults before the stream, exceptions inside it."""

from __future__ import annotations

import time

import httpx
import pytest
from botocore.exceptions import ClientError, EventStreamError, ReadTimeoutError

from local.emulator.service_errors import ERRORS
from tests.local.emulator_helpers import request, retriever, run

STREAM_EXCEPTIONS = sorted(member for member, _ in ERRORS.values())


def client_error(call) -> ClientError:
    with pytest.raises(ClientError) as caught:
        call()
    return caught.value


def code_and_status(error: ClientError) -> tuple[str, int]:
    return error.response["Error"]["Code"], error.response["ResponseMetadata"]["HTTPStatusCode"]


@pytest.mark.parametrize("member", STREAM_EXCEPTIONS)
def test_every_in_stream_exception_reaches_the_caller_after_the_events_before_it(bedrock, emulator, member):
    emulator.set_faults(error_after_events=3, error_type=member, error_message="injected")
    received = []
    with pytest.raises(EventStreamError) as caught:
        for event in bedrock.agentic_retrieve_stream(**request("exports"))["stream"]:
            received.append(event)
    assert len(received) == 3
    assert caught.value.response["Error"] == {"Code": member, "Message": "injected"}


def test_stream_faults_apply_to_the_next_stream_only(bedrock, emulator):
    emulator.set_faults(error_after_events=0, error_type="ThrottlingException")
    with pytest.raises(EventStreamError):
        run(bedrock, **request("exports"))
    assert "result" in run(bedrock, **request("exports"))[-1]


@pytest.mark.parametrize("body_change", ["retrievers", "messages", "agenticRetrieveConfiguration"])
def test_missing_required_members_are_validation_errors(unvalidated_bedrock, body_change):
    body = request("exports")
    del body[body_change]
    error = client_error(lambda: unvalidated_bedrock.agentic_retrieve_stream(**body))
    assert code_and_status(error) == ("ValidationException", 400)
    assert body_change in error.response["Error"]["Message"]


def test_six_retrievers_are_too_many(unvalidated_bedrock):
    body = request("exports")
    body["retrievers"] = [retriever(f) for f in ("docs", "tickets", "handbook", "wiki", "docs", "tickets")]
    assert code_and_status(client_error(lambda: unvalidated_bedrock.agentic_retrieve_stream(**body))) == (
        "ValidationException",
        400,
    )


@pytest.mark.parametrize(
    "messages",
    [
        [],
        [{"role": "assistant", "content": {"text": "hi"}}],
        [{"role": "user", "content": {"text": "   "}}],
        [{"role": "user", "content": {"text": "x" * 10_001}}],
        [{"role": "robot", "content": {"text": "hi"}}],
    ],
    ids=["empty", "last-from-assistant", "blank", "too-long", "bad-role"],
)
def test_bad_messages_are_validation_errors(unvalidated_bedrock, messages):
    body = request("exports")
    body["messages"] = messages
    assert code_and_status(client_error(lambda: unvalidated_bedrock.agentic_retrieve_stream(**body)))[0] == (
        "ValidationException"
    )


@pytest.mark.parametrize(
    "change",
    [
        {"agenticRetrieveConfiguration": {"maxAgentIteration": -1}},
        {"agenticRetrieveConfiguration": {"foundationModelType": "CUSTOM"}},
        {"retrievers": [retriever("docs", filter={"in": {"key": "product", "value": "skyledger"}})]},
        {"policyConfiguration": {"bedrockGuardrailConfiguration": {"guardrailId": "UPPER", "guardrailVersion": "1"}}},
    ],
    ids=["negative-iterations", "custom-without-model", "filter-in-needs-list", "guardrail-id-pattern"],
)
def test_shape_and_rule_violations_are_validation_errors(unvalidated_bedrock, change):
    body = {**request("exports"), **change}
    assert code_and_status(client_error(lambda: unvalidated_bedrock.agentic_retrieve_stream(**body)))[0] == (
        "ValidationException"
    )


def test_unknown_knowledge_base_is_not_found_before_the_stream(bedrock):
    body = request("exports")
    body["retrievers"][0]["configuration"]["knowledgeBase"]["knowledgeBaseId"] = "ZZZZZZZZZZ"
    error = client_error(lambda: bedrock.agentic_retrieve_stream(**body))
    assert code_and_status(error) == ("ResourceNotFoundException", 404)
    assert "ZZZZZZZZZZ" in error.response["Error"]["Message"]


def test_throttle_before_fails_the_next_requests_then_recovers(bedrock, emulator):
    emulator.set_faults(throttle_before=1)
    error = client_error(lambda: bedrock.agentic_retrieve_stream(**request("exports")))
    assert code_and_status(error) == ("ThrottlingException", 429)
    assert "result" in run(bedrock, **request("exports"))[-1]


def test_botocore_retries_a_throttled_request_by_itself(emulator):
    emulator.set_faults(throttle_before=1)
    retrying = emulator.client(retries={"mode": "standard", "total_max_attempts": 3})
    assert "result" in run(retrying, **request("exports"))[-1]
    assert [r["path"] for r in emulator.requests()] == ["/agenticRetrieveStream"] * 2


def test_error_before_uses_any_service_error(bedrock, emulator):
    emulator.set_faults(error_before=1, error_before_type="accessDeniedException")
    error = client_error(lambda: bedrock.agentic_retrieve_stream(**request("exports")))
    assert code_and_status(error) == ("AccessDeniedException", 403)


def test_error_before_carries_the_given_message(bedrock, emulator):
    message = "User: arn:aws:sts::1:assumed-role/r/f is not authorized to perform: bedrock:Retrieve"
    emulator.set_faults(error_before=1, error_before_type="AccessDeniedException", error_message=message)
    error = client_error(lambda: bedrock.agentic_retrieve_stream(**request("exports")))
    assert error.response["Error"]["Message"] == message


def test_drop_after_events_cuts_the_connection(bedrock, emulator):
    emulator.set_faults(drop_after_events=2)
    received = []
    with pytest.raises(Exception) as caught:  # urllib3 reports the truncated chunked body
        for event in bedrock.agentic_retrieve_stream(**request("exports"))["stream"]:
            received.append(event)
    assert not isinstance(caught.value, EventStreamError)
    assert len(received) == 2
    assert emulator.streams()[-1]["outcome"] == "dropped"


def test_delay_first_ms_holds_the_response_of_the_next_stream_only(bedrock, emulator):
    emulator.set_faults(delay_first_ms=300)
    started = time.monotonic()
    response = bedrock.agentic_retrieve_stream(**request("exports"))  # returns once the headers arrive
    assert time.monotonic() - started >= 0.3
    assert "result" in list(response["stream"])[-1]
    assert emulator.set_faults()["delay_first_ms"] == 0  # consumed by that stream
    assert emulator.streams()[-1]["outcome"] == "completed"


def test_a_client_giving_up_during_delay_first_ms_closes_the_stream_before_any_event(emulator):
    impatient = emulator.client(retries={"mode": "standard", "total_max_attempts": 1}, read_timeout=0.2)
    emulator.set_faults(delay_first_ms=1000)
    with pytest.raises(ReadTimeoutError):
        impatient.agentic_retrieve_stream(**request("exports"))
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not emulator.streams()[-1]["finished"]:
        time.sleep(0.02)
    record = emulator.streams()[-1]
    assert (record["outcome"], record["closed_by_client"], record["events_sent"]) == ("client_closed", True, 0)


def test_injected_retrieval_failure_is_a_failed_step_and_the_stream_goes_on(bedrock, emulator):
    emulator.set_faults(fail_retrievals=1)
    events = run(bedrock, **request("How long are exports kept, and how quickly must a webhook endpoint answer?"))
    statuses = [
        e["traceEvent"]["attributes"]
        for e in events
        if "traceEvent" in e and e["traceEvent"]["attributes"]["step"] == "Retrieval"
    ]
    failed = [s for s in statuses if s["status"] == "FAILED"]
    assert len(failed) == 1 and failed[0]["failures"][0]["message"]
    assert "result" in events[-1]


def test_client_closing_the_stream_stops_the_emulator_producing(bedrock, emulator):
    emulator.set_faults(delay_ms=30)
    response = bedrock.agentic_retrieve_stream(**request("exports", max_iterations=3))
    stream = response["stream"]
    for n, _ in enumerate(stream, start=1):
        if n == 2:
            break
    stream.close()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline and not emulator.streams()[-1]["finished"]:
        time.sleep(0.02)
    record = emulator.streams()[-1]
    assert record["closed_by_client"] is True and record["outcome"] == "client_closed"
    assert 2 <= record["events_sent"] < 10


def test_the_request_journal_shows_what_the_caller_sent(bedrock, emulator):
    run(bedrock, **request("exports", userContext={"userId": "alice"}))
    (entry,) = emulator.requests()
    assert entry["path"] == "/agenticRetrieveStream"
    assert entry["body"]["userContext"] == {"userId": "alice"}
    assert "authorization" not in {k.lower() for k in entry["headers"]}


@pytest.mark.parametrize(
    "raw",
    [
        b"not json",
        b"[1, 2]",
        b'{"messages": {"role": 1}}',
        b'{"retrievers": [{"configuration": 7}]}',
        b"\xff\xfe",
    ],
)
def test_garbage_never_crashes_the_server_or_leaks_a_traceback(emulator, raw):
    response = httpx.post(f"{emulator.url}/agenticRetrieveStream", content=raw)
    assert response.status_code == 400
    assert response.headers["x-amzn-ErrorType"] == "ValidationException"
    assert "Traceback" not in response.text and set(response.json()) == {"message"}
    assert httpx.get(f"{emulator.url}/_emulator/health").status_code == 200


def test_an_inactive_instruction_fails_only_requests_that_name_it_until_cleared(bedrock, emulator):
    emulator.set_faults(instruction_inactive=True)
    named = {**request("exports"), "retrievalInstructionConfiguration": {"retrievalInstructionId": "instr1"}}
    error = client_error(lambda: bedrock.agentic_retrieve_stream(**named))
    assert code_and_status(error) == ("ValidationException", 400)
    assert "Retrieval instruction instr1 is not ACTIVE" in error.response["Error"]["Message"]
    assert "result" in run(bedrock, **request("exports"))[-1]  # a request naming none streams
    assert code_and_status(client_error(lambda: bedrock.agentic_retrieve_stream(**named)))[0] == "ValidationException"
    emulator.set_faults(instruction_inactive=False)
    assert "result" in run(bedrock, **named)[-1]
