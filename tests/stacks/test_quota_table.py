"""Fair sharing in the synthesized example (`dev`): one table in `<env>-platform`, the alarms and the
dashboard row there, and each tenant's endpoint told the table's name and allowed only its items."""

from __future__ import annotations

import json

import pytest

from contract import metric_names as names
from contract.env_vars import QUOTA_TABLE
from contract.resource_names import quota_table_name
from tests.monitoring.cloudwatch_template import alarm_metrics, alarms, dashboard_metrics, dashboards

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _of_type(template, kind):
    return {key: value for key, value in template["Resources"].items() if value["Type"] == kind}


def test_the_platform_stack_has_the_one_on_demand_encrypted_quota_table(synthesized):
    (table,) = _of_type(synthesized.template("dev-platform"), "AWS::DynamoDB::Table").values()
    props = table["Properties"]
    assert props["TableName"] == quota_table_name("dev") == "akb-dev-quota"
    assert props["BillingMode"] == "PAY_PER_REQUEST" and props["SSESpecification"] == {"SSEEnabled": True}
    assert [k["AttributeName"] for k in props["KeySchema"]] == ["pk"] and "TimeToLiveSpecification" not in props


def test_alarms_watch_each_tenants_guarantee_and_the_account_and_notify_the_topic(synthesized):
    found = {p["AlarmName"]: p for p in alarms(synthesized.template("dev-platform")).values()}
    acme, globex, account = (
        found[f"akb-dev-{key}"] for key in ("acme-quota-share", "globex-quota-share", "fair-share-account")
    )
    assert (acme["Threshold"], globex["Threshold"], account["Threshold"]) == (96, 144, 270)  # 80%, 80%, 90%
    assert (acme["EvaluationPeriods"], acme["DatapointsToAlarm"], account["EvaluationPeriods"]) == (15, 15, 5)
    (read,), _ = alarm_metrics(acme)
    assert (read.name, read.dimensions, read.stat, read.period) == (names.QUOTA_ADMITTED, {"Tenant": "acme"}, "Sum", 60)
    assert all(alarm["AlarmActions"] and alarm["OKActions"] for alarm in (acme, globex, account))


def test_the_environment_dashboard_shows_each_tenants_use_of_its_share(synthesized):
    (body,) = dashboards(synthesized.template("dev-platform")).values()
    uses, _ = dashboard_metrics(body)
    read = {(u.name, u.dimensions.get(names.TENANT_DIMENSION)) for u in uses if u.namespace == names.NAMESPACE}
    for tenant in ("acme", "globex"):
        assert {(names.QUOTA_ADMITTED, tenant), (names.QUOTA_BORROWED, tenant), (names.QUOTA_DEGRADED, tenant)} <= read
    assert "Fair share of the agentic quota" in json.dumps(body)


@pytest.mark.parametrize("tenant", ["acme", "globex"])
def test_each_endpoint_gets_the_tables_name_and_only_its_items(synthesized, tenant):
    template = synthesized.template(f"dev-{tenant}")
    variables = [
        f["Properties"]["Environment"]["Variables"]
        for f in _of_type(template, "AWS::Lambda::Function").values()
        if QUOTA_TABLE in f["Properties"].get("Environment", {}).get("Variables", {})
    ]
    assert [v[QUOTA_TABLE] for v in variables] == ["akb-dev-quota"]
    text = json.dumps(template)
    assert f'"dynamodb:LeadingKeys": ["tenant#{tenant}"]' in text and '"dynamodb:LeadingKeys": ["account"]' in text
    other = "globex" if tenant == "acme" else "acme"
    assert f"tenant#{other}" not in text
