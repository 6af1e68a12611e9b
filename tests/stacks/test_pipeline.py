"""The promotion pipeline (config/examples/pipeline.yaml) synthesizes with its stages, approvals and
steps in order, clean under cdk-nag (the pipeline stack and its stages' stacks); the default app has no
pipeline."""

from __future__ import annotations

import json
from pathlib import Path

import aws_cdk as cdk
import pytest

from cdk_constructs.pipeline_checks import CDK_PIPELINES_DOCS
from schema.pipeline import load_pipeline
from stacks.cdk_context import cdk_json_context
from stacks.pipeline_stack import build_pipeline_app, pinned_cli_version
from tests.conftest import EXAMPLE_CONFIG, REPO

EXAMPLE_PIPELINE = REPO / "config" / "examples" / "pipeline.yaml"


@pytest.fixture(scope="module")
def pipeline_template(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("pipeline.out")
    app = cdk.App(outdir=str(outdir), context=cdk_json_context())
    project = load_pipeline("config/examples/pipeline.yaml", EXAMPLE_CONFIG)
    stack = build_pipeline_app(app, project, "config")  # as app.py builds it: cdk-nag on, or synth fails
    assembly = app.synth()
    template = json.loads((outdir / f"{stack.artifact_id}.template.json").read_text())
    return template, assembly, stack


def _resources(template: dict, kind: str) -> list[dict]:
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_pipeline_is_v2_with_cross_account_keys_and_stages_in_file_order(pipeline_template):
    template, _, _ = pipeline_template
    [pipeline] = _resources(template, "AWS::CodePipeline::Pipeline")
    assert pipeline["Properties"]["PipelineType"] == "V2"
    names = [stage["Name"] for stage in pipeline["Properties"]["Stages"]]
    assert names[:3] == ["Source", "Build", "UpdatePipeline"]
    assert names.index("Dev") < names.index("Prod")
    key = _resources(template, "AWS::KMS::Key")
    assert key and key[0]["Properties"]["EnableKeyRotation"] is True  # cross-account artifact key


def _actions(template: dict, stage_name: str) -> list[tuple[int, str]]:
    [pipeline] = _resources(template, "AWS::CodePipeline::Pipeline")
    [stage] = [s for s in pipeline["Properties"]["Stages"] if s["Name"] == stage_name]
    return sorted((action["RunOrder"], action["Name"]) for action in stage["Actions"])


def test_prod_waits_for_approval_then_broadening_check_then_deploys_then_smoke_tests(pipeline_template):
    template, _, _ = pipeline_template
    actions = _actions(template, "Prod")
    order = {name: run_order for run_order, name in actions}
    assert order["Approve-prod"] < order["CheckBroadening-prod.Check"] < order["CheckBroadening-prod.Confirm"]
    deploys = [run_order for run_order, name in actions if name.endswith(".Deploy")]
    assert deploys and order["CheckBroadening-prod.Confirm"] < min(deploys)
    assert max(deploys) < order["Smoke-prod"]
    names = {name for _, name in actions}
    assert {"prod-platform.Deploy", "prod-acme.Deploy"} <= names


def test_dev_has_no_approval_but_still_checks_broadening(pipeline_template):
    template, _, _ = pipeline_template
    names = [name for _, name in _actions(template, "Dev")]
    assert not any(name.startswith("Approve") for name in names)
    assert "CheckBroadening-dev.Check" in names and "Smoke-dev" in names
    assert {"dev-platform.Deploy", "dev-acme.Deploy", "dev-globex.Deploy"} <= set(names)


def _buildspec(template: dict, needle: str) -> str:
    specs = [p["Properties"]["Source"]["BuildSpec"] for p in _resources(template, "AWS::CodeBuild::Project")]
    texts = [spec if isinstance(spec, str) else json.dumps(spec) for spec in specs]
    [text] = [t for t in texts if needle in t]
    return text


def test_synth_runs_the_tests_before_synthesizing_with_the_pinned_cli(pipeline_template):
    template, _, _ = pipeline_template
    text = _buildspec(template, "make test")
    assert text.index("make setup") < text.index("make test") < text.index("npx --no-install cdk synth")
    assert "-c pipeline=config/examples/pipeline.yaml" in text
    assert pinned_cli_version() in json.dumps(template)  # self-mutation and assets use the same CLI


def test_smoke_step_runs_doctor_one_ask_per_tenant_then_verify_as_the_stage_role(pipeline_template):
    template, _, _ = pipeline_template
    text = _buildspec(template, "akb doctor --env dev")
    assert "akb ask --env dev --config config --tenant acme" in text
    assert "akb ask --env dev --config config --tenant globex" in text
    assert text.index("AWS_PROFILE=smoke") < text.index("akb doctor")
    # akb verify runs last; its exit status 1 on a FAIL fails the step, which stops the promotion.
    assert text.index("akb ask --env dev --config config --tenant globex") < text.index(
        "akb verify --env dev --config config"
    )
    assumes = [
        statement
        for policy in _resources(template, "AWS::IAM::Policy")
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement.get("Action") == "sts:AssumeRole"
        and statement.get("Resource") == "arn:aws:iam::123456789012:role/akb-smoke"
    ]
    assert assumes


def test_stage_stacks_keep_their_environment_names_and_accounts(pipeline_template):
    _, _, stack = pipeline_template
    prod = stack.stages["prod"]
    assert sorted(s.stack_name for s in prod.stacks.values()) == ["prod-acme", "prod-platform"]
    assert {s.account for s in prod.stacks.values()} == {"210987654321"}


def test_cdk_nag_checked_the_pipeline_stack_and_each_stages_stacks(pipeline_template):
    _, assembly, _ = pipeline_template
    report = json.loads((Path(assembly.directory) / "validation-report.json").read_text())
    [nag] = [plugin for plugin in report["pluginReports"] if plugin["pluginName"] == "AwsSolutions"]
    assert nag["conclusion"] == "success"
    checked = {
        "/".join(construct["constructPath"].split("/")[:2])
        for violation in nag["suppressedViolations"]
        for construct in violation["violatingConstructs"]
    }
    # Acknowledged findings seen in the pipeline's own resources and inside both stages: nag walked them all.
    assert {"akb-pipeline/Pipeline", "akb-pipeline/Dev", "akb-pipeline/Prod"} <= checked


def _acknowledgements(scope) -> dict[tuple[str, str], str]:
    return {
        (construct.node.path, rule): reason
        for construct in scope.node.find_all()
        for entry in construct.node.metadata
        if entry.type == cdk.Validations.ACKNOWLEDGED_RULES_METADATA_KEY
        for rule, reason in entry.data.items()
    }


def test_every_acknowledgement_on_the_pipeline_names_one_finding_and_carries_a_reason(pipeline_template):
    _, _, stack = pipeline_template
    support = [child for child in stack.node.root.node.children if child.node.id.startswith("cross-region-stack")]
    acknowledged = {
        key: reason
        for scope in (stack.pipeline, stack.artifact_access_logs, *support)
        for key, reason in _acknowledgements(scope).items()
    }
    assert len(acknowledged) > 50  # one per (policy, wildcard): dozens, never one blanket entry
    for (path, rule), reason in acknowledged.items():
        assert rule.startswith("AwsSolutions::AwsSolutions-"), (path, rule)
        assert len(reason) > 60, (path, rule, reason)
        if "-IAM" in rule:
            assert rule.endswith("]"), f"{path}: {rule} acknowledges the whole rule, not one finding"
            assert CDK_PIPELINES_DOCS in reason, (path, rule)
    assert any(path.startswith("cross-region-stack") for path, _ in acknowledged)


def test_the_artifact_bucket_writes_access_logs_to_a_hardened_log_bucket(pipeline_template):
    template, _, _ = pipeline_template
    buckets = {key: r for key, r in template["Resources"].items() if r["Type"] == "AWS::S3::Bucket"}
    [artifacts] = [r for key, r in buckets.items() if key.startswith("PipelineArtifactsBucket")]
    [logs_id] = [key for key in buckets if key.startswith("ArtifactAccessLogs")]
    logging = artifacts["Properties"]["LoggingConfiguration"]
    assert logging == {"DestinationBucketName": {"Ref": logs_id}, "LogFilePrefix": "artifacts/"}
    assert buckets[logs_id]["Properties"]["VersioningConfiguration"] == {"Status": "Enabled"}
    [policy] = [
        r for r in _resources(template, "AWS::S3::BucketPolicy") if r["Properties"]["Bucket"] == {"Ref": logs_id}
    ]
    [delivery] = [
        s
        for s in policy["Properties"]["PolicyDocument"]["Statement"]
        if s.get("Principal") == {"Service": "logging.s3.amazonaws.com"}
    ]
    assert delivery["Action"] == "s3:PutObject"
    assert delivery["Condition"]["StringEquals"] == {"aws:SourceAccount": "111111111111"}


# --- The quality gate stage (issue 30) ------------------------------------------------------------------


def test_the_gate_runs_after_akb_verify_in_each_stage_with_gated_tenants(pipeline_template):
    template, _, _ = pipeline_template
    for stage, env in (("Dev", "dev"), ("Prod", "prod")):
        order = {name: run_order for run_order, name in _actions(template, stage)}
        assert order[f"Smoke-{env}"] < order[f"Gate-{env}"], stage


def test_the_gate_step_promotes_each_gated_tenant_as_the_environments_gate_role_and_keeps_its_reports(
    pipeline_template,
):
    template, _, _ = pipeline_template
    text = _buildspec(template, "akb eval --gate --env dev")
    spec = json.loads(text)
    commands = spec["phases"]["build"]["commands"]
    for tenant in ("acme", "globex"):
        run = f"AWS_PROFILE=gate-{tenant} .venv/bin/akb eval --gate --env dev --tenant {tenant} --config config"
        assert any(c.startswith(run) and "--promote-baseline" in c and f"gate-reports/{tenant}" in c for c in commands)
    assert commands[-1].startswith("if [ -s gate-reports/failed ]") and "exit 1" in commands[-1]
    assert spec["artifacts"]["base-directory"] == "gate-reports"
    assert spec["reports"]["quality-gate"]["file-format"] == "JUNITXML"
    gate_role = "arn:aws:iam::123456789012:role/akb-quality-gate"
    assumed = {
        statement["Resource"]
        for policy in _resources(template, "AWS::IAM::Policy")
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement.get("Action") == "sts:AssumeRole" and "akb-quality-gate" in json.dumps(statement["Resource"])
    }
    assert assumed == {gate_role, "arn:aws:iam::210987654321:role/akb-quality-gate"}
    [pipeline] = _resources(template, "AWS::CodePipeline::Pipeline")
    [dev] = [s for s in pipeline["Properties"]["Stages"] if s["Name"] == "Dev"]
    [gate] = [a for a in dev["Actions"] if a["Name"] == "Gate-dev"]
    assert gate["OutputArtifacts"]  # the reports, kept by CodePipeline
