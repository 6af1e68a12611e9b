"""The REST API metrics read what aws-cdk-lib's own Stage metrics read (namespace, metric names, the
ApiName + Stage dimension set, statistics), and the API alarms use the tenant's existing thresholds.

The reference is a real `apigateway.RestApi` with a real stage; its `Stage.metric_*` are aws-cdk-lib's
reading of the API Gateway metrics page, so a drift between the two fails here."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_apigateway as apigw

from monitoring import api_metrics
from monitoring.alarms import GT
from monitoring.api_metrics import ApiMetrics, api_alarm_specs, api_widgets
from schema.alarm_config import TenantThresholds

THRESHOLDS = TenantThresholds(
    iterations_average=3.5,
    error_rate_percent=4.0,
    time_to_first_event_p95_ms=4321,
    deadline_stops=2,
    function_errors=3,
    function_throttles=0,
    period_minutes=1,
    evaluation_periods=3,
)


@pytest.fixture(scope="module")
def reference() -> tuple[cdk.Stack, apigw.Stage]:
    stack = cdk.Stack(cdk.App(), "Probe")
    api = apigw.RestApi(stack, "Api", rest_api_name="akb-test-acme-endpoint", deploy_options={"stage_name": "api"})
    api.root.add_method("GET")
    return stack, api.deployment_stage


def _reading(stack: cdk.Stack, metric) -> tuple:
    dims = {key: "api" if isinstance(value, dict) else value for key, value in stack.resolve(metric.dimensions).items()}
    return metric.namespace, metric.metric_name, dims, metric.statistic


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        ("requests", "metric_count"),
        ("client_errors", "metric_client_error"),
        ("server_errors", "metric_server_error"),
    ],
)
def test_counters_match_aws_cdk_libs_stage_metrics(reference, ours, theirs):
    stack, stage = reference
    mine = getattr(ApiMetrics("akb-test-acme-endpoint", "api"), ours)()
    assert stack.resolve(stage.stage_name) == {"Ref": stack.get_logical_id(stage.node.default_child)}
    assert _reading(stack, mine) == _reading(stack, getattr(stage, theirs)())


@pytest.mark.parametrize(
    ("ours", "theirs"), [("latency_p99", "metric_latency"), ("integration_latency_p99", "metric_integration_latency")]
)
def test_latencies_are_the_same_series_at_p99(reference, ours, theirs):
    stack, stage = reference
    mine = getattr(ApiMetrics("akb-test-acme-endpoint", "api"), ours)()
    namespace, name, dims, _ = _reading(stack, getattr(stage, theirs)())
    assert _reading(stack, mine) == (namespace, name, dims, "p99")


def test_there_is_no_throttle_metric_a_429_is_a_4xx_error():
    # The page lists 4XXError, 5XXError, CacheHitCount, CacheMissCount, Count, IntegrationLatency, Latency.
    assert api_metrics.CLIENT_ERRORS == "4XXError" and "429" in api_metrics.API_ROW
    assert not [name for name in dir(apigw.Stage) if "throttl" in name.lower() and name.startswith("metric")]


def test_alarms_reuse_the_tenants_thresholds_and_period():
    specs = {spec.key: spec for spec in api_alarm_specs(ApiMetrics("n", "api"), THRESHOLDS)}
    assert sorted(specs) == ["api-4xx-rate", "api-5xx-errors"]
    assert (specs["api-5xx-errors"].threshold, specs["api-5xx-errors"].comparison) == (3, GT)
    assert specs["api-4xx-rate"].threshold == pytest.approx(0.04)
    assert "4%" in specs["api-4xx-rate"].meaning
    for spec in specs.values():
        assert spec.metric.period.to_minutes() == 1  # the tenant's period, not the metrics' default


def test_the_row_fills_the_dashboard_width_next_to_its_explanation():
    widgets = api_widgets(ApiMetrics("n", "api"), THRESHOLDS)
    assert sum(w.width for w in widgets) == 18  # + the 6-wide text widget = 24
