"""A tenant's monitoring, built beside a plain inline function: every widget and alarm reads what the
endpoint emits (metric_names.py), with the statistic, threshold and missing-data rule intended.

The probe stack stands in for the tenant stack until the endpoint construct lands: the function is a
real `aws_lambda.Function` (inline code), not a mock; the construct only reads its metrics.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sns as sns

from cdk_constructs.nag_checks import acknowledge, enable_nag
from contract import log_fields
from contract import metric_names as names
from monitoring.cache_row import cache_row
from monitoring.metric_catalogue import EndpointMetrics
from monitoring.quota_row import quota_row
from monitoring.saved_queries import REQUEST_ID_PLACEHOLDER
from monitoring.tenant_observability import TenantObservability
from schema import load_project
from schema.alarm_config import TenantThresholds, tenant_thresholds
from tests.monitoring.cloudwatch_template import alarm_metrics, alarms, dashboard_metrics, dashboards, search_uses

TENANT = "acme"
NAME = "akb-test-acme"
RESERVED = 7
THRESHOLDS = TenantThresholds(
    iterations_average=3.5,
    error_rate_percent=4.0,
    time_to_first_event_p95_ms=4321,
    deadline_stops=2,
    function_errors=1,
    function_throttles=0,
    period_minutes=5,
    evaluation_periods=3,
)


def _probe(tmp_path: Path, thresholds: TenantThresholds = THRESHOLDS) -> tuple[dict, Path]:
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Probe", env=cdk.Environment(account="123456789012", region="us-west-2"))
    function = lambda_.Function(
        stack,
        "Endpoint",
        runtime=lambda_.Runtime.PYTHON_3_13,
        handler="index.handler",
        code=lambda_.Code.from_inline("def handler(event, context):\n    return None\n"),
    )
    acknowledge(function, "L1", "the probe pins a runtime on purpose; the real endpoint picks its own")
    acknowledge(
        function.role,
        "IAM4",
        "probe function with the basic execution role only; not deployed",
        finding="Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    )
    log_group = logs.LogGroup(stack, "Logs", retention=logs.RetentionDays.ONE_WEEK)
    topic = sns.Topic(stack, "Topic", enforce_ssl=True)
    acknowledge(topic, "SNS2", "probe topic, never deployed; the real alarm topic (AlarmTopic) is KMS-encrypted")
    TenantObservability(
        stack,
        "Observability",
        function=function,
        log_group=log_group,
        tenant=TENANT,
        name=NAME,
        thresholds=thresholds,
        topic=topic,
        reserved_concurrency=RESERVED,
        query_folder="akb/test/acme",
        # the cache's and fair sharing's rows (features/cache_feature.py, features/quota_feature.py)
        contributions=[cache_row(TENANT), quota_row(TENANT, 60, 120)],
    )
    enable_nag(app)
    assembly = app.synth()
    return assembly.get_stack_by_name("Probe").template, tmp_path


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> tuple[dict, Path]:
    return _probe(tmp_path_factory.mktemp("probe"))


@pytest.fixture(scope="module")
def template(probe) -> dict:
    return probe[0]


@pytest.fixture(scope="module")
def dashboard(template) -> dict:
    (body,) = dashboards(template).values()
    return body


@pytest.fixture(scope="module")
def tenant_alarms(template) -> dict[str, dict]:
    return {props["AlarmName"].removeprefix(f"{NAME}-"): props for props in alarms(template).values()}


def _ref(template: dict, resource_type: str) -> dict:
    (logical_id,) = [key for key, value in template["Resources"].items() if value["Type"] == resource_type]
    return {"Ref": logical_id}


# --- one source of truth: metric_names.py ---------------------------------------------------------


def test_every_endpoint_metric_read_is_a_metric_names_constant_with_an_emitted_dimension_set(template):
    uses, expressions = [], []
    for body in dashboards(template).values():
        found, exprs = dashboard_metrics(body)
        uses += found
        expressions += exprs
    for props in alarms(template).values():
        found, exprs = alarm_metrics(props)
        uses += found
        expressions += exprs
    endpoint_uses = [use for use in uses if use.namespace == names.NAMESPACE]
    assert endpoint_uses
    for use in endpoint_uses:
        assert use.name in names.DIMENSION_SETS, f"{use.where}: {use.name} is not in metric_names.py"
        assert use.dimension_names in names.DIMENSION_SETS[use.name], (use.where, use.name, use.dimensions)
        assert use.dimensions[names.TENANT_DIMENSION] == TENANT
    searches = [found for expression in expressions for found in search_uses(expression)]
    assert searches, "the errors-by-code widget searches the Tenant+ErrorCode set"
    for namespace, dims, metric_name in searches:
        assert namespace == names.NAMESPACE and metric_name in names.DIMENSION_SETS
        assert dims in names.DIMENSION_SETS[metric_name], (metric_name, dims)


def test_the_tenant_dashboard_shows_every_metric_the_endpoint_emits(dashboard):
    uses, _ = dashboard_metrics(dashboard)
    shown = {use.name for use in uses if use.namespace == names.NAMESPACE}
    assert shown == set(names.DIMENSION_SETS), "a metric the service emits has no place on the dashboard"


# --- the widgets --------------------------------------------------------------------------------------


def _stats(uses, metric_name, namespace=names.NAMESPACE) -> set[str]:
    return {use.stat for use in uses if use.namespace == namespace and use.name == metric_name}


def test_dashboard_widgets_use_the_statistics_each_question_needs(dashboard):
    uses, _ = dashboard_metrics(dashboard)
    assert {"p50", "p90", "Maximum"} <= _stats(uses, names.ITERATIONS)
    assert {"p50", "p95", "p99"} <= _stats(uses, names.TIME_TO_FIRST_EVENT_MS)
    assert {"p50", "p95", "p99"} <= _stats(uses, names.DURATION_MS)
    assert "Average" in _stats(uses, names.SUB_QUERIES)
    for per_request in (names.DISTINCT_DOCUMENTS, names.CITED_RESULTS):
        assert _stats(uses, per_request) == {"Average"}
    for counted in (
        names.REQUESTS,
        names.ERRORS,
        names.DEADLINE_STOPS,
        names.GUARDRAIL_INTERVENTIONS,
        names.ESTIMATED_COST_USD,
    ):
        assert _stats(uses, counted) == {"Sum"}, counted


def test_estimated_cost_is_shown_per_hour_and_per_day(dashboard):
    uses, _ = dashboard_metrics(dashboard)
    periods = {use.period for use in uses if use.name == names.ESTIMATED_COST_USD}
    assert {3600, 86400} <= periods


def test_function_row_reads_the_functions_own_lambda_metrics(template, dashboard):
    uses, _ = dashboard_metrics(dashboard)
    lambda_uses = [use for use in uses if use.namespace == "AWS/Lambda"]
    assert {use.name for use in lambda_uses} == {
        "Invocations",
        "Errors",
        "Throttles",
        "ConcurrentExecutions",
        "Duration",
    }
    assert all(set(use.dimensions) == {"FunctionName"} for use in lambda_uses)
    function = _ref(template, "AWS::Lambda::Function")["Ref"]
    assert {use.dimensions["FunctionName"] for use in lambda_uses} == {f"<ref:{function}>"}
    assert _stats(uses, "ConcurrentExecutions", "AWS/Lambda") == {"Maximum"}


def test_concurrency_graph_draws_the_reserved_concurrency(dashboard):
    (widget,) = [w for w in dashboard["widgets"] if w["properties"].get("title") == "Concurrency"]
    lines = widget["properties"]["annotations"]["horizontal"]
    assert [(line["label"], line["value"]) for line in lines] == [("reserved concurrency", RESERVED)]


def test_every_metric_row_starts_with_a_text_widget_saying_what_to_do_when_red(dashboard):
    rows: dict[int, list[dict]] = {}
    for widget in dashboard["widgets"]:
        rows.setdefault(widget["y"], []).append(widget)
    metric_rows = [row for row in rows.values() if any(w["type"] == "metric" for w in row)]
    assert len(metric_rows) >= 6
    for row in metric_rows:
        first = min(row, key=lambda w: w["x"])
        assert first["type"] == "text"
        assert (
            "**Red**" in first["properties"]["markdown"]
            or "**Spike**" in first["properties"]["markdown"]
            or "**Rising**" in first["properties"]["markdown"]
        )


def test_threshold_lines_on_the_dashboard_match_the_alarms(dashboard):
    by_title = {w["properties"].get("title"): w["properties"] for w in dashboard["widgets"]}

    def line_values(title):
        return [a["value"] for a in by_title[title].get("annotations", {}).get("horizontal", [])]

    assert line_values("Error rate %") == [THRESHOLDS.error_rate_percent]
    assert line_values("Time to first event (ms)") == [THRESHOLDS.time_to_first_event_p95_ms]
    assert line_values("Iterations per request") == [THRESHOLDS.iterations_average]


# --- the alarms ---------------------------------------------------------------------------------------

EXPECTED_ALARMS = {
    # key: (namespace, metric, statistic, threshold, comparison)
    "iterations": (
        names.NAMESPACE,
        names.ITERATIONS,
        "Average",
        THRESHOLDS.iterations_average,
        "GreaterThanOrEqualToThreshold",
    ),
    "time-to-first-event-p95": (
        names.NAMESPACE,
        names.TIME_TO_FIRST_EVENT_MS,
        "p95",
        THRESHOLDS.time_to_first_event_p95_ms,
        "GreaterThanThreshold",
    ),
    "deadline-stops": (names.NAMESPACE, names.DEADLINE_STOPS, "Sum", THRESHOLDS.deadline_stops, "GreaterThanThreshold"),
    "function-errors": ("AWS/Lambda", "Errors", "Sum", THRESHOLDS.function_errors, "GreaterThanThreshold"),
    "function-throttles": ("AWS/Lambda", "Throttles", "Sum", THRESHOLDS.function_throttles, "GreaterThanThreshold"),
}


@pytest.mark.parametrize("key", sorted(EXPECTED_ALARMS))
def test_single_metric_alarm_reads_the_emitted_metric_with_its_threshold(tenant_alarms, key):
    namespace, metric_name, stat, threshold, comparison = EXPECTED_ALARMS[key]
    props = tenant_alarms[key]
    (use,), expressions = alarm_metrics(props)
    assert expressions == []
    assert (use.namespace, use.name, use.stat) == (namespace, metric_name, stat)
    expected_dims = {"FunctionName"} if namespace == "AWS/Lambda" else {names.TENANT_DIMENSION}
    assert set(use.dimensions) == expected_dims
    assert props["Threshold"] == threshold and props["ComparisonOperator"] == comparison
    assert use.period == THRESHOLDS.period_minutes * 60
    assert props["EvaluationPeriods"] == props["DatapointsToAlarm"] == THRESHOLDS.evaluation_periods


def test_error_rate_alarm_divides_tenant_errors_by_requests(tenant_alarms):
    props = tenant_alarms["error-rate"]
    uses, (expression,) = alarm_metrics(props)
    assert expression == "100 * FILL(errors, 0) / requests"
    by_id = {query["Id"]: query for query in props["Metrics"] if "MetricStat" in query}
    assert by_id["errors"]["MetricStat"]["Metric"]["MetricName"] == names.ERRORS
    assert by_id["requests"]["MetricStat"]["Metric"]["MetricName"] == names.REQUESTS
    # The Tenant-only Errors set: the rate must not be split by code.
    assert all(set(use.dimensions) == {names.TENANT_DIMENSION} for use in uses)
    assert props["Threshold"] == THRESHOLDS.error_rate_percent


def test_every_alarm_treats_missing_data_as_not_breaching_and_says_why(tenant_alarms):
    for key, props in tenant_alarms.items():
        assert props["TreatMissingData"] == "notBreaching", key
        assert "Missing data is OK (notBreaching)" in props["AlarmDescription"], key


def test_one_composite_alarm_pages_the_topic_when_any_tenant_alarm_fires(template, tenant_alarms):
    (composite,) = [
        r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::CompositeAlarm"
    ]
    topic = _ref(template, "AWS::SNS::Topic")
    assert composite["AlarmActions"] == [topic] and composite["OKActions"] == [topic]
    rule = json.dumps(composite["AlarmRule"])
    alarm_ids = [key for key, value in template["Resources"].items() if value["Type"] == "AWS::CloudWatch::Alarm"]
    assert len(alarm_ids) == len(tenant_alarms) == 6
    assert all(alarm_id in rule for alarm_id in alarm_ids)
    assert rule.count(" OR ") == len(alarm_ids) - 1


def test_individual_tenant_alarms_do_not_notify_so_an_incident_pages_once(tenant_alarms):
    for key, props in tenant_alarms.items():
        assert not props.get("AlarmActions") and not props.get("OKActions"), key


def test_alarm_thresholds_follow_the_config_with_tenant_overrides(config_copy, tmp_path):
    config_copy.edit("environments", "dev", lambda e: e["alarms"].update(error_rate_percent=12.5, deadline_stops=4))
    config_copy.edit("tenants", "acme", lambda t: t.update(alarms={"deadline_stops": 9, "iterations_average": 2.5}))
    project = load_project(config_copy.root, "dev")
    template, _ = _probe(tmp_path, tenant_thresholds(project.environment, project.tenants["acme"]))
    by_key = {p["AlarmName"].removeprefix(f"{NAME}-"): p for p in alarms(template).values()}
    assert by_key["error-rate"]["Threshold"] == 12.5  # environment value
    assert by_key["deadline-stops"]["Threshold"] == 9  # tenant override wins
    assert by_key["iterations"]["Threshold"] == 2.5


# --- saved queries ------------------------------------------------------------------------------------


def test_saved_queries_read_the_endpoint_log_group_by_the_shared_field_names(template):
    queries = {
        r["Properties"]["Name"]: r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Logs::QueryDefinition"
    }
    assert sorted(queries) == [
        f"akb/test/acme/{n}" for n in ("errors-by-code", "frequent-sub-queries", "request-trace", "slowest-requests")
    ]
    log_group = _ref(template, "AWS::Logs::LogGroup")
    assert all(q["LogGroupNames"] == [log_group] for q in queries.values())
    trace = queries["akb/test/acme/request-trace"]["QueryString"]
    assert f'{log_fields.CORRELATION_ID} = "{REQUEST_ID_PLACEHOLDER}"' in trace
    slowest = queries["akb/test/acme/slowest-requests"]["QueryString"]
    assert f'{log_fields.EVENT} = "{log_fields.EVENT_DONE}"' in slowest
    assert f"sort {log_fields.DURATION_MS} desc" in slowest
    errors = queries["akb/test/acme/errors-by-code"]["QueryString"]
    assert f"by {log_fields.TENANT}, {log_fields.ERROR_CODE}" in errors
    frequent = queries["akb/test/acme/frequent-sub-queries"]["QueryString"]
    assert f"by {log_fields.SUB_QUERY}" in frequent


# --- clean under cdk-nag and cfn-lint -----------------------------------------------------------------


def test_probe_is_clean_under_cdk_nag_and_cfn_lint(probe):
    _, outdir = probe
    report = json.loads((outdir / "validation-report.json").read_text())
    assert [p for p in report["pluginReports"] if p["conclusion"] != "success"] == []
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "cfn-lint"),
            "--format",
            "parseable",
            "--non-zero-exit-code",
            "error",
            str(outdir / "Probe.template.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# --- misuse is caught at synth ------------------------------------------------------------------------


def test_asking_for_a_metric_the_service_does_not_emit_names_the_contract():
    with pytest.raises(ValueError, match=r"not an endpoint metric.*metric_names\.py"):
        EndpointMetrics(TENANT).metric("RequestCount")


def test_asking_for_a_dimension_set_the_service_does_not_emit_is_refused():
    assert EndpointMetrics(TENANT).metric(names.ERRORS, error_code="throttled").metric_name == names.ERRORS
    with pytest.raises(ValueError, match="not emitted with dimensions"):
        EndpointMetrics(TENANT).metric(names.REQUESTS, error_code="throttled")
