"""EMF documents, written by the endpoint itself: the shape CloudWatch reads, units it accepts."""

from __future__ import annotations

import time

import botocore.session
import pytest

from contract import metric_names as names
from lambdas.endpoint import request_metrics
from lambdas.endpoint.cache import cache_metrics
from lambdas.endpoint.request_metrics import RequestOutcome

# CloudWatch's units, from botocore's CloudWatch model (StandardUnit): what an EMF `Unit` may be.
STANDARD_UNITS = set(botocore.session.get_session().get_service_model("cloudwatch").shape_for("StandardUnit").enum)

STREAMED = RequestOutcome(
    "req-1",
    120,
    stop_reason="complete",
    streamed=True,
    time_to_first_event_ms=40,
    iterations=2,
    sub_queries=5,
    results=20,
    distinct_documents=12,
    cited_results=3,
    estimated_cost_usd=0.006,
)
FAILED = RequestOutcome("req-2", 30, error_code="upstream_throttled", stop_reason="error")


@pytest.mark.parametrize("outcome", [STREAMED, FAILED], ids=["streamed", "failed"])
def test_every_document_declares_each_metric_it_carries_with_a_cloudwatch_unit(outcome):
    before = int(time.time() * 1000)
    for document in request_metrics.documents("acme", outcome):
        (directive,) = document["_aws"]["CloudWatchMetrics"]
        assert before <= document["_aws"]["Timestamp"] <= int(time.time() * 1000)
        assert directive["Namespace"] == names.NAMESPACE
        (dimension_set,) = directive["Dimensions"]
        assert all(document[dimension] for dimension in dimension_set)  # each dimension's value at the top level
        for metric in directive["Metrics"]:
            assert metric["Unit"] in STANDARD_UNITS, metric
            assert tuple(dimension_set) in names.DIMENSION_SETS[metric["Name"]], metric
            values = document[metric["Name"]]
            assert isinstance(values, list) and values and all(isinstance(v, float) for v in values)
        assert document["correlation_id"] == outcome.correlation_id  # metadata: a log field, not a dimension


def test_a_failed_request_adds_a_document_counting_it_under_its_error_code():
    plain, by_code = request_metrics.documents("acme", FAILED)
    assert plain[names.ERRORS] == [1.0] and plain[names.REQUESTS] == [1.0]
    assert by_code[names.ERROR_CODE_DIMENSION] == "upstream_throttled" and by_code[names.ERRORS] == [1.0]
    assert by_code["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [
        [names.TENANT_DIMENSION, names.ERROR_CODE_DIMENSION]
    ]


def test_the_cache_document_uses_the_same_shape_and_units():
    document = cache_metrics.document("acme", "req-3", "hit", stale=False, acl_denied=False, duration_ms=4)
    (directive,) = document["_aws"]["CloudWatchMetrics"]
    assert {metric["Unit"] for metric in directive["Metrics"]} <= STANDARD_UNITS
    assert document[names.CACHE_HITS] == [1.0] and document[names.CACHE_HIT_LATENCY_MS] == [4.0]
