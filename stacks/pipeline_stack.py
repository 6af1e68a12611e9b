"""`akb-pipeline`: the promotion pipeline (CDK Pipelines, CodePipeline V2) in a tooling account.

Built only when a pipeline file exists (config/pipeline.yaml, or `-c pipeline=FILE`): app.py. Source:
a CodeConnections connection; synth: the project's own `make test`, then `cdk synth` with the CLI pinned
in package.json and the Python lock files; then one stage per environment in the file's order, each
behind a manual approval when `approval: true` and a permissions-broadening check, and followed by a
smoke test (`akb doctor`, one `akb ask` per tenant, then `akb verify`: a FAIL stops the promotion) run as
the stage's smoke role, whose permissions policies/verify_role.py builds.
https://docs.aws.amazon.com/cdk/v2/guide/cdk-pipeline.html — docs/pipeline.md
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_codepipeline as codepipeline
from aws_cdk import aws_iam as iam
from aws_cdk import pipelines
from constructs import Construct

from cdk_constructs.nag_checks import enable_nag
from cdk_constructs.pipeline_checks import acknowledge_generated, log_artifact_bucket
from contract.resource_names import PIPELINE_STACK_NAME
from schema.pipeline import PipelineProject, Stage
from stacks.environment_stage import EnvironmentStage

PACKAGE_JSON = Path(__file__).resolve().parent.parent / "package.json"


def pinned_cli_version() -> str:
    """The CDK CLI version package.json pins (what `make synth` runs), so the pipeline runs the same."""
    return str(json.loads(PACKAGE_JSON.read_text())["devDependencies"]["aws-cdk"])


def synth_commands(pipeline_file: str, config_dir: str) -> list[str]:
    """Test first, then synthesize the pipeline app: a red test stops the promotion before anything deploys."""
    return [
        "make test",
        "npx --no-install cdk synth --quiet "
        f"-c pipeline={shlex.quote(pipeline_file)} -c config={shlex.quote(config_dir)}",
    ]


def smoke_commands(env_name: str, tenants: list[str], question: str, config_dir: str) -> list[str]:
    """Assume the stage's smoke role (a profile CodeBuild's container credentials source), check the account
    with `akb doctor`, ask each tenant's deployed endpoint one question, then `akb verify` the environment.
    Each exits non-zero on a FAIL, which fails the step and so stops the promotion to the next stage."""
    config = shlex.quote(config_dir)
    return [
        "mkdir -p ~/.aws",
        'printf "[profile smoke]\\nrole_arn = %s\\ncredential_source = EcsContainer\\n" "$SMOKE_ROLE_ARN" '
        "> ~/.aws/config",
        "export AWS_PROFILE=smoke",
        f".venv/bin/akb doctor --env {env_name} --config {config}",
        *(
            f".venv/bin/akb ask --env {env_name} --config {config} --tenant {tenant} --quiet {shlex.quote(question)}"
            for tenant in tenants
        ),
        f".venv/bin/akb verify --env {env_name} --config {config}",
    ]


def build_pipeline_app(app: cdk.App, pipeline_project: PipelineProject, config_dir: str) -> PipelineStack:
    """The pipeline on `app` (`cdk synth -c pipeline=FILE`), under cdk-nag like the environments' app: one
    plugin on the app walks the whole tree, the pipeline stack and every stage's stacks. The stages'
    own build_app cannot register it: aws-cdk-lib never invokes plugins of a Stage inside a Stack."""
    stack = PipelineStack(app, PIPELINE_STACK_NAME, pipeline_project=pipeline_project, config_dir=config_dir)
    enable_nag(app)
    return stack


class PipelineStack(cdk.Stack):
    def __init__(
        self, scope: Construct, construct_id: str, *, pipeline_project: PipelineProject, config_dir: str, **kwargs: Any
    ):
        settings = pipeline_project.pipeline
        super().__init__(
            scope,
            construct_id,
            env=cdk.Environment(account=settings.account, region=settings.region),
            stack_name=PIPELINE_STACK_NAME,
            description="Agentic retrieval: promotion pipeline ("
            + ", ".join(s.environment for s in settings.stages)
            + ")",
            **kwargs,
        )
        self.source = pipelines.CodePipelineSource.connection(
            settings.repository, settings.branch, connection_arn=settings.connection_arn
        )
        self.pipeline = pipelines.CodePipeline(
            self,
            "Pipeline",
            pipeline_name=PIPELINE_STACK_NAME,
            pipeline_type=codepipeline.PipelineType.V2,
            cross_account_keys=True,  # each environment's account decrypts the artifacts (docs/pipeline.md)
            enable_key_rotation=True,
            cli_version=pinned_cli_version(),
            synth=pipelines.ShellStep(
                "Synth",
                input=self.source,
                install_commands=["make setup"],
                commands=synth_commands(pipeline_project.file.as_posix(), config_dir),
                primary_output_directory="cdk.out",
            ),
        )
        self.stages: dict[str, EnvironmentStage] = {}
        for stage, project in zip(settings.stages, pipeline_project.projects, strict=True):
            self._add_stage(stage, project, settings.smoke_question, config_dir)
        # Built now rather than lazily at synth, so the generated resources exist to be fixed and
        # acknowledged one by one (cdk-nag runs on this stack like on every other: app.py).
        self.pipeline.build_pipeline()
        self.artifact_access_logs = log_artifact_bucket(self.pipeline)
        acknowledge_generated(self.pipeline)

    def _add_stage(self, stage: Stage, project: Any, question: str, config_dir: str) -> None:
        name = stage.environment
        deployed = EnvironmentStage(self, name.capitalize(), project=project)
        broadening = pipelines.ConfirmPermissionsBroadening(f"CheckBroadening-{name}", stage=deployed)
        pre: list[pipelines.Step] = [broadening]
        if stage.approval:
            approval = pipelines.ManualApprovalStep(f"Approve-{name}", comment=f"Promote to {name}?")
            broadening.add_step_dependency(approval)  # a person approves first, then the diff is checked
            pre.insert(0, approval)
        smoke = pipelines.CodeBuildStep(
            f"Smoke-{name}",
            input=self.source,
            install_commands=["make setup"],
            commands=smoke_commands(name, list(project.tenants), question, config_dir),
            env={"SMOKE_ROLE_ARN": stage.smoke_role_arn},
            # The smoke test acts in the environment's account only through its role.
            role_policy_statements=[iam.PolicyStatement(actions=["sts:AssumeRole"], resources=[stage.smoke_role_arn])],
        )
        self.pipeline.add_stage(deployed, pre=pre, post=[smoke])
        self.stages[name] = deployed
