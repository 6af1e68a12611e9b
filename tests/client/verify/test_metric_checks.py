"""The metric series after the canary, over botocore's Stubber: the endpoint's Iterations must get data; for
Bedrock's metrics every dimension set CloudWatch lists is read and the ones carrying data are named (fact 6)."""

from __future__ import annotations

from client.doctor.findings import Level
from client.verify import metric_checks
from client.verify.door_checks import ENDPOINT
from client.verify.verification import DoorOutcome
from tests.client.verify.conftest import verification

KB = {"Name": "KnowledgeBaseId", "Value": "knowledge-base/KB12345678"}


def _listed(stubs, total=(), invocations=(), throttles=()) -> None:
    for name, sets in (("TotalIterationCount", total), ("Invocations", invocations), ("Throttles", throttles)):
        metrics = [{"Namespace": "AWS/Bedrock/KnowledgeBases", "MetricName": name, "Dimensions": d} for d in sets]
        stubs.respond(
            "cloudwatch",
            "list_metrics",
            {"Metrics": metrics},
            {"Namespace": "AWS/Bedrock/KnowledgeBases", "MetricName": name},
        )


def _data(stubs, ids_with_data: list[str]) -> None:
    results = [
        {"Id": i, "Label": i, "Values": [1.0], "Timestamps": [], "StatusCode": "Complete"} for i in ids_with_data
    ]
    stubs.respond("cloudwatch", "get_metric_data", {"MetricDataResults": results})


def _answered(stubs, **fields):
    v = verification(stubs, **fields)
    v.record("acme", DoorOutcome(ENDPOINT, True, message="1 iterations"))
    return v


def test_data_under_the_agentic_operation_and_the_retrieve_set_is_reported_by_set(stubs):
    agentic = [{"Name": "Operation", "Value": "AgenticRetrieveStream"}]
    retrieve = [{"Name": "Operation", "Value": "Retrieve"}, KB]
    _listed(stubs, total=[agentic, [{"Name": "Operation", "Value": "Retrieve"}]], invocations=[retrieve])
    _data(stubs, ["q0", "q1", "q3"])  # endpoint Iterations, TotalIterationCount/agentic, Invocations/retrieve
    findings = {f.check: f for f in metric_checks.check_metrics(_answered(stubs))}
    assert findings["metrics:endpoint"].level is Level.OK
    total = findings["metrics:TotalIterationCount"]
    assert total.level is Level.OK and total.message.startswith("data under Operation=AgenticRetrieveStream (")
    assert "Operation=Retrieve" in total.message  # listed though empty
    assert (
        findings["metrics:Invocations"].level is Level.OK
        and "KnowledgeBaseId=" in findings["metrics:Invocations"].message
    )
    assert findings["metrics:Throttles"].level is Level.OK
    stubs.assert_all_used()


def test_no_endpoint_datapoint_within_the_wait_fails_and_empty_bedrock_series_warn(stubs):
    now, slept = [1000.0], []

    def sleep(seconds: float) -> None:  # a clock that moves only when verify sleeps
        slept.append(seconds)
        now[0] += seconds

    for _ in range(3):  # a 60 s wait polled every 30 s: at 0, 30 and 60 s, then it gives up
        _listed(stubs)
        _data(stubs, [])
    v = _answered(stubs, wait_seconds=60, poll_seconds=30, clock=lambda: now[0], sleep=sleep)
    findings = {f.check: f for f in metric_checks.check_metrics(v)}
    assert findings["metrics:endpoint"].level is Level.FAIL and "EMF" in findings["metrics:endpoint"].message
    assert findings["metrics:TotalIterationCount"].level is Level.WARN
    assert "fact 6" in findings["metrics:TotalIterationCount"].message
    assert slept == [30.0, 30.0]
    stubs.assert_all_used()


def test_without_a_completed_canary_the_series_are_not_checked(stubs):
    [finding] = metric_checks.check_metrics(verification(stubs))
    assert finding.level is Level.WARN and "not checked" in finding.message
