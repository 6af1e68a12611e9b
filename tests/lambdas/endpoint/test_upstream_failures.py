"""What a caller sees when Bedrock cannot be reached, and when some knowledge bases fail: retried
where that is safe, and never a partial answer presented as complete (real uvicorn + emulator)."""

from __future__ import annotations

import socket

import pytest

from client.endpoint_client import Client
from contract.events import DoneEvent, ResultEvent, TraceEvent
from local.emulator import kb_id_for
from tests.endpoint_server import start_endpoint
from tests.lambdas.endpoint.conftest import sent_bodies
from tests.lambdas.endpoint.test_streaming import NORMAL_ENDS, ask


def retrieve_paths(emulator) -> list[str]:
    return [r["path"] for r in emulator.requests() if r["path"].endswith("/retrieve")]


def events_of(url: str, question: str, **options):
    with Client(url) as client:
        return list(client.query(question, **options))


# -- connection failures before the first upstream byte (an overloaded or unreachable Bedrock) ---


def test_a_connection_closed_before_any_response_byte_is_retried(endpoint, emulator):
    emulator.set_faults(disconnect_before=2)
    response, frames = ask(endpoint)
    assert response.status_code == 200 and frames[-1].data["stopReason"] in NORMAL_ENDS
    assert len(sent_bodies(emulator)) == 3


def test_when_connection_retries_run_out_the_answer_is_503_unreachable_with_retry_after(endpoint, emulator):
    emulator.set_faults(disconnect_before=10)
    response, body = ask(endpoint)
    assert response.status_code == 503 and body["error"]["code"] == "upstream_unreachable"
    assert int(response.headers["retry-after"]) >= 1
    assert len(sent_bodies(emulator)) == endpoint.settings.upstream_max_attempts == 3


def test_a_bedrock_endpoint_nobody_listens_on_is_503_unreachable_with_retry_after(emulator):
    with socket.socket() as probe:  # a port that was free a moment ago: connections are refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    class Nowhere:
        url = f"http://127.0.0.1:{port}"

    with start_endpoint(Nowhere()) as lost:
        response, body = ask(lost)
    assert response.status_code == 503 and body["error"]["code"] == "upstream_unreachable"
    assert int(response.headers["retry-after"]) >= 1


# -- retrieve mode: per knowledge base retries, and partial answers that say so ----------------


def test_retrieve_mode_retries_a_throttled_knowledge_base_instead_of_dropping_it(endpoint, emulator):
    emulator.set_faults(throttle_before=1)
    events = events_of(endpoint.url, "How do I rotate an API key?", mode="retrieve")
    traces = [e for e in events if isinstance(e, TraceEvent)]
    assert [t.status for t in traces] == ["SUCCEEDED", "SUCCEEDED"]
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.stopReason == "complete" and not done.partial
    assert len(retrieve_paths(emulator)) == 3  # one call retried


def test_a_knowledge_base_that_keeps_failing_is_named_and_the_answer_is_partial(endpoint, emulator):
    emulator.set_faults(failing_knowledge_bases={kb_id_for("tickets"): "ThrottlingException"})
    events = events_of(endpoint.url, "How do I rotate an API key?", mode="retrieve")
    (failed,) = [e for e in events if isinstance(e, TraceEvent) and e.status == "FAILED"]
    assert failed.subQueries[0].knowledgeBases == ["tickets"] and "tickets" in failed.message
    assert failed.failures[0].startswith("throttled: ")
    result = next(e for e in events if isinstance(e, ResultEvent))
    assert result.results and {item.knowledgeBase for item in result.results} == {"docs"}
    done = events[-1]
    assert isinstance(done, DoneEvent)
    assert (done.stopReason, done.partial, done.failedKnowledgeBases) == ("partial", True, ["tickets"])
    paths = retrieve_paths(emulator)
    assert paths.count(f"/knowledgebases/{kb_id_for('tickets')}/retrieve") == endpoint.settings.upstream_max_attempts
    assert paths.count(f"/knowledgebases/{kb_id_for('docs')}/retrieve") == 1


def test_when_every_knowledge_base_keeps_failing_each_is_tried_max_attempts_not_more(endpoint, emulator):
    failing = {kb_id_for(alias): "ThrottlingException" for alias in ("docs", "tickets")}
    emulator.set_faults(failing_knowledge_bases=failing)
    response, body = ask(endpoint, body={"question": "How do I rotate an API key?", "mode": "retrieve"})
    assert response.status_code == 429 and body["error"]["code"] == "throttled"
    assert int(response.headers["retry-after"]) >= 1
    assert len(retrieve_paths(emulator)) == 2 * endpoint.settings.upstream_max_attempts  # not retried twice over


@pytest.mark.parametrize("mode", ["agentic", "auto"])
def test_a_failed_retrieval_in_agentic_mode_makes_the_answer_partial_too(endpoint, emulator, mode):
    emulator.set_faults(fail_retrievals=1)
    question = "Compare exports and webhooks"  # auto sends a comparison to agentic
    events = events_of(endpoint.url, question, mode=mode)
    failed = [e for e in events if isinstance(e, TraceEvent) and e.status == "FAILED"]
    assert failed and failed[0].step == "Retrieval"
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.stopReason == "partial" and done.partial is True
    assert done.failedKnowledgeBases and set(done.failedKnowledgeBases) <= {"docs", "tickets"}


def test_a_complete_answer_carries_no_partial_flag(endpoint):
    # A question the planner finishes before its iteration cap (one that hits the cap is not complete).
    _, frames = ask(endpoint, {"question": "How do I rotate an API key without downtime?"})
    done = frames[-1].data
    assert done["stopReason"] == "complete" and "partial" not in done and "failedKnowledgeBases" not in done


def test_a_mid_stream_throttle_says_the_answer_is_incomplete_and_whether_to_retry(endpoint, emulator):
    emulator.set_faults(error_after_events=3, error_type="throttlingException")
    _, frames = ask(endpoint)
    error = next(f.data for f in frames if f.type == "error")
    assert error["code"] == "throttled" and error["retryable"] is True
    assert "incomplete" in error["message"] and "Retrying the whole request" in error["message"]
    assert "delay given" not in error["message"]  # no Retry-After exists once the stream has started
    assert frames[-1].data["stopReason"] == "error" and frames[-1].data["partial"] is True
