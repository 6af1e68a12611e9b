"""`akb-pipeline`: the promotion pipeline (CDK Pipelines, CodePipeline V2) in a tooling account.

Built only when a pipeline file exists (config/pipeline.yaml, or `-c pipeline=FILE`): app.py. Source:
a CodeConnections connection; synth: the project's own `make test`, then `cdk synth` with the CLI pinned
in package.json and the Python lock files; then one stage per environment in the file's order, each
behind a manual approval when `approval: true` and a permissions-broadening check, and followed by a
smoke test (`akb doctor`, one `akb ask` per tenant, then `akb verify`: a FAIL stops the promotion) run as
the stage's smoke role, whose permissions policies/verify_role.py builds; then, for the tenants with `quality:`,
the quality gate (`akb eval --gate --promote-baseline`) as the environment's gate role (policies/quality_gate_role.py):
a regression stops the promotion, the reports are the step's artifact.
https://docs.aws.amazon.com/cdk/v2/guide/cdk-pipeline.html — docs/pipeline.md
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_codebuild as codebuild
from aws_cdk import aws_codepipeline as codepipeline
from aws_cdk import aws_iam as iam
from aws_cdk import pipelines
from constructs import Construct

from cdk_constructs.nag_checks import enable_nag
from cdk_constructs.pipeline_checks import acknowledge_generated, log_artifact_bucket
from cdk_constructs.quality_schedule import gate_commands
from contract.resource_names import PIPELINE_STACK_NAME
from schema.pipeline import PipelineProject, Stage
from schema.quality_pipeline import GatedTenant, gated_tenants
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


def gate_pipeline_commands(env_name: str, tenants: list[GatedTenant], config_dir: str) -> list[str]:
    """The quality gate of every gated tenant, as the environment's gate role under each tenant's canary session:
    each run writes its report under gate-reports/<tenant>/ and promotes its baseline when it passes; a failing
    tenant does not stop the others (every report is kept), and the step fails at the end if any failed."""
    commands = ["mkdir -p gate-reports", ": > gate-reports/failed"]
    for tenant in tenants:
        *profile, run = gate_commands(
            env_name,
            tenant.name,
            shlex.quote(tenant.session_name),
            config=shlex.quote(config_dir),
            out_dir=f"gate-reports/{tenant.name}",
            promote=True,
        )
        commands += [*profile, f"{run} || echo {tenant.name} >> gate-reports/failed"]
    return [
        *commands,
        'if [ -s gate-reports/failed ]; then echo "quality gate failed:" $(cat gate-reports/failed); exit 1; fi',
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
        post: list[pipelines.Step] = [smoke]
        gate = self._gate_step(name, project, config_dir)
        if gate is not None:
            gate.add_step_dependency(smoke)  # after akb verify: a broken deploy fails there first
            post.append(gate)
        self.pipeline.add_stage(deployed, pre=pre, post=post)
        self.stages[name] = deployed

    def _gate_step(self, name: str, project: Any, config_dir: str) -> pipelines.CodeBuildStep | None:
        """The quality gate of the stage's gated tenants, as the environment's gate role (its reports kept: the step's
        output artifact and, even when it fails, a CodeBuild JUnit report group)."""
        tenants = gated_tenants(project)
        role = project.environment.quality_gate_role_arn
        if not tenants or role is None:  # the pipeline file's validation refuses gated tenants without a role
            return None
        return pipelines.CodeBuildStep(
            f"Gate-{name}",
            input=self.source,
            install_commands=["make .venv/bin/.installed"],  # Python only: the gate needs no CDK CLI
            commands=gate_pipeline_commands(name, tenants, config_dir),
            env={"GATE_ROLE_ARN": role},
            # The gate acts in the environment's account only through its role.
            role_policy_statements=[iam.PolicyStatement(actions=["sts:AssumeRole"], resources=[role])],
            primary_output_directory="gate-reports",
            partial_build_spec=codebuild.BuildSpec.from_object(
                {
                    "reports": {
                        "quality-gate": {
                            "files": ["*/gate-junit.xml"],
                            "base-directory": "gate-reports",
                            "file-format": "JUNITXML",
                        }
                    }
                }
            ),
        )
