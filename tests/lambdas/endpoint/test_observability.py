"""Logs (one record per trace event, with correlation id, tenant, caller) and EMF metrics per request."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from lambdas.endpoint import metric_names as names
from lambdas.endpoint.logs import logger
from tests.endpoint_server import context_header, iter_frames

QUESTION = {"question": "How do I rotate an API key, and what are the rate limits?"}


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(json.loads(self.format(record)))


@pytest.fixture
def log_records():
    powertools = logger()
    capture = Capture()
    capture.setFormatter(powertools.registered_formatter)
    powertools._logger.addHandler(capture)  # the std logger under Powertools: JSON exactly as shipped
    yield capture.records
    powertools._logger.removeHandler(capture)


def query(endpoint, body=QUESTION, headers=None):
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        return response, list(iter_frames(response)) if response.status_code == 200 else response.read()


def emf_for(endpoint, correlation_id):
    documents = [json.loads(line) for line in endpoint.metric_lines]
    return [d for d in documents if d.get("correlation_id") == correlation_id]


def test_every_trace_event_is_one_log_record_with_correlation_id_tenant_and_caller(endpoint, log_records):
    caller = "arn:aws:sts::123456789012:assumed-role/acme-app/bob"
    _, frames = query(endpoint, headers=context_header(caller, "lambda-req-42"))
    assert frames[-1].data["requestId"] == "lambda-req-42"
    mine = [r for r in log_records if r.get("correlation_id") == "lambda-req-42"]
    traces = [r for r in mine if r["message"] == "trace"]
    trace_events = [f.data for f in frames if f.type == "trace"]
    assert len(traces) == len(trace_events)
    assert all(
        r["tenant"] == "acme" and r["caller"] == caller and r["service"] == "akb-endpoint" for r in mine
    )
    logged_queries = [q["text"] for r in traces for q in r["sub_queries"]]
    streamed_queries = [q["text"] for e in trace_events for q in e.get("subQueries", [])]
    assert logged_queries == streamed_queries and logged_queries
    finished = next(r for r in mine if r["message"] == "query finished")
    assert finished["stop_reason"] == "complete" and finished["iterations"] == frames[-1].data["iterations"]


def test_correlation_id_falls_back_to_x_request_id(endpoint):
    _, frames = query(endpoint, headers={"x-request-id": "client-chosen-1"})
    assert frames[-1].data["requestId"] == "client-chosen-1"


def test_emf_metrics_are_written_per_request_with_the_tenant_dimension(endpoint):
    _, frames = query(endpoint)
    done = frames[-1].data
    (document,) = emf_for(endpoint, done["requestId"])
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    assert directive["Namespace"] == names.NAMESPACE
    assert directive["Dimensions"] == [[names.TENANT_DIMENSION]]
    assert document[names.TENANT_DIMENSION] == "acme"
    emitted = {m["Name"] for m in directive["Metrics"]}
    assert emitted == {
        names.REQUESTS,
        names.DURATION_MS,
        names.ITERATIONS,
        names.SUB_QUERIES,
        names.RESULTS,
        names.DISTINCT_DOCUMENTS,
        names.CITED_RESULTS,
        names.GUARDRAIL_INTERVENTIONS,
        names.DEADLINE_STOPS,
        names.TIME_TO_FIRST_EVENT_MS,
        names.ESTIMATED_COST_USD,
    }
    result = next(f.data for f in frames if f.type == "result")
    assert document[names.REQUESTS] == [1.0]
    assert document[names.ITERATIONS] == [done["iterations"]]
    assert document[names.RESULTS] == [len(result["results"])]
    assert document[names.ESTIMATED_COST_USD] == [done["estimatedCostUsd"]]
    sub_queries = sum(
        len(f.data.get("subQueries", []))
        for f in frames
        if f.type == "trace"
        and f.data["step"] in ("Retrieval", "SpeculativeRetrieval")
        and f.data["status"] == "IN_PROGRESS"
    )
    assert document[names.SUB_QUERIES] == [sub_queries]
    assert done["estimatedCostUsd"] == pytest.approx(0.004 + 0.001 * sub_queries)


def test_errors_are_a_separate_emf_document_with_the_error_code_dimension(endpoint, emulator):
    emulator.set_faults(error_after_events=2, error_type="internalServerException")
    _, frames = query(endpoint)
    documents = emf_for(endpoint, frames[-1].data["requestId"])
    errors = [d for d in documents if names.ERROR_CODE_DIMENSION in d]
    assert len(documents) == 2 and len(errors) == 1
    (directive,) = errors[0]["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [[names.TENANT_DIMENSION, names.ERROR_CODE_DIMENSION]]
    assert errors[0][names.ERROR_CODE_DIMENSION] == "upstream_unavailable" and errors[0][names.ERRORS] == [
        1.0
    ]


def test_rejected_requests_count_as_requests_and_errors(endpoint):
    response, _ = query(endpoint, body={"question": ""}, headers={"x-request-id": "bad-1"})
    assert response.status_code == 400
    documents = emf_for(endpoint, "bad-1")
    codes = {d.get(names.ERROR_CODE_DIMENSION) for d in documents}
    assert codes == {None, "invalid_request"}


def test_a_client_that_leaves_is_logged_as_client_closed(endpoint, emulator, log_records):
    import time

    emulator.set_faults(delay_ms=80)
    with httpx.stream(
        "POST", f"{endpoint.url}/v1/query", json=QUESTION, headers={"x-request-id": "gone-1"}
    ) as response:
        next(iter_frames(response))
    deadline = time.monotonic() + 5
    finished = []
    while not finished and time.monotonic() < deadline:
        finished = [
            r for r in log_records if r.get("correlation_id") == "gone-1" and r["message"] == "query finished"
        ]
        time.sleep(0.02)
    assert finished and finished[0]["stop_reason"] == "client_closed"
