"""The quality gate in the tenant stack (issue 30): one synth of the example dev config where both tenants schedule
their gate — acme (user_context caller: the canary is the gate role's session name) and globex (trusted: the gate
role is a trusted caller that names the canary) — clean under cdk-nag and cfn-lint, least privilege, alarms in
the composite; and the example's own tenants get the gate's alarms without a schedule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLE_CONFIG
from tests.stacks.templates import as_list, render
from tests.synth import Synthesized, nag_and_lint_problems, synthesize

pytestmark = [pytest.mark.synth]
CANARY = "qa-canary@acme.example"


def scheduled_config(root: Path) -> Path:
    import shutil

    config = root / "config"
    shutil.copytree(EXAMPLE_CONFIG, config)
    for tenant, extra in (("acme", {"canary": {"user_id": CANARY}}), ("globex", {})):
        path = config / "tenants" / f"{tenant}.yaml"
        data = yaml.safe_load(path.read_text())
        data.update(extra)
        data["quality"]["schedule"] = {"environments": ["dev"], "every": "weekly" if tenant == "acme" else "daily"}
        path.write_text(yaml.safe_dump(data, sort_keys=False))
    return config


@pytest.fixture(scope="module")
def scheduled(tmp_path_factory) -> Synthesized:
    root = tmp_path_factory.mktemp("quality")
    return synthesize(scheduled_config(root), "dev", root / "cdk.out")


def resources(template: dict, kind: str) -> dict[str, dict]:
    return {k: v["Properties"] for k, v in template["Resources"].items() if v["Type"] == kind}


def one(template: dict, kind: str, contains: str) -> tuple[str, dict]:
    (found,) = [(k, v) for k, v in resources(template, kind).items() if contains in k]
    return found


def test_the_schedule_starts_the_project_and_its_role_may_do_only_that(scheduled):
    template = scheduled.template("dev-globex")
    _rule_id, rule = one(template, "AWS::Events::Rule", "QualityGate")
    project_id, project = one(template, "AWS::CodeBuild::Project", "QualityGate")
    assert rule["ScheduleExpression"] == "rate(1 day)" and rule["Name"] == "akb-dev-globex-quality-gate"
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [project_id, "Arn"]}
    events_role = target["RoleArn"]["Fn::GetAtt"][0]
    (policy,) = [p for p in resources(template, "AWS::IAM::Policy").values() if {"Ref": events_role} in p["Roles"]]
    assert policy["PolicyDocument"]["Statement"] == [
        {"Action": "codebuild:StartBuild", "Effect": "Allow", "Resource": {"Fn::GetAtt": [project_id, "Arn"]}}
    ]
    assert project["Name"] == "akb-dev-globex-quality-gate" and project["Artifacts"] == {"Type": "NO_ARTIFACTS"}
    assert project["Environment"]["PrivilegedMode"] is False  # no Docker in the build either
    assert one(scheduled.template("dev-acme"), "AWS::Events::Rule", "QualityGate")[1]["ScheduleExpression"] == (
        "rate(7 days)"
    )


def test_the_build_runs_the_gate_as_the_gate_role_and_never_promotes(scheduled):
    _, project = one(scheduled.template("dev-acme"), "AWS::CodeBuild::Project", "QualityGate")
    spec = json.loads(project["Source"]["BuildSpec"])
    commands = spec["phases"]["build"]["commands"]
    assert (
        commands[-1]
        == "AWS_PROFILE=gate-acme .venv/bin/akb eval --gate --env dev --tenant acme --config config --out gate-out"
    )
    assert "role_session_name" in commands[1] and "--promote-baseline" not in " ".join(commands)
    variables = {v["Name"]: v["Value"] for v in project["Environment"]["EnvironmentVariables"]}
    assert variables["GATE_SESSION_NAME"] == CANARY  # caller: the endpoint reads the session name


def test_the_project_role_writes_its_logs_reads_its_source_and_assumes_the_gate_role_only(scheduled):
    template = scheduled.template("dev-globex")
    project_role = one(template, "AWS::IAM::Role", "QualityGateProjectRole")[0]
    gate_role = one(template, "AWS::IAM::Role", "QualityGateGateRole")[0]
    (policy,) = [p for p in resources(template, "AWS::IAM::Policy").values() if {"Ref": project_role} in p["Roles"]]
    actions = {a for s in policy["PolicyDocument"]["Statement"] for a in as_list(s["Action"])}
    assert {a.split(":")[0] for a in actions} == {"sts", "s3", "logs", "codebuild"}
    assert not {a for a in actions if a.startswith("s3:") and not a.startswith(("s3:Get", "s3:List"))}
    (assume,) = [s for s in policy["PolicyDocument"]["Statement"] if s["Action"] == "sts:AssumeRole"]
    assert assume["Resource"] == {"Fn::GetAtt": [gate_role, "Arn"]}


@pytest.mark.parametrize(("tenant", "session"), [("acme", CANARY), ("globex", "akb-quality-gate")])
def test_the_gate_role_is_assumable_by_the_project_only_as_the_canary_session(scheduled, tenant, session):
    template = scheduled.template(f"dev-{tenant}")
    project_role = one(template, "AWS::IAM::Role", "QualityGateProjectRole")[0]
    _, role = one(template, "AWS::IAM::Role", "QualityGateGateRole")
    assert role["RoleName"] == f"akb-dev-{tenant}-quality-gate"
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"AWS": {"Fn::GetAtt": [project_role, "Arn"]}}
    assert trust["Condition"] == {"StringEquals": {"sts:RoleSessionName": session}}
    (inline,) = role["Policies"]
    sids = [s["Sid"] for s in inline["PolicyDocument"]["Statement"]]
    assert sids == [
        "ReadTheGatedEndpointUrls",
        "ReadTheGatedBaselines",
        "AskTheGatedEndpointsThroughTheirUrls",
        "InvokeTheGatedEndpointsOnlyThroughTheirUrls",
        "PublishTheGateFiguresOnly",
    ]
    baseline = inline["PolicyDocument"]["Statement"][1]
    assert baseline["Action"] == "ssm:GetParameter"  # the schedule never promotes
    assert render(baseline["Resource"]).endswith(f":parameter/akb/dev/{tenant}/quality/baseline")


@pytest.mark.parametrize(("tenant", "field"), [("acme", "session_name_callers"), ("globex", "trusted_callers")])
def test_the_endpoint_vouches_for_the_gate_role_the_way_its_user_context_reads_identity(scheduled, tenant, field):
    template = scheduled.template(f"dev-{tenant}")
    gate_role = one(template, "AWS::IAM::Role", "QualityGateGateRole")[0]
    _, function = one(template, "AWS::Lambda::Function", "EndpointFunction")
    settings = json.loads(render(function["Environment"]["Variables"]["AKB_TENANT_SETTINGS"]))
    assert f"<{gate_role}.Arn>" in settings[field]
    other = "trusted_callers" if field == "session_name_callers" else "session_name_callers"
    assert f"<{gate_role}.Arn>" not in settings[other]


def test_the_quality_alarms_read_the_gates_series_and_page_through_the_composite(scheduled):
    template = scheduled.template("dev-acme")
    alarms = {k: v for k, v in resources(template, "AWS::CloudWatch::Alarm").items() if "Quality" in k}
    names = sorted(v["AlarmName"] for v in alarms.values())
    assert names == [
        "akb-dev-acme-quality-completerate-agentic",
        "akb-dev-acme-quality-failed-agentic",
        "akb-dev-acme-quality-mrr-agentic",
        "akb-dev-acme-quality-recall5-agentic",
    ]
    for alarm in alarms.values():
        (query,) = alarm["Metrics"]
        stat = query["MetricStat"]
        assert stat["Metric"]["Namespace"] == "AgenticRetrieval/QualityGate" and stat["Period"] == 604_800
        dimensions = {d["Name"]: d["Value"] for d in stat["Metric"]["Dimensions"]}
        assert dimensions == {"Environment": "dev", "Tenant": "acme", "Mode": "agentic"}
        assert alarm["TreatMissingData"] == "notBreaching" and alarm["EvaluationPeriods"] == 1
        assert "AlarmActions" not in alarm
    (composite,) = resources(template, "AWS::CloudWatch::CompositeAlarm").values()
    assert all(alarm_id in json.dumps(composite["AlarmRule"]) for alarm_id in alarms)


def test_the_source_holds_the_gates_code_and_this_config_and_nothing_else(scheduled):
    _, project = one(scheduled.template("dev-globex"), "AWS::CodeBuild::Project", "QualityGate")
    key = project["Source"]["Location"].split("/", 1)[1].removesuffix(".zip")
    staged = scheduled.outdir / f"asset.{key}"
    files = {str(p.relative_to(staged)) for p in staged.rglob("*") if p.is_file()}
    assert {"client/evaluation/gate.py", "config/quality/globex.jsonl", "Makefile", "requirements.lock"} <= files
    assert "config/tenants/globex.yaml" in files and "quality" in (staged / "config/tenants/globex.yaml").read_text()
    assert not {f for f in files if f.startswith(("tests/", "stacks/", "cdk_constructs/", "docs/", ".venv/"))}
    assert not [f for f in files if "__pycache__" in f]


def test_every_scheduled_stack_is_clean_under_cdk_nag_and_cfn_lint(scheduled):
    assert nag_and_lint_problems(scheduled.outdir) == []


def test_without_a_schedule_the_example_tenants_get_the_alarms_and_no_project(synthesized):
    template = synthesized.template("dev-globex")
    assert not resources(template, "AWS::CodeBuild::Project") and not resources(template, "AWS::Events::Rule")
    names = {v["AlarmName"] for v in resources(template, "AWS::CloudWatch::Alarm").values()}
    assert "akb-dev-globex-quality-failed-agentic" in names
    assert {
        v["Metrics"][0]["MetricStat"]["Period"]
        for k, v in resources(template, "AWS::CloudWatch::Alarm").items()
        if "Quality" in k
    } == {86_400}
