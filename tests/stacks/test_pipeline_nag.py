"""The pipeline app runs cdk-nag over the pipeline stack and every stage's stacks: an unacknowledged
finding in either fails synth naming the rule."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_s3 as s3

from schema.pipeline import load_pipeline
from stacks import pipeline_stack
from stacks.cdk_context import cdk_json_context
from stacks.environment_stage import EnvironmentStage
from tests.conftest import EXAMPLE_CONFIG


class _StageWithUnloggedBucket(EnvironmentStage):
    """An environment stage whose platform stack gets a bucket without access logs (AwsSolutions-S1).
    It must be added in the constructor: CDK Pipelines synthesizes a stage as soon as it is added."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        platform = next(stack for name, stack in self.stacks.items() if name.endswith("-platform"))
        s3.Bucket(platform, "UnloggedProbe", enforce_ssl=True)


def test_an_unacknowledged_finding_in_the_pipeline_or_a_stage_fails_the_pipeline_synth(tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline_stack, "EnvironmentStage", _StageWithUnloggedBucket)
    app = cdk.App(outdir=str(tmp_path), context=cdk_json_context())
    project = load_pipeline("config/examples/pipeline.yaml", EXAMPLE_CONFIG)
    stack = pipeline_stack.build_pipeline_app(app, project, "config")
    s3.Bucket(stack, "UnloggedProbe", enforce_ssl=True)
    with pytest.raises(RuntimeError, match=r"Validation ?[Ff]ailed") as failure:
        app.synth()
    message = str(failure.value)
    assert "AwsSolutions-S1" in message
    assert "akb-pipeline/UnloggedProbe/Resource" in message
    assert "akb-pipeline/Dev/dev-platform/UnloggedProbe/Resource" in message
    assert "akb-pipeline/Prod/prod-platform/UnloggedProbe/Resource" in message
