"""The dev environment synthesizes the environment dashboard and the account's Bedrock alarms (and, once
the endpoint has landed, every tenant's dashboard, alarms and saved queries), from config."""

from __future__ import annotations

import aws_cdk as cdk
import pytest

from contract import metric_names as names
from schema import load_project
from stacks.platform_stack import PlatformStack
from tests.monitoring.cloudwatch_template import alarm_metrics, alarms, dashboard_metrics, dashboards, search_uses

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

PLATFORM = "dev-platform"
ACCOUNT_ALARMS = {
    # name suffix: (metric, operation, statistic, comparison)
    "total-iterations-average": (
        names.BEDROCK_TOTAL_ITERATION_COUNT,
        "AgenticRetrieveStream",
        "Average",
        "GreaterThanOrEqualToThreshold",
    ),
    "total-iterations-p90": (
        names.BEDROCK_TOTAL_ITERATION_COUNT,
        "AgenticRetrieveStream",
        "p90",
        "GreaterThanOrEqualToThreshold",
    ),
    "agentic-throttles": (names.BEDROCK_THROTTLES, "AgenticRetrieveStream", "Sum", "GreaterThanThreshold"),
}


def _account_alarms(template: dict) -> dict[str, dict]:
    return {props["AlarmName"].removeprefix("akb-dev-"): props for props in alarms(template).values()}


def _candidate(use) -> bool:
    """A series read only as one of the candidates of fact 6: TotalIterationCount or Throttles under an
    Operation no source confirms (contract/metric_names.py BEDROCK_CANDIDATE_OPERATIONS)."""
    return use.name in (names.BEDROCK_TOTAL_ITERATION_COUNT, names.BEDROCK_THROTTLES) and set(use.dimensions) == {
        names.BEDROCK_OPERATION_DIMENSION
    }


def test_environment_dashboard_reads_agentic_per_operation_and_retrieve_per_knowledge_base(synthesized):
    """AgenticRetrieveStream: Operation only. Retrieve: only {KnowledgeBaseId, Operation} is documented, so the
    account-wide Retrieve lines are SUM(SEARCH(...)) over that schema (04-dashboards.yaml reads per KB);
    TotalIterationCount and Throttles are also read under every candidate Operation (fact 6)."""
    (body,) = dashboards(synthesized.template(PLATFORM)).values()
    uses, expressions = dashboard_metrics(body)
    bedrock = [u for u in uses if u.namespace == names.BEDROCK_KB_NAMESPACE]
    for use in bedrock:
        operation = use.dimensions.get(names.BEDROCK_OPERATION_DIMENSION)
        if not _candidate(use):
            assert tuple(sorted(use.dimensions)) == tuple(sorted(names.BEDROCK_SERIES[(use.name, operation)]))
    shown = {(u.name, u.dimensions[names.BEDROCK_OPERATION_DIMENSION]) for u in bedrock}
    counters = (names.BEDROCK_INVOCATIONS, names.BEDROCK_CLIENT_ERRORS, names.BEDROCK_SERVER_ERRORS)
    for metric in (*counters, names.BEDROCK_THROTTLES):
        assert (metric, "AgenticRetrieveStream") in shown
    for metric in counters:
        assert (metric, "Retrieve") not in shown, "an Operation-only Retrieve counter is not published"
    for operation in names.BEDROCK_CANDIDATE_OPERATIONS:
        assert (names.BEDROCK_TOTAL_ITERATION_COUNT, operation) in shown
    searched = {(ns, dims, metric) for e in expressions for ns, dims, metric in search_uses(e)}
    per_kb = (names.BEDROCK_KNOWLEDGE_BASE_DIMENSION, names.BEDROCK_OPERATION_DIMENSION)
    for metric in (*counters, names.BEDROCK_THROTTLES):
        assert (names.BEDROCK_KB_NAMESPACE, per_kb, metric) in searched
    for metric in (names.BEDROCK_TOTAL_ITERATION_COUNT, names.BEDROCK_THROTTLES):  # every dimension set, one line each
        assert (names.BEDROCK_KB_NAMESPACE, (), metric) in searched
    retrieve_searches = [e for e in expressions if "SEARCH(" in e and 'MetricName="Invocations"' in e]
    assert retrieve_searches and all('Operation="Retrieve"' in e and e.startswith("SUM(") for e in retrieve_searches)


def test_environment_dashboard_shows_every_knowledge_bases_raw_data_size_hourly_maximum(synthesized):
    (body,) = dashboards(synthesized.template(PLATFORM)).values()
    _, expressions = dashboard_metrics(body)
    raw = [e for e in expressions if "RawDataSize" in e and e.startswith("SEARCH(")]
    assert raw  # drawn, and (hidden) behind the storage estimate
    for expression in raw:
        assert search_uses(expression) == [
            (names.BEDROCK_KB_NAMESPACE, (names.BEDROCK_KNOWLEDGE_BASE_DIMENSION,), names.BEDROCK_RAW_DATA_SIZE)
        ]
        assert expression.endswith("'Maximum', 3600)")
    price = synthesized.project.environment.pricing.index_storage_per_gb_month_usd
    assert any(e.startswith(f"{price:g} * SUM(") for e in expressions)


def test_environment_dashboard_draws_the_quota_from_config(synthesized):
    (body,) = dashboards(synthesized.template(PLATFORM)).values()
    (widget,) = [w for w in body["widgets"] if w["properties"].get("title") == "AgenticRetrieveStream calls per minute"]
    lines = {a["label"]: a["value"] for a in widget["properties"]["annotations"]["horizontal"]}
    assert lines == {"quota": 300, "alarm (80%)": 240}
    assert widget["properties"]["period"] == 60


def test_environment_dashboard_has_a_summary_row_per_tenant_from_emf_metrics(synthesized):
    (body,) = dashboards(synthesized.template(PLATFORM)).values()
    for tenant in synthesized.project.tenants:
        (widget,) = [w for w in body["widgets"] if w["properties"].get("title", "").startswith(f"{tenant}:")]
        uses, _ = dashboard_metrics({"widgets": [widget]})
        assert [(u.namespace, u.name, u.dimensions, u.stat) for u in uses] == [
            (names.NAMESPACE, names.REQUESTS, {names.TENANT_DIMENSION: tenant}, "Sum"),
            (names.NAMESPACE, names.ERRORS, {names.TENANT_DIMENSION: tenant}, "Sum"),
            (names.NAMESPACE, names.TIME_TO_FIRST_EVENT_MS, {names.TENANT_DIMENSION: tenant}, "p95"),
            (names.NAMESPACE, names.ESTIMATED_COST_USD, {names.TENANT_DIMENSION: tenant}, "Sum"),
        ]


@pytest.mark.parametrize("key", sorted(ACCOUNT_ALARMS))
def test_account_alarm_reads_every_candidate_dimension_set_together_and_notifies_the_topic(synthesized, key):
    """Fact 6: whichever Operation Bedrock publishes the series under, the alarm has data (MAX over them);
    the iteration alarms also read the endpoints' own Iterations, the authoritative series."""
    template = synthesized.template(PLATFORM)
    metric, _, stat, comparison = ACCOUNT_ALARMS[key]
    props = _account_alarms(template)[key]
    uses, _ = alarm_metrics(props)
    bedrock = {
        (u.name, u.dimensions[names.BEDROCK_OPERATION_DIMENSION], u.stat)
        for u in uses
        if u.namespace == names.BEDROCK_KB_NAMESPACE
    }
    assert bedrock == {(metric, operation, stat) for operation in names.BEDROCK_CANDIDATE_OPERATIONS}
    own = sorted(u.dimensions[names.TENANT_DIMENSION] for u in uses if u.namespace == names.NAMESPACE)
    expected_own = sorted(synthesized.project.tenants) if metric == names.BEDROCK_TOTAL_ITERATION_COUNT else []
    assert own == expected_own
    assert all(u.name == names.ITERATIONS and u.stat == stat for u in uses if u.namespace == names.NAMESPACE)
    (watched,) = [q["Expression"] for q in props["Metrics"] if q.get("ReturnData", True) and "Expression" in q]
    assert watched.startswith("MAX([")
    assert props["ComparisonOperator"] == comparison
    assert props["TreatMissingData"] == "notBreaching" and "Missing data is OK" in props["AlarmDescription"]
    (topic,) = [k for k, v in template["Resources"].items() if v["Type"] == "AWS::SNS::Topic"]
    assert props["AlarmActions"] == [{"Ref": topic}] and props["OKActions"] == [{"Ref": topic}]


def test_total_iteration_alarms_say_the_metric_exists_only_for_successful_calls(synthesized):
    by_key = _account_alarms(synthesized.template(PLATFORM))
    for key in ("total-iterations-average", "total-iterations-p90"):
        assert "only for calls that succeeded" in by_key[key]["AlarmDescription"]


def test_quota_alarm_reads_the_larger_of_all_endpoints_requests_and_bedrocks_agentic_calls(synthesized):
    """Not Bedrock's AgenticRetrieveStream Invocations alone: AWS's sample saw only Operation=Retrieve live."""
    template = synthesized.template(PLATFORM)
    props = _account_alarms(template)["agentic-quota"]
    uses, expressions = alarm_metrics(props)
    requests = [u for u in uses if u.namespace == names.NAMESPACE]
    assert sorted(u.dimensions[names.TENANT_DIMENSION] for u in requests) == sorted(synthesized.project.tenants)
    assert all(u.name == names.REQUESTS and u.stat == "Sum" and set(u.dimensions) == {"Tenant"} for u in requests)
    (bedrock,) = [u for u in uses if u.namespace == names.BEDROCK_KB_NAMESPACE]
    assert (bedrock.name, bedrock.dimensions) == (names.BEDROCK_INVOCATIONS, {"Operation": "AgenticRetrieveStream"})
    assert {u.period for u in uses} == {60} and props["Threshold"] == 240
    (watched,) = [q["Expression"] for q in props["Metrics"] if q.get("ReturnData", True) and "Expression" in q]
    assert watched == "MAX([endpoints, FILL(bedrock, 0)])"
    assert "SUM([FILL(t0, 0), FILL(t1, 0)])" in expressions
    (topic,) = [k for k, v in template["Resources"].items() if v["Type"] == "AWS::SNS::Topic"]
    assert props["AlarmActions"] == [{"Ref": topic}] and props["OKActions"] == [{"Ref": topic}]


def test_no_template_reads_a_retrieve_series_without_its_knowledge_base_but_the_candidates(synthesized):
    for stack, template in synthesized.templates.items():
        uses = [u for props in alarms(template).values() for u in alarm_metrics(props)[0]]
        uses += [u for body in dashboards(template).values() for u in dashboard_metrics(body)[0]]
        for use in uses:
            retrieve = use.namespace == names.BEDROCK_KB_NAMESPACE and use.dimensions.get("Operation") == "Retrieve"
            if retrieve and not _candidate(use):
                assert use.dimensions[names.BEDROCK_KNOWLEDGE_BASE_DIMENSION].startswith("knowledge-base/"), stack


def test_account_thresholds_follow_the_environment_config(config_copy, tmp_path):
    config_copy.edit(
        "environments",
        "dev",
        lambda e: e.update(
            quota={"agentic_requests_per_minute": 1000},
            alarms={**e["alarms"], "quota_utilization_percent": 50, "iterations_p90": 6, "evaluation_periods": 5},
        ),
    )
    project = load_project(config_copy.root, "dev")
    app = cdk.App(outdir=str(tmp_path))
    stack = PlatformStack(app, "Probe-platform", project=project)
    by_key = _account_alarms(app.synth().get_stack_by_name(stack.stack_name).template)
    assert by_key["agentic-quota"]["Threshold"] == 500
    assert by_key["total-iterations-p90"]["Threshold"] == 6
    bedrock = {key: props for key, props in by_key.items() if "quota-share" not in key and "fair-share" not in key}
    assert {props["EvaluationPeriods"] for props in bedrock.values()} == {5}


def _endpoint_only(found: dict[str, dict]) -> dict[str, dict]:
    """The endpoint's monitoring; the agent's (tenants with `agent:`) is tests/stacks/test_agent.py's."""
    return {k: v for k, v in found.items() if not k.startswith("AgentObservability")}


def _tenant_template(synthesized, tenant: str) -> dict:
    template = synthesized.template(f"dev-{tenant}")
    assert dashboards(template), f"dev-{tenant} has no dashboard: the tenant's monitoring is not wired"
    return template


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_each_tenant_stack_has_its_dashboard_alarms_composite_and_queries(synthesized, tenant):
    template = _tenant_template(synthesized, tenant)
    (body,) = _endpoint_only(dashboards(template)).values()
    uses, _ = dashboard_metrics(body)
    # The cache row only for a tenant with a cache (acme has one, globex has none).
    expected = set(names.DIMENSION_SETS)
    if synthesized.project.tenants[tenant].cache is None:
        expected -= set(names.CACHE_METRICS)
    if not synthesized.project.environment.quota.fair_share:
        expected -= set(names.QUOTA_METRICS)
    assert {u.name for u in uses if u.namespace == names.NAMESPACE} == expected
    gateway_alarms = 3 if synthesized.project.tenants[tenant].gateway else 0  # tests/cdk_constructs/test_mcp_gateway.py
    quality = synthesized.project.tenants[tenant].quality  # tests/stacks/test_quality_gate.py
    minimums = (
        [quality.thresholds.min_recall_at_5, quality.thresholds.min_mrr, quality.thresholds.min_complete_rate]
        if quality
        else []
    )
    # per mode: one per configured minimum and one on a failed run
    quality_alarms = (sum(m is not None for m in minimums) + 1) * len(quality.modes) if quality else 0
    # six endpoint alarms + Retrieve throttles of its KBs + ingestion failed documents and jobs
    assert len(_endpoint_only(alarms(template))) == 9 + gateway_alarms + quality_alarms
    types = [r["Type"] for r in template["Resources"].values()]
    assert types.count("AWS::CloudWatch::CompositeAlarm") == 1
    assert types.count("AWS::Logs::QueryDefinition") == 5  # four endpoint queries + ingestion failed documents


def test_tenant_composite_alarm_notifies_the_platform_topic_across_stacks(synthesized):
    template = _tenant_template(synthesized, "acme")
    (composite,) = [
        r["Properties"] for r in template["Resources"].values() if r["Type"] == "AWS::CloudWatch::CompositeAlarm"
    ]
    (action,) = composite["AlarmActions"]
    assert "Fn::ImportValue" in action


def test_tenant_thresholds_come_from_the_tenant_file(synthesized):
    globex = {p["AlarmName"]: p for p in _endpoint_only(alarms(_tenant_template(synthesized, "globex"))).values()}
    assert globex["akb-dev-globex-time-to-first-event-p95"]["Threshold"] == 8000
    assert globex["akb-dev-globex-iterations"]["Threshold"] == 4


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_tenant_retrieve_throttles_alarm_sums_each_of_its_knowledge_bases(synthesized, tenant):
    template = _tenant_template(synthesized, tenant)
    kb_ids = {k for k, r in template["Resources"].items() if r["Type"] == "AWS::Bedrock::KnowledgeBase"}
    assert len(kb_ids) == len(synthesized.project.tenants[tenant].knowledge_bases)
    (props,) = [
        p for p in _endpoint_only(alarms(template)).values() if p["AlarmName"] == f"akb-dev-{tenant}-retrieve-throttles"
    ]
    uses, expressions = alarm_metrics(props)
    assert {u.dimensions["KnowledgeBaseId"] for u in uses} == {
        f"knowledge-base/<att:{k}.KnowledgeBaseId>" for k in kb_ids
    }
    assert {(u.namespace, u.name, u.dimensions["Operation"], u.stat) for u in uses} == {
        (names.BEDROCK_KB_NAMESPACE, names.BEDROCK_THROTTLES, "Retrieve", "Sum")
    }
    assert expressions and expressions[0].startswith("SUM([FILL(")
    assert props["Threshold"] == synthesized.project.environment.alarms.bedrock_throttles
    assert props["TreatMissingData"] == "notBreaching"


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_tenant_dashboard_shows_retrieve_and_raw_data_size_per_knowledge_base(synthesized, tenant):
    template = _tenant_template(synthesized, tenant)
    kb_ids = {k for k, r in template["Resources"].items() if r["Type"] == "AWS::Bedrock::KnowledgeBase"}
    (body,) = _endpoint_only(dashboards(template)).values()
    uses, _ = dashboard_metrics(body)
    bedrock = [u for u in uses if u.namespace == names.BEDROCK_KB_NAMESPACE]
    expected_kbs = {f"knowledge-base/<att:{k}.KnowledgeBaseId>" for k in kb_ids}
    for metric in (names.BEDROCK_INVOCATIONS, names.BEDROCK_CLIENT_ERRORS, names.BEDROCK_SERVER_ERRORS):
        series = [u for u in bedrock if u.name == metric]
        assert {u.dimensions["KnowledgeBaseId"] for u in series} == expected_kbs
        assert all(u.dimensions["Operation"] == "Retrieve" and u.stat == "Sum" for u in series)
    sizes = [u for u in bedrock if u.name == names.BEDROCK_RAW_DATA_SIZE]
    assert {u.dimensions["KnowledgeBaseId"] for u in sizes} == expected_kbs
    assert all(set(u.dimensions) == {"KnowledgeBaseId"} and u.stat == "Maximum" and u.period == 3600 for u in sizes)
