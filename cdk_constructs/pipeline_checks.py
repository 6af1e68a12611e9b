"""cdk-nag on the promotion pipeline: what is fixed, and why each remaining finding is acknowledged.

CDK Pipelines (aws_cdk.pipelines) generates the pipeline's roles, CodeBuild projects, artifact bucket
and cross-region support stack; their policies are aws-cdk-lib's grants, not ours. So:

- fixed: the artifact bucket writes server access logs (AwsSolutions-S1) to a hardened log bucket;
- acknowledged: every other finding, one rule on one construct with one finding each, with the reason
  of its kind below. A wildcard this module has no reason for is a synth error (a newer aws-cdk-lib
  that adds one must be reviewed here), never a silent pass.

docs/pipeline.md ("What is checked") lists the same reasons.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator
from typing import cast

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk import pipelines

from cdk_constructs.document_bucket import access_log_bucket
from cdk_constructs.nag_checks import acknowledge, finding_text, wildcard_findings

ARTIFACT_LOG_PREFIX = "artifacts/"
# Cited by every IAM acknowledgement below, as every IAM acknowledgement of the environments cites its page.
CDK_PIPELINES_DOCS = "https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.pipelines-readme.html"

_BUCKET_GRANT = (
    "aws-cdk-lib's Bucket.grantRead/grantReadWrite action groups, written by CDK Pipelines for the "
    "pipeline's own artifact (or cross-region replication) bucket and its objects only: each action "
    "reads or writes pipeline artifacts, and the grant is not configurable"
)
_KEY_GRANT = (
    "aws-cdk-lib's Key.grantDecrypt/grantEncryptDecrypt action groups, written by CDK Pipelines for the "
    "artifact bucket's KMS key: ReEncrypt*/GenerateDataKey* are the data-key operations S3 SSE-KMS needs"
)
_ARTIFACT_OBJECTS = (
    "objects of the pipeline's own artifact bucket: CodePipeline writes one object per artifact and "
    "execution under generated keys, so no narrower key pattern exists"
)
_REPLICA_OBJECTS = (
    "objects of the cross-region replication bucket aws-cdk-lib creates for stages in another region "
    "(copies of the artifacts); object keys are generated per execution"
)
_CODEBUILD_LOGS = (
    "CodeBuild's default log group /aws/codebuild/<project> and its streams (:*), created per build; "
    "aws-cdk-lib's Project grants it to the project's own role"
)
_CODEBUILD_REPORTS = (
    "CodeBuild report groups named <project>-<report>, which aws-cdk-lib's Project grants its role for "
    "test reports; the name suffix is chosen by the buildspec"
)

LAMBDA_BASIC_EXECUTION = iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AWSLambdaBasicExecutionRole")

# fnmatch patterns over cdk-nag's finding text; `[*]` is a literal `*` (the wildcard being acknowledged),
# a bare `*` stands for a generated name, a partition, account or region.
# (finding pattern, reason): findings the same on every generated policy that holds them.
_BY_FINDING: tuple[tuple[str, str], ...] = (
    *((f"Action::{action}[*]", _BUCKET_GRANT) for action in ("s3:GetObject", "s3:GetBucket", "s3:List")),
    *((f"Action::{action}[*]", _BUCKET_GRANT) for action in ("s3:DeleteObject", "s3:Abort")),
    ("Action::kms:ReEncrypt[*]", _KEY_GRANT),
    ("Action::kms:GenerateDataKey[*]", _KEY_GRANT),
    ("Resource::arn:*:logs:*:log-group:/aws/codebuild/<*>:[*]", _CODEBUILD_LOGS),
    ("Resource::arn:*:codebuild:*:report-group/<*>-[*]", _CODEBUILD_REPORTS),
)

# (policy path below the CodePipeline construct, finding pattern, reason): findings only one policy has.
_BY_POLICY: tuple[tuple[str, str, str], ...] = (
    (
        "Pipeline/Role/DefaultPolicy",
        "Resource::[*]",
        "kms actions for the cross-region replication bucket's key, which aws-cdk-lib references by "
        "alias from the support stack in the other region; IAM cannot scope a statement to a key alias",
    ),
    (
        "UpdatePipeline/SelfMutation/Role/DefaultPolicy",
        "Resource::[*]",
        "self-mutation runs `cdk deploy` of this stack: cloudformation:DescribeStacks and s3:ListBucket on "
        "* are the CLI's lookups of the stack and the bootstrap bucket (aws-cdk-lib pipelines)",
    ),
    (
        "UpdatePipeline/SelfMutation/Role/DefaultPolicy",
        "Resource::arn:[*]:iam::*:role/[*]",
        "self-mutation assumes the CDK bootstrap roles; the statement is held by the condition "
        "iam:ResourceTag/aws-cdk:bootstrap-role in (image-publishing, file-publishing, deploy)",
    ),
    (
        "Assets/FileRole/DefaultPolicy",
        "Resource::[*]",
        "one role for every asset-publishing CodeBuild project CDK Pipelines adds (their names are "
        "generated after the role): codebuild Start/Stop/BatchGetBuilds on them",
    ),
    (
        "Assets/FileRole/DefaultPolicy",
        "Resource::arn:*:logs:*:log-group:/aws/codebuild/[*]",
        _CODEBUILD_LOGS,
    ),
    (
        "Assets/FileRole/DefaultPolicy",
        "Resource::arn:*:codebuild:*:report-group/[*]",
        _CODEBUILD_REPORTS,
    ),
    (
        "PipelinesSecurityCheck/CDKPipelinesAutoApprove/ServiceRole/DefaultPolicy",
        "Resource::[*]",
        "the broadening check's approver may GetPipelineState/PutApprovalResult only on pipelines tagged "
        "SECURITY_CHECK=ALLOW_APPROVE (condition aws:ResourceTag), as aws-cdk-lib writes it",
    ),
    (
        "PipelinesSecurityCheck/CDKSecurityCheck/Role/DefaultPolicy",
        "Resource::[*]",
        "the broadening check runs `cdk diff` as each target account's deploy role: sts:AssumeRole is held "
        "by the condition iam:ResourceTag/aws-cdk:bootstrap-role = deploy",
    ),
    (
        "PipelinesSecurityCheck/CDKSecurityCheck/Role/DefaultPolicy",
        "Resource::<*AutoApprove*.Arn>:[*]",
        "lambda:InvokeFunction on the approver function's own versions and aliases (<arn>:*)",
    ),
)


def log_artifact_bucket(pipeline: pipelines.CodePipeline) -> s3.Bucket:
    """AwsSolutions-S1 and checkov CKV_AWS_18, fixed: the generated artifact bucket writes server access
    logs to a log bucket beside it. CDK Pipelines has no logging option, so the CfnBucket is completed."""
    stack = cdk.Stack.of(pipeline)
    artifacts = pipeline.pipeline.artifact_bucket
    logs = access_log_bucket(stack, "ArtifactAccessLogs", removal_policy=cdk.RemovalPolicy.RETAIN)
    # The statement aws-cdk-lib writes for server_access_logs_bucket (Bucket.allowLogDelivery).
    logs.add_to_resource_policy(
        iam.PolicyStatement(
            principals=[iam.ServicePrincipal("logging.s3.amazonaws.com")],
            actions=["s3:PutObject"],
            resources=[logs.arn_for_objects(f"{ARTIFACT_LOG_PREFIX}*")],
            conditions={
                "ArnLike": {"aws:SourceArn": artifacts.bucket_arn},
                "StringEquals": {"aws:SourceAccount": stack.account},
            },
        )
    )
    cfn = cast(s3.CfnBucket, artifacts.node.default_child)
    cfn.logging_configuration = s3.CfnBucket.LoggingConfigurationProperty(
        destination_bucket_name=logs.bucket_name, log_file_prefix=ARTIFACT_LOG_PREFIX
    )
    return logs


def acknowledge_generated(pipeline: pipelines.CodePipeline) -> None:
    """Every finding on CDK Pipelines' generated resources, each with its reason (see the module)."""
    root = pipeline.node.path + "/"
    objects = _artifact_object_findings(pipeline)
    for policy in _generated_policies(pipeline):
        path = policy.node.path.removeprefix(root)
        for finding in _wildcard_findings(policy):
            reason = objects.get(finding) or _reason(path, finding)
            acknowledge(policy, "IAM5", f"{reason} ({CDK_PIPELINES_DOCS})", finding=finding)
    approver = pipeline.node.find_child("PipelinesSecurityCheck").node.find_child("CDKPipelinesAutoApprove")
    acknowledge(
        approver.node.find_child("ServiceRole"),
        "IAM4",
        "CDK Pipelines' broadening-check approver function gets AWSLambdaBasicExecutionRole from aws-cdk-lib "
        "(logs:CreateLogGroup/CreateLogStream/PutLogEvents for its own logs); the role is not configurable "
        f"({CDK_PIPELINES_DOCS})",
        finding="Policy::" + finding_text(approver, LAMBDA_BASIC_EXECUTION.managed_policy_arn),
    )
    for support in pipeline.pipeline.cross_region_support.values():
        acknowledge(
            support.replication_bucket,
            "S1",
            "aws-cdk-lib's cross-region support stack creates this replication bucket with fixed props (no "
            "logging option); it holds copies of artifacts whose source, the artifact bucket, is access-logged",
        )


def _artifact_object_findings(pipeline: pipelines.CodePipeline) -> dict[str, str]:
    """`Resource::<bucket>/*` of the artifact bucket and of each replication bucket, exactly as cdk-nag
    prints them (the replication buckets' names are generated, so no pattern is written for them)."""
    buckets = {pipeline.pipeline.artifact_bucket: _ARTIFACT_OBJECTS}
    buckets.update(
        {support.replication_bucket: _REPLICA_OBJECTS for support in pipeline.pipeline.cross_region_support.values()}
    )
    return {"Resource::" + finding_text(pipeline, bucket.arn_for_objects("*")): why for bucket, why in buckets.items()}


def _generated_policies(pipeline: pipelines.CodePipeline) -> Iterator[iam.Policy]:
    for construct in pipeline.node.find_all():
        if isinstance(construct, iam.Policy):
            yield construct


def _wildcard_findings(policy: iam.Policy) -> list[str]:
    """The IAM5 findings cdk-nag reports for `policy` (its IAMNoWildcardPermissions rule: Allow only)."""
    document = cdk.Stack.of(policy).resolve(policy.document)
    allowed = (
        finding for statement, finding in wildcard_findings(policy, document) if statement.get("Effect") == "Allow"
    )
    return list(dict.fromkeys(allowed))


def _reason(path: str, finding: str) -> str:
    for pattern, reason in _BY_FINDING:
        if fnmatch.fnmatchcase(finding, pattern):
            return reason
    for policy_path, pattern, reason in _BY_POLICY:
        if path == policy_path and fnmatch.fnmatchcase(finding, pattern):
            return reason
    raise ValueError(f"{path}: no reviewed reason for AwsSolutions-IAM5[{finding}] (cdk_constructs/pipeline_checks.py)")
