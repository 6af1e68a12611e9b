"""The promotion pipeline (config/examples/pipeline.yaml) synthesizes with its stages, approvals and
steps in order; the default app has no pipeline."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest

from schema.pipeline import load_pipeline
from stacks.cdk_context import cdk_json_context
from stacks.pipeline_stack import PIPELINE_STACK_NAME, PipelineStack, pinned_cli_version
from tests.conftest import EXAMPLE_CONFIG, REPO

EXAMPLE_PIPELINE = REPO / "config" / "examples" / "pipeline.yaml"


@pytest.fixture(scope="module")
def pipeline_template(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("pipeline.out")
    app = cdk.App(outdir=str(outdir), context=cdk_json_context())
    project = load_pipeline("config/examples/pipeline.yaml", EXAMPLE_CONFIG)
    stack = PipelineStack(app, PIPELINE_STACK_NAME, pipeline_project=project, config_dir="config")
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


def test_smoke_step_runs_doctor_and_one_ask_per_tenant_as_the_stage_role(pipeline_template):
    template, _, _ = pipeline_template
    text = _buildspec(template, "akb doctor --env dev")
    assert "akb ask --env dev --config config --tenant acme" in text
    assert "akb ask --env dev --config config --tenant globex" in text
    assert text.index("AWS_PROFILE=smoke") < text.index("akb doctor")
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
