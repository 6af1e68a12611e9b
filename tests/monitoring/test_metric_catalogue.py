"""The catalogue only hands out Bedrock series in the dimension sets Bedrock publishes, and the quota
alarm stays within CloudWatch's 10-metrics-per-alarm limit however many tenants an environment has."""

from __future__ import annotations

import aws_cdk as cdk
import pytest

from contract import metric_names as names
from monitoring.alarms import BedrockAccountAlarms
from monitoring.metric_catalogue import MAX_ALARM_METRICS, BedrockMetrics
from schema.alarm_config import AccountThresholds
from tests.monitoring.cloudwatch_template import alarm_metrics, alarms

THRESHOLDS = AccountThresholds(
    iterations_average=4,
    iterations_p90=5,
    bedrock_throttles=0,
    quota_per_minute=300,
    quota_utilization_percent=80,
    period_minutes=5,
    evaluation_periods=3,
)


def test_a_retrieve_counter_without_its_knowledge_base_is_a_synth_error():
    with pytest.raises(ValueError, match="KnowledgeBaseId"):
        BedrockMetrics().metric(names.BEDROCK_INVOCATIONS, BedrockMetrics.RETRIEVE)


def test_an_agentic_counter_with_a_knowledge_base_is_a_synth_error():
    with pytest.raises(ValueError, match="not \\['Operation', 'KnowledgeBaseId'\\]"):
        BedrockMetrics().metric(names.BEDROCK_THROTTLES, BedrockMetrics.AGENTIC, knowledge_base_id="KB1")


def test_total_iteration_count_exists_for_agentic_retrieval_only():
    with pytest.raises(ValueError, match="publishes no 'TotalIterationCount' series for Operation=Retrieve"):
        BedrockMetrics().metric(names.BEDROCK_TOTAL_ITERATION_COUNT, BedrockMetrics.RETRIEVE, knowledge_base_id="KB1")


def test_retrieve_and_raw_data_size_carry_the_knowledge_base_value_as_bedrock_writes_it():
    metric = BedrockMetrics().metric_retrieve(names.BEDROCK_THROTTLES, "KB1")
    assert metric.dimensions == {"Operation": "Retrieve", "KnowledgeBaseId": "knowledge-base/KB1"}
    size = BedrockMetrics().metric_raw_data_size("KB1", label="kb")
    assert size.dimensions == {"KnowledgeBaseId": "knowledge-base/KB1"}
    assert size.statistic == "Maximum" and size.period.to_seconds() == 3600


def _quota_alarm(tenants: list[str]) -> dict:
    app = cdk.App()
    stack = cdk.Stack(app, "Probe", env=cdk.Environment(account="123456789012", region="us-west-2"))
    BedrockAccountAlarms(stack, "Alarms", name_prefix="akb-probe", thresholds=THRESHOLDS, tenants=tenants)
    template = app.synth().get_stack_by_name("Probe").template
    (props,) = [p for p in alarms(template).values() if p["AlarmName"] == "akb-probe-agentic-quota"]
    return props


@pytest.mark.parametrize("count", [1, MAX_ALARM_METRICS - 1])
def test_quota_alarm_sums_each_tenants_requests_with_metric_math(count):
    props = _quota_alarm([f"t{i}" for i in range(count)])
    uses, _ = alarm_metrics(props)
    assert len(uses) == count + 1 <= MAX_ALARM_METRICS
    assert sum(u.name == names.REQUESTS for u in uses) == count


def test_quota_alarm_over_more_tenants_than_an_alarm_can_read_uses_one_metrics_insights_query():
    props = _quota_alarm([f"t{i}" for i in range(MAX_ALARM_METRICS + 5)])
    uses, expressions = alarm_metrics(props)
    assert [(u.name, u.dimensions) for u in uses] == [
        (names.BEDROCK_INVOCATIONS, {"Operation": "AgenticRetrieveStream"})
    ]
    assert 'SELECT SUM(Requests) FROM SCHEMA("AgenticRetrieval", Tenant)' in expressions
    assert "MAX([endpoints, FILL(bedrock, 0)])" in expressions


def test_candidates_read_every_candidate_operation_and_refuse_more_series_than_an_alarm_takes():
    from monitoring.metric_catalogue import EndpointMetrics

    bedrock = BedrockMetrics()
    read = bedrock.candidates(names.BEDROCK_THROTTLES, statistic="Sum", label="throttles", absent_is_zero=True)
    assert read.expression == "MAX([FILL(throttles_sum_op0, 0), FILL(throttles_sum_op1, 0)])"
    too_many = [EndpointMetrics(f"t{i}").metric_iterations() for i in range(MAX_ALARM_METRICS)]
    with pytest.raises(ValueError, match="at most 10 series"):
        bedrock.candidates(names.BEDROCK_TOTAL_ITERATION_COUNT, statistic="Average", label="x", also=too_many)
