"""The scheduled quality gate of one tenant: an EventBridge rule that starts a CodeBuild project running
`akb eval --gate` against the tenant's deployed endpoint, as the tenant's canary user (docs/evaluation.md).

Why CodeBuild: the gate is `akb eval --gate` itself (the golden set, thresholds, baseline comparison, report and
CloudWatch figures), so the schedule runs the same command as the pipeline, from the same code, with nothing
packaged twice. A Lambda function running the gate in-process would need the client and its dependencies (httpx,
matplotlib, pydantic) bundled a second way and a handler that repeats the command's steps. CodeBuild needs no
Docker at synth: its image is AWS's, pulled when a build starts; the source is a zip of the project's code and
this config (`GateSourceBundling`, local bundling like the endpoint's), built at synth without Docker.

Least privilege: the rule's role may only start this project (aws-cdk-lib's CodeBuildProject target); the
project's role may write its log group, read its source object and assume the gate role — nothing else; the gate
role, assumable only by the project's role under the canary's session name, may ask this tenant's endpoint, read
its URL and its baseline and publish the gate's figures (policies/quality_gate_role.py). The endpoint vouches for
the gate role (features/quality_feature.py): a trusted invoker with user_context trusted, a session-name invoker
with user_context caller. The schedule never promotes a baseline.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import aws_cdk as cdk
import jsii
from aws_cdk import aws_codebuild as codebuild
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from cdk_constructs.log_group import log_group
from cdk_constructs.nag_checks import acknowledge, acknowledge_wildcards, wildcard_findings
from contract.resource_names import quality_gate_project_name, quality_gate_role_name
from policies.document import document
from policies.quality_gate_role import WILDCARD_REASONS, GateScope, gate_statements
from schema import Environment
from schema.quality_pipeline import GatedTenant

REPO_ROOT = Path(__file__).resolve().parent.parent
# What `akb eval --gate` imports (client/, the packages it reads, the runner's routing constant in lambdas/), and
# what installs it (`make .venv/bin/.installed`: the Makefile, pyproject.toml, requirements.lock).
SOURCE_DIRS = ("client", "contract", "schema", "features", "policies", "lambdas", "local")
SOURCE_FILES = ("Makefile", "pyproject.toml", "requirements.lock")
CONFIG_FOLDER = "config"  # where the synthesized config lands in the source
PROFILE = "gate"
BUILD_TIMEOUT = cdk.Duration.minutes(60)
NAG_DOCS = "https://docs.aws.amazon.com/codebuild/latest/userguide/security-iam.html"
# The wildcards aws-cdk-lib writes into the project role's default policy, by the service of their actions.
GENERATED_REASONS = {
    "s3": "aws-cdk-lib's read grant for an S3 source (Source.s3 -> bucket.grantRead): the bootstrap asset bucket "
    "and the one source object of this project",
    "logs": "CodeBuild's own log group /aws/codebuild/<project> (aws-cdk-lib's Project grant): build log streams "
    "are named per build",
    "codebuild": "aws-cdk-lib's Project grants the report groups named after the project (<project>-*); the gate "
    "writes none, CodeBuild creates them on first use",
}


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


@jsii.implements(cdk.ILocalBundling)
class GateSourceBundling:
    """Local bundling of the gate's source: the project's code and the config it was synthesized from."""

    def __init__(self, config_dir: Path, repo_root: Path = REPO_ROOT):
        self.config_dir = Path(config_dir)
        self.repo_root = repo_root

    def sources(self) -> list[tuple[str, Path]]:
        """(path in the bundle, file) for every file the bundle holds."""
        pairs = [(str(f.relative_to(self.repo_root)), f) for d in SOURCE_DIRS for f in _files(self.repo_root / d)]
        pairs += [(name, self.repo_root / name) for name in SOURCE_FILES]
        pairs += [(f"{CONFIG_FOLDER}/{f.relative_to(self.config_dir)}", f) for f in _files(self.config_dir)]
        return pairs

    def asset_hash(self) -> str:
        digest = hashlib.sha256()
        for name, path in self.sources():
            digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()

    def try_bundle(self, output_dir: str, *_options: object, **_keyword_options: object) -> bool:
        for name, path in self.sources():
            destination = Path(output_dir) / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
        return True


def gate_commands(
    env_name: str, tenant: str, session: str, *, config: str = CONFIG_FOLDER, out_dir: str, promote: bool
) -> list[str]:
    """Assume the gate role `$GATE_ROLE_ARN` as `session` (a profile of its own, from CodeBuild's container
    credentials), then run the gate for one tenant. `session` is a shell word: a quoted name or a variable."""
    profile = f"{PROFILE}-{tenant}"
    return [
        "mkdir -p ~/.aws",
        f'printf "[profile {profile}]\\nrole_arn = %s\\nrole_session_name = %s\\ncredential_source = EcsContainer\\n" '
        f'"$GATE_ROLE_ARN" {session} >> ~/.aws/config',
        f"AWS_PROFILE={profile} .venv/bin/akb eval --gate --env {env_name} --tenant {tenant} --config {config} "
        f"--out {out_dir}" + (" --promote-baseline" if promote else ""),
    ]


@dataclass(frozen=True)
class QualityScheduleProps:
    """What the schedule needs. `session_name`: the canary's session name the gate role's trust pins
    (schema/quality_config.gate_identity); `rate`: an EventBridge rate expression; `config_dir`: the config the
    stack is synthesized from (bundled, so the build judges with the thresholds that were deployed)."""

    env_name: str
    tenant_name: str
    environment: Environment
    session_name: str
    rate: str
    config_dir: Path


class QualitySchedule(Construct):
    """Rule `akb-<env>-<tenant>-quality-gate` -> CodeBuild project of that name -> `akb eval --gate`."""

    def __init__(self, scope: Construct, construct_id: str, *, props: QualityScheduleProps):
        super().__init__(scope, construct_id)
        self.props = props
        self.project_role = iam.Role(
            self,
            "ProjectRole",
            assumed_by=iam.ServicePrincipal("codebuild.amazonaws.com"),
            description=f"The scheduled quality gate of {props.tenant_name}: logs, its source, the gate role.",
        )
        self.gate_role = self._build_gate_role()
        self.gate_role.grant_assume_role(self.project_role)
        self.project = self._build_project()
        self.rule = events.Rule(
            self,
            "Schedule",
            rule_name=quality_gate_project_name(props.env_name, props.tenant_name),
            schedule=events.Schedule.expression(props.rate),
            targets=[targets.CodeBuildProject(self.project)],
            description=f"Runs the quality gate of {props.tenant_name} ({props.rate}).",
        )
        self._acknowledge()

    def _build_gate_role(self) -> iam.Role:
        p = self.props
        scope = GateScope(cdk.Aws.PARTITION, cdk.Aws.REGION, cdk.Aws.ACCOUNT_ID, p.env_name)
        self.gate_policy = document(
            gate_statements(scope, [GatedTenant(p.tenant_name, p.session_name, uses_api=False)], promote=False)
        )
        trust = iam.ArnPrincipal(self.project_role.role_arn).with_conditions(
            {"StringEquals": {"sts:RoleSessionName": p.session_name}}  # the canary's session name only
        )
        return iam.Role(
            self,
            "GateRole",
            role_name=quality_gate_role_name(p.env_name, p.tenant_name),  # literal: the endpoint names it
            assumed_by=trust,
            description=f"The scheduled quality gate of {p.tenant_name} as its canary user.",
            inline_policies={"QualityGate": iam.PolicyDocument.from_json(self.gate_policy)},
        )

    def _build_project(self) -> codebuild.Project:
        p = self.props
        bundler = GateSourceBundling(p.config_dir)
        source = s3_assets.Asset(
            self,
            "Source",
            path=str(REPO_ROOT / "client"),  # a mount point CDK requires; the bundle is built by GateSourceBundling
            asset_hash_type=cdk.AssetHashType.CUSTOM,
            asset_hash=bundler.asset_hash(),
            bundling=cdk.BundlingOptions(image=lambda_.Runtime.PYTHON_3_11.bundling_image, local=bundler),
        )
        name = quality_gate_project_name(p.env_name, p.tenant_name)
        logs = log_group(self, "Logs", environment=p.environment, name=f"/aws/codebuild/{name}")
        spec = {
            "version": "0.2",
            "phases": {
                "install": {"commands": ["make .venv/bin/.installed"]},
                "build": {
                    "commands": gate_commands(
                        p.env_name, p.tenant_name, '"$GATE_SESSION_NAME"', out_dir="gate-out", promote=False
                    )
                },
            },
        }
        return codebuild.Project(
            self,
            "Project",
            project_name=name,
            role=self.project_role,
            source=codebuild.Source.s3(bucket=source.bucket, path=source.s3_object_key),
            environment=codebuild.BuildEnvironment(
                build_image=codebuild.LinuxBuildImage.STANDARD_7_0, compute_type=codebuild.ComputeType.SMALL
            ),
            environment_variables={
                "GATE_ROLE_ARN": codebuild.BuildEnvironmentVariable(value=self.gate_role.role_arn),
                "GATE_SESSION_NAME": codebuild.BuildEnvironmentVariable(value=p.session_name),
            },
            build_spec=codebuild.BuildSpec.from_object(spec),
            logging=codebuild.LoggingOptions(cloud_watch=codebuild.CloudWatchLoggingOptions(log_group=logs)),
            timeout=BUILD_TIMEOUT,
            description=f"akb eval --gate for {p.tenant_name} in {p.env_name} (docs/evaluation.md)",
        )

    def _acknowledge(self) -> None:
        acknowledge_wildcards(self.gate_role, self.gate_policy, WILDCARD_REASONS)
        generated = self.project_role.node.find_child("DefaultPolicy")
        resolved = cdk.Stack.of(self).resolve(generated.document)  # type: ignore[attr-defined]
        for statement, finding in wildcard_findings(generated, resolved):
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            reason = GENERATED_REASONS[actions[0].split(":", 1)[0]]
            acknowledge(generated, "IAM5", f"{reason} ({NAG_DOCS})", finding=finding)
        acknowledge(
            self.project,
            "CB4",
            "The project has no artifacts and no cache: the report stays in the build (its log group), so there is "
            f"nothing for a customer managed key to encrypt beyond what CodeBuild encrypts itself ({NAG_DOCS})",
        )
