"""A tenant's document bucket: where `s3` data sources read, one key prefix per source.

Hardening (each line says why): S3-managed encryption, TLS only, versioned, public access blocked,
server access logs to a separate (also versioned) log bucket. https://docs.aws.amazon.com/AmazonS3/latest/userguide/security-best-practices.html
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_s3 as s3
from constructs import Construct

from cdk_constructs.nag_checks import acknowledge

SERVER_ACCESS_LOGS_USE_BUCKET_POLICY = "@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy"


def access_log_bucket(
    scope: Construct, construct_id: str, *, removal_policy: RemovalPolicy, log_retention: Duration | None = None
) -> s3.Bucket:
    """A server-access-log destination: the document bucket's, and the pipeline's artifact bucket's
    (cdk_constructs/pipeline_checks.py), hardened the same way so neither scanner flags it.

    :param log_retention: how long access logs are kept. Default: 365 days.
    """
    bucket = s3.Bucket(
        scope,
        construct_id,
        encryption=s3.BucketEncryption.S3_MANAGED,  # S3 log delivery cannot write to SSE-KMS buckets
        enforce_ssl=True,
        block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
        object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
        # Versioned so a deleted or overwritten log object stays recoverable until it expires
        # (checkov CKV_AWS_21); old versions expire with the logs.
        versioned=True,
        lifecycle_rules=[
            s3.LifecycleRule(
                expiration=log_retention or Duration.days(365),
                noncurrent_version_expiration=log_retention or Duration.days(365),
            )
        ],
        removal_policy=removal_policy,
        auto_delete_objects=removal_policy == RemovalPolicy.DESTROY,
    )
    acknowledge(
        bucket,
        "S1",
        "this is the access-log destination; logging it to itself would loop and another log "
        "bucket would only move the finding",
    )
    return bucket


class DocumentBucket(Construct):
    """The bucket plus its access-log bucket.

    :param removal_policy: the environment's (`retain` keeps documents after `cdk destroy`;
        `destroy` also empties the buckets first, so a dev stack can be torn down).
    :param log_retention: how long access logs are kept. Default: 365 days.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        removal_policy: RemovalPolicy,
        log_retention: Duration | None = None,
    ):
        super().__init__(scope, construct_id)
        # Log delivery through a bucket policy, never the LogDeliveryWrite ACL (ACLs are disabled
        # by BUCKET_OWNER_ENFORCED), whatever the app's feature flags say.
        self.node.set_context(SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, True)
        destroy = removal_policy == RemovalPolicy.DESTROY
        self.access_logs = access_log_bucket(
            self, "AccessLogs", removal_policy=removal_policy, log_retention=log_retention
        )
        self.bucket = s3.Bucket(
            self,
            "Bucket",
            # SSE-S3: the knowledge base role reads objects without a KMS grant to manage.
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,  # deny any request not over TLS
            versioned=True,  # an overwritten or deleted document can be recovered
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            server_access_logs_bucket=self.access_logs,
            server_access_logs_prefix="documents/",
            removal_policy=removal_policy,
            auto_delete_objects=destroy,
        )

    @property
    def bucket_name(self) -> str:
        return self.bucket.bucket_name

    @property
    def bucket_arn(self) -> str:
        return self.bucket.bucket_arn
