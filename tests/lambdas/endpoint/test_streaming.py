"""The endpoint over real HTTP (uvicorn) in front of the emulator (real boto3, real event stream)."""

from __future__ import annotations

import itertools
import json
import time

import httpx
import pytest

from tests.endpoint_server import iter_frames, start_endpoint, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

QUESTION = {"question": "How do I rotate an API key, and what are the rate limits?"}
# A stream that ended on its own: the planner judged the evidence sufficient, or used every iteration.
NORMAL_ENDS = ("complete", "iteration_limit")


def ask(endpoint, body=QUESTION, headers=None, timeout=30):
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, headers=headers, timeout=timeout) as response:
        return response, list(iter_frames(response)) if response.status_code == 200 else json.loads(response.read())


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    return predicate()


def test_sse_stream_orders_trace_text_result_and_ends_with_done(endpoint):
    response, frames = ask(endpoint)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    types = [f.type for f in frames]
    assert types[0] == "trace" and types[-1] == "done" and types.count("done") == 1
    assert types.index("result") > max(i for i, t in enumerate(types) if t == "trace")
    assert types.count("result") == 1
    done = frames[-1].data
    assert done["stopReason"] in NORMAL_ENDS and done["mode"] == "agentic"
    assert done["requestId"] == response.headers["x-request-id"]
    assert done["timeToFirstEventMs"] <= done["durationMs"]


def test_answer_is_streamed_once_as_text_and_repeated_only_in_result(endpoint):
    _, frames = ask(endpoint)
    deltas = "".join(f.data["delta"] for f in frames if f.type == "text")
    result = next(f.data for f in frames if f.type == "result")
    assert deltas and deltas == result["answer"]
    assert not any(f.type == "text" and f.data["delta"] == result["answer"] for f in frames if len(deltas) > 40)


def test_ndjson_on_accept_header_carries_the_same_events(endpoint):
    response, frames = ask(endpoint, headers={"accept": "application/x-ndjson"})
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert frames[0].type == "trace" and frames[-1].type == "done"
    assert {f.type for f in frames} == {"trace", "text", "result", "done"}


def test_iterations_count_distinct_planning_steps(endpoint):
    _, frames = ask(endpoint)
    planning = [f.data for f in frames if f.type == "trace" and f.data["step"] == "Planning"]
    started = [p for p in planning if p["status"] == "IN_PROGRESS"]
    assert len(planning) == 2 * len(started)  # the emulator sends IN_PROGRESS + SUCCEEDED per step
    assert frames[-1].data["iterations"] == len(started) >= 1


def test_results_name_aliases_are_deduplicated_and_citations_point_into_them(endpoint):
    _, frames = ask(endpoint)
    result = next(f.data for f in frames if f.type == "result")
    items = result["results"]
    assert items and {item["knowledgeBase"] for item in items} <= {"docs", "tickets"}
    chunk_ids = [item["metadata"]["x-amz-bedrock-kb-chunk-id"] for item in items]
    assert len(chunk_ids) == len(set(chunk_ids))
    assert all(item["documentId"] for item in items)
    for citation in result.get("citations", []):
        assert all(0 <= index < len(items) for index in citation["results"])
    trace_aliases = {
        kb for f in frames if f.type == "trace" for q in f.data.get("subQueries", []) for kb in q["knowledgeBases"]
    }
    assert trace_aliases and trace_aliases <= {"docs", "tickets"}


def test_events_reach_the_client_while_the_upstream_is_still_streaming(endpoint, emulator):
    emulator.set_faults(delay_ms=60)
    arrivals = []
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=QUESTION, timeout=30) as response:
        frames = iter_frames(response)
        first = next(frames)
        arrivals.append(first.at)
        # Holding the first event, the upstream stream has not finished yet. (The emulator counts an
        # event after writing it, so the count may trail the client's read by a moment.)
        upstream = wait_for(lambda: [s for s in emulator.streams()[-1:] if s["events_sent"] >= 1])[0]
        assert upstream["finished"] is False
        rest = list(frames)
        arrivals += [f.at for f in rest]
    assert rest[-1].type == "done"
    assert len(arrivals) > 10
    # Spread over the stream's duration, not delivered in one burst at the end.
    assert arrivals[-1] - arrivals[0] > 0.5
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert sum(1 for gap in gaps if gap > 0.03) > len(gaps) // 2


def test_client_disconnect_closes_the_upstream_stream(endpoint, emulator):
    emulator.set_faults(delay_ms=100)
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=QUESTION, timeout=30) as response:
        next(iter_frames(response))
    closed = wait_for(lambda: [s for s in emulator.streams() if s["finished"]])
    assert closed and closed[-1]["closed_by_client"] is True and closed[-1]["outcome"] == "client_closed"
    assert closed[-1]["events_sent"] < 10


def test_error_after_the_first_byte_is_an_error_event_then_done_with_error(endpoint, emulator):
    emulator.set_faults(error_after_events=3, error_type="internalServerException")
    response, frames = ask(endpoint)
    assert response.status_code == 200
    assert [f.type for f in frames] == ["trace", "trace", "trace", "error", "done"]
    assert frames[3].data == {
        "code": "upstream_unavailable",
        "message": "Bedrock had an internal error",
        "retryable": True,
    }
    assert frames[-1].data["stopReason"] == "error"
    assert len(sent_bodies(emulator)) == 1  # never retried once a byte went out


@pytest.mark.parametrize(
    ("error_type", "code"),
    [
        ("throttlingException", "throttled"),
        ("accessDeniedException", "upstream_access_denied"),
        ("validationException", "upstream_rejected"),
    ],
)
def test_in_stream_exceptions_map_to_stable_codes(endpoint, emulator, error_type, code):
    emulator.set_faults(error_after_events=2, error_type=error_type)
    _, frames = ask(endpoint)
    error = next(f.data for f in frames if f.type == "error")
    assert error["code"] == code and frames[-1].data["stopReason"] == "error"


def test_dropped_upstream_connection_is_an_error_event(endpoint, emulator):
    emulator.set_faults(drop_after_events=4)
    _, frames = ask(endpoint)
    assert [f.type for f in frames][-2:] == ["error", "done"]
    assert frames[-2].data["code"] == "upstream_stream_broken" and frames[-2].data["retryable"] is True
    assert frames[-1].data["stopReason"] == "error"


@pytest.mark.parametrize(
    ("error_type", "status", "code"),
    [
        ("AccessDeniedException", 502, "upstream_access_denied"),
        ("ValidationException", 502, "upstream_rejected"),
        ("ResourceNotFoundException", 502, "upstream_not_found"),
        ("DependencyFailedException", 502, "upstream_dependency_failed"),
        ("BadGatewayException", 502, "upstream_bad_gateway"),
        ("InternalServerException", 503, "upstream_unavailable"),
        ("ServiceQuotaExceededException", 503, "upstream_quota_exceeded"),
    ],
)
def test_upstream_errors_before_the_first_byte_map_to_statuses(endpoint, emulator, error_type, status, code):
    emulator.set_faults(error_before=10, error_before_type=error_type)
    response, body = ask(endpoint)
    assert response.status_code == status
    assert body["error"]["code"] == code
    assert "Traceback" not in json.dumps(body)


def test_access_denied_names_the_permissions_likely_missing(endpoint, emulator):
    emulator.set_faults(error_before=1, error_before_type="AccessDeniedException")
    _, body = ask(endpoint)
    for action in (
        "bedrock:AgenticRetrieveStream",
        "bedrock:Retrieve",
        "bedrock:InvokeModelWithResponseStream",
    ):
        assert action in body["error"]["message"]


def test_access_denied_names_the_action_and_the_knowledge_base_alias_never_its_arn(endpoint, emulator):
    from local.emulator import kb_id_for

    resource = f"arn:aws:bedrock:us-east-1:123456789012:knowledge-base/{kb_id_for('docs')}"
    emulator.set_faults(
        error_before=1,
        error_before_type="AccessDeniedException",
        error_message="User: arn:aws:sts::123456789012:assumed-role/endpoint/fn is not authorized to perform: "
        f"bedrock:Retrieve on resource: {resource} because no identity-based policy allows the action",
    )
    response, body = ask(endpoint)
    assert response.status_code == 502 and body["error"]["code"] == "upstream_access_denied"
    message = body["error"]["message"]
    assert message.startswith("the endpoint's role is not allowed bedrock:Retrieve on knowledge base 'docs'")
    assert "arn:" not in message and "123456789012" not in message


def test_internal_errors_before_the_first_byte_are_retried(endpoint, emulator):
    emulator.set_faults(error_before=1, error_before_type="InternalServerException")
    response, frames = ask(endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS
    assert len(sent_bodies(emulator)) == 2


def test_throttling_is_retried_with_backoff_then_answered_429_with_retry_after(endpoint, emulator):
    emulator.set_faults(throttle_before=10)
    response, body = ask(endpoint)
    assert response.status_code == 429
    assert body["error"]["code"] == "throttled"
    assert int(response.headers["retry-after"]) >= 1
    assert len(sent_bodies(emulator)) == endpoint.settings.upstream_max_attempts == 3


def test_a_single_throttle_is_absorbed_by_a_retry(endpoint, emulator):
    emulator.set_faults(throttle_before=1)
    response, frames = ask(endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS
    assert len(sent_bodies(emulator)) == 2


def test_throttle_inside_the_stream_before_any_event_is_still_retried(endpoint, emulator):
    emulator.set_faults(error_after_events=0, error_type="throttlingException")
    response, frames = ask(endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS
    assert len(sent_bodies(emulator)) == 2


def test_deadline_ends_the_stream_with_a_deadline_error_never_complete(emulator):
    emulator.set_faults(delay_ms=250)
    with start_endpoint(emulator, tenant_settings(deadline_seconds=1)) as short:
        response, frames = ask(short)
    assert response.status_code == 200
    assert frames[-2].type == "error" and frames[-2].data["code"] == "deadline"
    assert frames[-1].data["stopReason"] == "deadline"
    assert "result" not in [f.type for f in frames]
    # The endpoint stopped at its deadline instead of waiting the stream out: it closed the
    # upstream stream itself (an event-order fact, not a wall-clock bound that flakes under load).
    closed = wait_for(lambda: [s for s in emulator.streams() if s["finished"]])
    assert closed and closed[-1]["closed_by_client"] is True


def test_deadline_before_the_first_event_is_a_504_without_a_stack_trace(emulator, capfd):
    emulator.set_faults(delay_first_ms=1500)  # Bedrock sends nothing, not even headers, for 1.5 s
    with start_endpoint(emulator, tenant_settings(deadline_seconds=1)) as short:
        response, body = ask(short)
    assert response.status_code == 504
    assert body["error"]["code"] == "deadline" and "1 s request deadline" in body["error"]["message"]
    output = capfd.readouterr()
    assert "Traceback" not in response.text + output.out + output.err
    closed = wait_for(lambda: [s for s in emulator.streams() if s["finished"]])  # once Bedrock answers
    assert closed and closed[-1]["closed_by_client"] is True  # the late stream is closed, not read


def test_health_unknown_route_and_wrong_method(endpoint):
    assert httpx.get(f"{endpoint.url}/healthz").status_code == 200
    missing = httpx.get(f"{endpoint.url}/nope")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    wrong = httpx.get(f"{endpoint.url}/v1/query")
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


INSTRUCTION_HINT = "wait for the review, and check its status with `akb doctor`"


@pytest.fixture
def instructed_endpoint(emulator):
    """The endpoint of a tenant whose requests name a retrieval instruction."""
    with start_endpoint(emulator, tenant_settings(retrieval_instruction_id="instr1")) as handle:
        yield handle


def test_an_instruction_not_yet_active_is_a_clear_503_that_is_not_retried(instructed_endpoint, emulator):
    emulator.set_faults(instruction_inactive=True)
    response, body = ask(instructed_endpoint)
    assert response.status_code == 503
    assert body["error"]["code"] == "retrieval_instruction_not_active"
    assert INSTRUCTION_HINT in body["error"]["message"] and "instr1" not in json.dumps(body)
    assert len(sent_bodies(emulator)) == 1
    assert sent_bodies(emulator)[0]["retrievalInstructionConfiguration"] == {"retrievalInstructionId": "instr1"}


def test_once_the_instruction_is_active_the_same_request_streams(instructed_endpoint, emulator):
    emulator.set_faults(instruction_inactive=True)
    assert ask(instructed_endpoint)[0].status_code == 503
    emulator.set_faults(instruction_inactive=False)
    response, frames = ask(instructed_endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS


def test_a_tenant_without_instruction_is_unaffected_by_an_inactive_one(endpoint, emulator):
    emulator.set_faults(instruction_inactive=True)
    response, frames = ask(endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS


def test_an_instruction_failure_inside_the_stream_is_the_same_error_event(endpoint, emulator):
    emulator.set_faults(
        error_after_events=2,
        error_type="conflictException",
        error_message="Retrieval instruction instr1 is not ACTIVE",
    )
    _, frames = ask(endpoint)
    error = next(f.data for f in frames if f.type == "error")
    assert error["code"] == "retrieval_instruction_not_active" and error["retryable"] is False
    assert INSTRUCTION_HINT in error["message"]
