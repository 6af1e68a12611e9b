"""A response that arrives truncated, duplicated, malformed or corrupted is never a complete answer.

Each case goes through the whole path: the endpoint (real uvicorn) calls the emulator with the real
boto3 client, and the emulator sends crafted event-stream frames (`corrupt_stream` fault:
local/emulator/stream_corruption.py). What AWS documents for a complete response, and why botocore
alone does not catch these: lambdas/endpoint/modes/stream_integrity.py and the ledger.
"""

from __future__ import annotations

import pytest

from lambdas.agent_action.action_contract import ActionError
from lambdas.agent_action.knowledge_search import build_query, search
from tests.endpoint_server import emulator_client, tenant_settings
from tests.lambdas.endpoint.test_streaming import ask

AGENTIC = {"question": "How do I rotate an API key?", "mode": "agentic"}


def broken_off(frames) -> None:
    """A stream that says it broke off: a retryable upstream_stream_broken error, then done `error`."""
    (error,) = [f.data for f in frames if f.type == "error"]
    assert error["code"] == "upstream_stream_broken" and error["retryable"] is True
    done = frames[-1]
    assert done.type == "done" and done.data["stopReason"] == "error" and done.data["partial"] is True


@pytest.mark.parametrize("kind", ["end_without_result", "traces_only"])
def test_a_stream_that_ends_cleanly_without_its_result_is_broken_not_complete(endpoint, emulator, kind):
    emulator.set_faults(corrupt_stream=kind)
    response, frames = ask(endpoint, AGENTIC)
    assert response.status_code == 200
    assert not [f for f in frames if f.type == "result"]
    broken_off(frames)


def test_only_trace_events_send_no_text_either(endpoint, emulator):
    emulator.set_faults(corrupt_stream="traces_only")
    _, frames = ask(endpoint, AGENTIC)
    assert {f.type for f in frames} == {"trace", "error", "done"}


def test_a_duplicated_result_is_broken_not_complete(endpoint, emulator):
    emulator.set_faults(corrupt_stream="duplicate_result")
    _, frames = ask(endpoint, AGENTIC)
    assert len([f for f in frames if f.type == "result"]) == 1  # the second one is never relayed
    broken_off(frames)


@pytest.mark.parametrize(
    "body", [AGENTIC, {"question": "Compare exports and webhooks", "mode": "auto"}], ids=["agentic", "auto"]
)
def test_a_result_whose_results_is_not_a_list_is_broken_not_complete(endpoint, emulator, body):
    emulator.set_faults(corrupt_stream="results_not_list")
    _, frames = ask(endpoint, body)
    assert not [f for f in frames if f.type == "result"]
    broken_off(frames)


def test_a_trace_whose_payload_is_not_json_is_broken_not_complete(endpoint, emulator):
    emulator.set_faults(corrupt_stream="trace_bad_json")
    _, frames = ask(endpoint, AGENTIC)
    broken_off(frames)


@pytest.mark.parametrize("kind", ["bad_crc", "absurd_prelude"])
def test_a_corrupted_frame_is_a_retryable_broken_stream_not_internal(endpoint, emulator, kind):
    emulator.set_faults(corrupt_stream=kind)
    response, frames = ask(endpoint, AGENTIC)
    assert response.status_code == 200 and frames[0].type == "trace"  # it broke after streaming started
    broken_off(frames)


def test_a_retrieve_response_whose_results_is_not_a_list_leaves_that_knowledge_base_out(endpoint, emulator):
    emulator.set_faults(corrupt_stream="results_not_list")
    _, frames = ask(endpoint, {"question": "How do I rotate an API key?", "mode": "retrieve"})
    (failed,) = [f.data for f in frames if f.type == "trace" and f.data["status"] == "FAILED"]
    assert failed["failures"][0].startswith("upstream_stream_broken")
    done = frames[-1].data
    assert done["stopReason"] == "partial" and done["partial"] is True
    assert done["failedKnowledgeBases"] == failed["subQueries"][0]["knowledgeBases"]


def test_a_clean_stream_is_still_complete_after_a_corrupted_one(endpoint, emulator):
    emulator.set_faults(corrupt_stream="bad_crc")
    ask(endpoint, AGENTIC)
    _, frames = ask(endpoint, AGENTIC)  # the fault was taken by the first stream only
    assert frames[-1].data["stopReason"] in ("complete", "iteration_limit") and "error" not in {f.type for f in frames}


@pytest.mark.parametrize("kind", ["end_without_result", "bad_crc"])
def test_the_agent_action_reports_a_broken_stream_as_a_failure(emulator, kind):
    settings = tenant_settings()
    emulator.set_faults(corrupt_stream=kind)
    with pytest.raises(ActionError) as failure:
        search(
            emulator_client(emulator.url), settings, build_query("How do I rotate an API key?", None, settings), None
        )
    assert "upstream_stream_broken" in str(failure.value)
