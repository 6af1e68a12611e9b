"""Logs (one record per trace event, with correlation id, tenant, caller) and EMF metrics per request."""

from __future__ import annotations

import json
import logging
import time

import httpx
import pytest

from contract import log_fields as lf
from contract import metric_names as names
from lambdas.endpoint.logs import logger
from tests.endpoint_server import context_header, iter_frames, tenant_settings

QUESTION = {"question": "How do I rotate an API key, and what are the rate limits?"}


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(json.loads(self.format(record)))


@pytest.fixture
def log_records():
    endpoint_logger = logger()
    capture = Capture()
    capture.setFormatter(endpoint_logger.handlers[0].formatter)  # the stdout handler's: JSON exactly as shipped
    endpoint_logger.addHandler(capture)
    yield capture.records
    endpoint_logger.removeHandler(capture)


def query(endpoint, body=QUESTION, headers=None):
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        return response, list(iter_frames(response)) if response.status_code == 200 else response.read()


def emf_for(endpoint, correlation_id):
    documents = [json.loads(line) for line in endpoint.metric_lines]
    return [d for d in documents if d.get("correlation_id") == correlation_id]


def records_of(log_records, correlation_id, event=None, timeout=5.0):
    """The request's records; waits for its `done` record (written when the stream is finalized)."""
    deadline = time.monotonic() + timeout
    while True:
        mine = [r for r in log_records if r.get(lf.CORRELATION_ID) == correlation_id]
        if any(r.get(lf.EVENT) == lf.EVENT_DONE for r in mine) or time.monotonic() > deadline:
            return [r for r in mine if event is None or r.get(lf.EVENT) == event]
        time.sleep(0.02)


def test_every_trace_event_is_one_log_record_with_correlation_id_tenant_and_caller(endpoint, log_records):
    caller = "arn:aws:sts::123456789012:assumed-role/acme-app/bob"
    _, frames = query(endpoint, headers=context_header(caller, "lambda-req-42"))
    assert frames[-1].data["requestId"] == "lambda-req-42"
    mine = records_of(log_records, "lambda-req-42")
    assert mine[0][lf.EVENT] == lf.EVENT_REQUEST and mine[-1][lf.EVENT] == lf.EVENT_DONE
    traces = [r for r in mine if r[lf.EVENT] == lf.EVENT_TRACE]
    trace_events = [f.data for f in frames if f.type == "trace"]
    # One record per trace event (the emulator's Retrieval steps run one sub-query each).
    assert [(r[lf.STEP], r[lf.STATUS]) for r in traces] == [(e["step"], e["status"]) for e in trace_events]
    assert all(r[lf.TENANT] == "acme" and r[lf.CALLER] == caller and r["service"] == "akb-endpoint" for r in mine)
    logged_queries = [q["text"] for r in traces for q in r[lf.SUB_QUERIES]]
    streamed_queries = [q["text"] for e in trace_events for q in e.get("subQueries", [])]
    assert logged_queries == streamed_queries and logged_queries
    # Each Retrieval step names its sub-query once, on its start (what the saved query counts).
    started = [
        q["text"]
        for e in trace_events
        if e["step"] == "Retrieval" and e["status"] == "IN_PROGRESS"
        for q in e["subQueries"]
    ]
    assert [r[lf.SUB_QUERY] for r in traces if lf.SUB_QUERY in r] == started and started
    done = mine[-1]
    assert done[lf.STOP_REASON] == frames[-1].data["stopReason"]
    assert done[lf.ITERATIONS] == frames[-1].data["iterations"]
    assert done[lf.DURATION_MS] >= done[lf.TIME_TO_FIRST_EVENT_MS] > 0


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
    # All of them, per Tenant (the cache's and fair sharing's come in documents of their own, when on).
    own = set(names.DIMENSION_SETS) - set(names.CACHE_METRICS) - set(names.QUOTA_METRICS)
    assert {m["Name"] for m in directive["Metrics"]} == own
    result = next(f.data for f in frames if f.type == "result")
    assert document[names.REQUESTS] == [1.0] and document[names.ERRORS] == [0.0]
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
    # Underlying Retrieve calls priced per planner iteration (TotalIterationCount proxy, kb_pricing.yaml).
    assert done["estimatedCostUsd"] == pytest.approx(0.004 + 0.001 * done["iterations"])


def test_errors_are_counted_per_tenant_and_per_error_code(endpoint, emulator):
    emulator.set_faults(error_after_events=2, error_type="internalServerException")
    _, frames = query(endpoint)
    documents = emf_for(endpoint, frames[-1].data["requestId"])
    errors = [d for d in documents if names.ERROR_CODE_DIMENSION in d]
    assert len(documents) == 2 and len(errors) == 1
    (directive,) = errors[0]["_aws"]["CloudWatchMetrics"]
    assert directive["Dimensions"] == [[names.TENANT_DIMENSION, names.ERROR_CODE_DIMENSION]]
    assert errors[0][names.ERROR_CODE_DIMENSION] == "upstream_unavailable" and errors[0][names.ERRORS] == [1.0]
    (per_tenant,) = [d for d in documents if names.ERROR_CODE_DIMENSION not in d]
    assert per_tenant[names.ERRORS] == [1.0]  # also under [Tenant], for the error-rate alarm


def test_every_metric_is_emitted_only_under_its_declared_dimension_sets(endpoint, emulator):
    emulator.set_faults(error_after_events=2, error_type="internalServerException")
    query(endpoint)
    declared = {name: {tuple(s) for s in sets} for name, sets in names.DIMENSION_SETS.items()}
    assert endpoint.metric_lines
    for line in endpoint.metric_lines:
        for directive in json.loads(line)["_aws"]["CloudWatchMetrics"]:
            for metric in directive["Metrics"]:
                assert {tuple(d) for d in directive["Dimensions"]} <= declared[metric["Name"]]


def test_rejected_requests_are_counted_and_logged_as_errors(endpoint, log_records):
    response, _ = query(endpoint, body={"question": ""}, headers={"x-request-id": "bad-1"})
    assert response.status_code == 400
    codes = {d.get(names.ERROR_CODE_DIMENSION) for d in emf_for(endpoint, "bad-1")}
    assert codes == {None, "invalid_request"}
    (error,) = records_of(log_records, "bad-1", lf.EVENT_ERROR)
    assert error[lf.ERROR_CODE] == "invalid_request"


def test_a_client_that_leaves_is_logged_as_client_closed(endpoint, emulator, log_records):
    emulator.set_faults(delay_ms=80)
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=QUESTION, headers={"x-request-id": "gone-1"}) as r:
        next(iter_frames(r))
    (done,) = records_of(log_records, "gone-1", lf.EVENT_DONE)
    assert done[lf.STOP_REASON] == "client_closed"


def test_a_deadline_before_the_first_event_is_logged_and_counted_as_a_deadline_stop(app_client, emulator, log_records):
    emulator.set_faults(delay_first_ms=1500)  # nothing from Bedrock for 1.5 s; the deadline is 1 s
    client = app_client(tenant_settings(deadline_seconds=1))
    response = client.post("/v1/query", json=QUESTION, headers={"x-request-id": "late-1"})
    assert response.status_code == 504 and response.json()["error"]["code"] == "deadline"
    (done,) = records_of(log_records, "late-1", lf.EVENT_DONE)
    assert done[lf.STOP_REASON] == "deadline" and done["error_code"] == "deadline"
    documents = [json.loads(line) for line in client.metric_lines]
    per_tenant = next(d for d in documents if names.ERROR_CODE_DIMENSION not in d)
    assert per_tenant[names.DEADLINE_STOPS] == [1.0] and per_tenant[names.ERRORS] == [1.0]


def test_a_request_refused_for_another_reason_is_not_a_deadline_stop(app_client, log_records):
    client = app_client()
    response = client.post("/v1/query", json={"question": ""}, headers={"x-request-id": "bad-1"})
    assert response.status_code == 400
    (done,) = records_of(log_records, "bad-1", lf.EVENT_DONE)
    assert done[lf.STOP_REASON] == "error"
    per_tenant = next(json.loads(line) for line in client.metric_lines)
    assert per_tenant[names.DEADLINE_STOPS] == [0.0]
