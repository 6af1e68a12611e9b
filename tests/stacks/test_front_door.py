"""Front door combinations synthesized (issue 19): one synth of a config whose tenants cover every option
(tests/stacks/front_door_config.py), checked resource by resource, by cdk-nag and by cfn-lint; and the
default front door's template unchanged (the function URL and its permissions keep their logical ids)."""

from __future__ import annotations

import json

import pytest

from tests.monitoring.cloudwatch_template import alarm_metrics, alarms, dashboard_metrics, dashboards
from tests.stacks.front_door_config import (
    CERTIFICATE,
    SECURITY_GROUPS,
    SUBNETS,
    VPC_ENDPOINTS,
    WEB_ACL,
    front_door_config,
)
from tests.synth import Synthesized, nag_and_lint_problems, synthesize

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


@pytest.fixture(scope="module")
def variant(tmp_path_factory) -> Synthesized:
    root = tmp_path_factory.mktemp("front-door")
    return synthesize(front_door_config(root), "dev", root / "cdk.out")


def _of(template: dict, kind: str) -> dict[str, dict]:
    """The endpoint's resources of `kind`: the variants copy globex, whose Bedrock agent (its invoke
    policy, its function's permission for bedrock.amazonaws.com) and MCP gateway are other doors."""
    return {
        key: value
        for key, value in template["Resources"].items()
        if value["Type"] == kind and not key.startswith(("Agent", "McpGateway"))
    }


def _one(template: dict, kind: str) -> dict:
    (only,) = _of(template, kind).values()
    return only["Properties"]


def _function(template: dict) -> dict:
    return template["Resources"][next(k for k in template["Resources"] if k.startswith("EndpointFunction8"))][
        "Properties"
    ]


def test_the_api_streams_both_methods_with_aws_iam_to_the_snapstart_alias(variant):
    template = variant.template("dev-acme")
    methods = {
        m["Properties"]["HttpMethod"]: m["Properties"] for m in _of(template, "AWS::ApiGateway::Method").values()
    }
    assert sorted(methods) == ["GET", "POST"]
    alias_id = next(iter(_of(template, "AWS::Lambda::Alias")))
    for method in methods.values():
        integration = method["Integration"]
        assert method["AuthorizationType"] == "AWS_IAM"
        assert (integration["Type"], integration["ResponseTransferMode"]) == ("AWS_PROXY", "STREAM")
        assert integration["TimeoutInMillis"] == 300_000  # the function's timeout; STREAM allows up to 15 min
        uri = json.dumps(integration["Uri"])
        assert "response-streaming-invocations" in uri and alias_id in uri
    assert not _of(template, "AWS::Lambda::Url")  # the API replaces the function URL


def test_stage_throttling_and_access_logs_with_the_endpoints_field_names(variant):
    template = variant.template("dev-acme")
    stage = _one(template, "AWS::ApiGateway::Stage")
    assert stage["StageName"] == "api"
    (settings,) = stage["MethodSettings"]
    assert (settings["ThrottlingRateLimit"], settings["ThrottlingBurstLimit"]) == (5, 10)
    log_format = json.loads(stage["AccessLogSetting"]["Format"])
    assert log_format["caller"] == "$context.identity.userArn" and log_format["tenant"] == "acme"
    assert log_format["correlation_id"] == "$context.requestId"
    groups = [g["Properties"]["LogGroupName"] for g in _of(template, "AWS::Logs::LogGroup").values()]
    assert "/akb/dev/acme/api-access" in groups


def test_custom_domain_waf_and_the_alias_record(variant):
    template = variant.template("dev-acme")
    api = _one(template, "AWS::ApiGateway::RestApi")
    assert api["EndpointConfiguration"] == {"Types": ["REGIONAL"]}
    assert api["DisableExecuteApiEndpoint"] is True  # the domain (and its WAF) cannot be bypassed
    domain = _one(template, "AWS::ApiGateway::DomainName")
    assert (domain["DomainName"], domain["RegionalCertificateArn"], domain["SecurityPolicy"]) == (
        "search.acme.example.com",
        CERTIFICATE,
        "TLS_1_2",
    )
    assert _one(template, "AWS::Route53::RecordSet")["Name"] == "search.acme.example.com."
    assert _one(template, "AWS::WAFv2::WebACLAssociation")["WebACLArn"] == WEB_ACL
    assert json.dumps(template["Outputs"]["EndpointUrl"]["Value"]) == '"https://search.acme.example.com/"'


def test_vpc_and_snapstart_on_the_function(variant):
    template = variant.template("dev-acme")
    function = _function(template)
    assert function["VpcConfig"] == {"SubnetIds": SUBNETS, "SecurityGroupIds": SECURITY_GROUPS}
    assert function["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    variables = function["Environment"]["Variables"]
    assert variables["AKB_REQUEST_CONTEXTS"] == "api_gateway"
    # No released Lambda Web Adapter reads its SnapStart hook variables (fault 4): the stack sets none.
    assert not any(name.startswith("AWS_LWA_SNAPSTART") for name in variables)
    assert _one(template, "AWS::Lambda::Alias")["Name"] == "live"
    role = template["Resources"]["EndpointRole47E61C54"]["Properties"]
    vpc_policy = next(p for p in role["Policies"] if p["PolicyName"] == "vpc")
    assert "ec2:CreateNetworkInterface" in vpc_policy["PolicyDocument"]["Statement"][0]["Action"]


def test_invokers_may_call_exactly_the_two_methods(variant):
    template = variant.template("dev-initech")
    statements = _one(template, "AWS::IAM::ManagedPolicy")["PolicyDocument"]["Statement"]
    assert [s["Action"] for s in statements] == ["execute-api:Invoke"]
    resources = json.dumps(statements[0]["Resource"])
    assert (
        resources.count("execute-api:") == 2 and "/api/POST/v1/query" in resources and "/api/GET/healthz" in resources
    )
    policy = _one(template, "AWS::ApiGateway::RestApi")["Policy"]
    (allow,) = policy["Statement"]
    assert allow["Principal"]["AWS"] == [
        "arn:aws:iam::123456789012:role/globex-portal",
        "arn:aws:iam::345678901234:role/globex-batch",
    ]
    assert sorted(allow["Resource"]) == ["execute-api:/api/GET/healthz", "execute-api:/api/POST/v1/query"]
    assert not _of(template, "AWS::WAFv2::WebACLAssociation") and not _of(template, "AWS::ApiGateway::DomainName")


def test_a_private_api_is_reachable_only_through_its_vpc_endpoints_and_keeps_the_url_while_migrating(variant):
    template = variant.template("dev-globex")
    api = _one(template, "AWS::ApiGateway::RestApi")
    assert api["EndpointConfiguration"] == {"Types": ["PRIVATE"], "VpcEndpointIds": VPC_ENDPOINTS}
    deny = next(s for s in api["Policy"]["Statement"] if s["Effect"] == "Deny")
    assert deny["Condition"] == {"StringNotEquals": {"aws:SourceVpce": sorted(VPC_ENDPOINTS)}}
    allow = next(s for s in api["Policy"]["Statement"] if s["Effect"] == "Allow")
    assert "*" not in json.dumps(allow["Principal"]) and ":root" in json.dumps(allow["Principal"])
    assert len(_of(template, "AWS::Lambda::Url")) == 1 and "EndpointFunctionUrl" in template["Outputs"]
    variables = _function(template)["Environment"]["Variables"]
    assert variables["AKB_REQUEST_CONTEXTS"] == "function_url,api_gateway"
    actions = {
        s["Action"] if isinstance(s["Action"], str) else tuple(s["Action"])
        for s in _one(template, "AWS::IAM::ManagedPolicy")["PolicyDocument"]["Statement"]
    }
    assert actions == {"lambda:InvokeFunctionUrl", "lambda:InvokeFunction", "execute-api:Invoke"}


def test_snapstart_with_the_function_url_puts_the_url_and_permissions_on_the_alias(variant):
    template = variant.template("dev-umbrella")
    assert not _of(template, "AWS::ApiGateway::RestApi")
    url = _one(template, "AWS::Lambda::Url")
    assert url["Qualifier"] == "live" and url["AuthType"] == "AWS_IAM" and url["InvokeMode"] == "RESPONSE_STREAM"
    alias_id = next(iter(_of(template, "AWS::Lambda::Alias")))
    permissions = _of(template, "AWS::Lambda::Permission").values()
    assert permissions and all(alias_id in json.dumps(p["Properties"]["FunctionName"]) for p in permissions)
    assert "AKB_REQUEST_CONTEXTS" not in _function(template)["Environment"]["Variables"]


def test_every_combination_is_clean_under_cdk_nag_and_cfn_lint(variant):
    assert nag_and_lint_problems(variant.outdir) == []


def test_the_default_front_door_keeps_the_function_url_and_its_logical_ids(synthesized):
    template = synthesized.template("dev-acme")
    assert not [k for k, v in template["Resources"].items() if v["Type"].startswith(("AWS::ApiGateway", "AWS::WAF"))]
    assert set(_of(template, "AWS::Lambda::Url")) == {"EndpointFunctionFunctionUrl3B1381A9"}
    assert set(_of(template, "AWS::Lambda::Permission")) == {
        "EndpointFunctionInvokeFunctionUrld70cbf0f675959B1",
        "EndpointFunctionInvokeFunctiond70cbf0fCD8C5711",
    }
    assert not _of(template, "AWS::Lambda::Alias") and not _of(template, "AWS::Lambda::Version")
    function = _function(template)
    assert "VpcConfig" not in function and "SnapStart" not in function
    assert not any(
        name.startswith(("AKB_REQUEST", "AWS_LWA_SNAPSTART")) for name in function["Environment"]["Variables"]
    )


# --- API Gateway metrics and alarms (monitoring/api_metrics.py) --------------------------------------

API_TENANTS = ("acme", "globex", "initech")  # api_gateway front door; umbrella keeps the function URL


def _api_uses(template: dict) -> tuple[dict[str, list], list]:
    """(alarm name -> its AWS/ApiGateway metric uses, dashboard AWS/ApiGateway metric uses)."""
    by_alarm = {
        props["AlarmName"]: [u for u in alarm_metrics(props)[0] if u.namespace == "AWS/ApiGateway"]
        for props in alarms(template).values()
    }
    on_dashboards = [
        use
        for body in dashboards(template).values()
        for use in dashboard_metrics(body)[0]
        if use.namespace == "AWS/ApiGateway"
    ]
    return {name: uses for name, uses in by_alarm.items() if uses}, on_dashboards


@pytest.mark.parametrize("tenant", API_TENANTS)
def test_an_api_tenant_has_api_gateway_alarms_on_its_stage_inside_its_composite(variant, tenant):
    template = variant.template(f"dev-{tenant}")
    api_name = _one(template, "AWS::ApiGateway::RestApi")["Name"]
    by_alarm, _ = _api_uses(template)
    prefix = f"akb-dev-{tenant}"
    assert sorted(by_alarm) == [f"{prefix}-api-4xx-rate", f"{prefix}-api-5xx-errors"]
    readings = {name: [(u.name, u.stat, u.dimensions, u.period) for u in uses] for name, uses in by_alarm.items()}
    dims = {"ApiName": api_name, "Stage": "api"}
    assert readings[f"{prefix}-api-5xx-errors"] == [("5XXError", "Sum", dims, 300)]
    assert readings[f"{prefix}-api-4xx-rate"] == [("4XXError", "Average", dims, 300)]
    by_name = {props["AlarmName"]: (key, props) for key, props in alarms(template).items()}
    key_5xx, props_5xx = by_name[f"{prefix}-api-5xx-errors"]
    key_4xx, props_4xx = by_name[f"{prefix}-api-4xx-rate"]
    assert props_5xx["ComparisonOperator"] == "GreaterThanThreshold" and props_5xx["TreatMissingData"] == "notBreaching"
    assert 0 < props_4xx["Threshold"] < 1  # 4XXError's Average is a fraction, the threshold a percent / 100
    assert not props_5xx.get("AlarmActions") and not props_4xx.get("AlarmActions")  # the composite pages
    (composite,) = [
        v["Properties"] for v in template["Resources"].values() if v["Type"] == "AWS::CloudWatch::CompositeAlarm"
    ]
    rule = json.dumps(composite["AlarmRule"])
    assert composite["AlarmName"] == f"{prefix}-page" and key_5xx in rule and key_4xx in rule


@pytest.mark.parametrize("tenant", API_TENANTS)
def test_an_api_tenants_dashboard_has_the_api_row_per_stage(variant, tenant):
    template = variant.template(f"dev-{tenant}")
    api_name = _one(template, "AWS::ApiGateway::RestApi")["Name"]
    _, on_dashboard = _api_uses(template)
    assert {(u.name, u.stat) for u in on_dashboard} == {
        ("Count", "SampleCount"),
        ("4XXError", "Sum"),
        ("5XXError", "Sum"),
        ("Latency", "p99"),
        ("IntegrationLatency", "p99"),
    }
    assert all(u.dimensions == {"ApiName": api_name, "Stage": "api"} for u in on_dashboard)
    texts = [
        w["properties"]["markdown"]
        for body in dashboards(template).values()
        for w in body["widgets"]
        if w["type"] == "text"
    ]
    assert any(t.startswith("### API Gateway (front door)") for t in texts)


def test_a_function_url_tenant_has_no_api_gateway_metrics(variant, synthesized):
    for template in (variant.template("dev-umbrella"), synthesized.template("dev-acme")):
        by_alarm, on_dashboard = _api_uses(template)
        assert by_alarm == {} and on_dashboard == []
        assert not [a for a in alarms(template).values() if "-api-" in a["AlarmName"]]
