"""The service role a MANAGED knowledge base assumes to read its sources and publish its metrics.

Pure: inputs are strings (CDK tokens are strings too), output is an IAM policy document as a dict.
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-permissions.html
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from contract import metric_names
from policies.document import PolicyDocument, Statement, allow, document

if TYPE_CHECKING:
    from schema.knowledge import KnowledgeBase

BEDROCK_SERVICE = "bedrock.amazonaws.com"


@dataclass(frozen=True)
class KnowledgeBaseRoleInputs:
    """What one knowledge base's role may reach.

    :param bucket_arns: buckets its `s3` sources read. Each belongs to one tenant, so the role may
        list it and read every object in it (see `knowledge_base_role_policy`).
    :param certificate_bucket_arns: buckets of SharePoint/OneDrive sign-in certificates; like a
        document bucket, each belongs to one tenant (the loader refuses a shared one).
    """

    partition: str
    region: str
    account: str
    bucket_arns: Sequence[str] = field(default_factory=tuple)
    certificate_bucket_arns: Sequence[str] = field(default_factory=tuple)
    secret_arns: Sequence[str] = field(default_factory=tuple)
    kms_key_arns: Sequence[str] = field(default_factory=tuple)
    embedding_model_arn: str | None = None


def inputs_for(
    config: KnowledgeBase, *, partition: str, region: str, account: str, documents_bucket_arn: str
) -> KnowledgeBaseRoleInputs:
    """The inputs from one `knowledge_bases[]` entry, for the construct and `akb policy` alike;
    `documents_bucket_arn` is the tenant's document bucket (read by `s3` sources without `bucket_arn`)."""
    return KnowledgeBaseRoleInputs(
        partition=partition,
        region=region,
        account=account,
        bucket_arns=tuple(config.bucket_arns(documents_bucket_arn)),
        certificate_bucket_arns=tuple(config.certificate_bucket_arns(partition)),
        secret_arns=tuple(config.secret_arns()),
        kms_key_arns=(config.kms_key_arn,) if config.kms_key_arn else (),
        embedding_model_arn=config.embedding.model_arn,
    )


def knowledge_base_source_arn(partition: str, region: str, account: str) -> str:
    """Every knowledge base of this account and region: the trust policy's `aws:SourceArn`."""
    return f"arn:{partition}:bedrock:{region}:{account}:knowledge-base/*"


def trust_conditions(partition: str, region: str, account: str) -> dict[str, Any]:
    """Confused-deputy guard: Bedrock may assume the role only on behalf of this account's KBs."""
    return {
        "StringEquals": {"aws:SourceAccount": account},
        "ArnLike": {"aws:SourceArn": knowledge_base_source_arn(partition, region, account)},
    }


def knowledge_base_trust_policy(partition: str, region: str, account: str) -> PolicyDocument:
    return document(
        [
            {
                "Sid": "BedrockAssumesRoleForThisAccountsKnowledgeBases",
                "Effect": "Allow",
                "Principal": {"Service": BEDROCK_SERVICE},
                "Action": "sts:AssumeRole",
                "Condition": trust_conditions(partition, region, account),
            }
        ]
    )


def _same_account(account: str) -> dict[str, Any]:
    return {"StringEquals": {"aws:ResourceAccount": account}}


def _s3_statements(inputs: KnowledgeBaseRoleInputs) -> list[Statement]:
    statements: list[Statement] = []
    if inputs.bucket_arns:
        # bucket and bucket/*, as AWS's CloudFormation sample grants (managed-kb-s3-cfn.yaml), not the
        # source's prefix; the sample's security notebooks even report scoped ARNs refused for the
        # connector's role session and use `*` (ledger: CONFLICTING). Each bucket belongs to one
        # tenant (the loader rejects a shared bucket_arn), so bucket/* reads only that tenant's data.
        same_account = _same_account(inputs.account)
        statements.append(allow("ListDocumentBuckets", ["s3:ListBucket"], inputs.bucket_arns, same_account))
        objects = [f"{arn}/*" for arn in inputs.bucket_arns]
        statements.append(allow("ReadDocumentBucketObjects", ["s3:GetObject"], objects, same_account))
    if inputs.certificate_bucket_arns:
        # The connector reads its .pfx from S3. AWS's sample grants s3:ListBucket on the certificate
        # bucket and s3:GetObject on bucket/* and reports that ingestion fails without them
        # (03-sharepoint-connector.ipynb); the narrower one-object grant is on no AWS source, so the
        # sample's shape is followed, on the tenant's own certificate bucket only (ledger).
        same_account = _same_account(inputs.account)
        buckets = inputs.certificate_bucket_arns
        statements.append(allow("ListConnectorCertificateBuckets", ["s3:ListBucket"], buckets, same_account))
        objects = [f"{arn}/*" for arn in buckets]
        statements.append(allow("ReadConnectorCertificates", ["s3:GetObject"], objects, same_account))
    return statements


def knowledge_base_role_policy(inputs: KnowledgeBaseRoleInputs) -> PolicyDocument:
    """The role's permissions: only what its own sources, keys and embedding model need."""
    statements = _s3_statements(inputs)
    # PutMetricData has no resource-level permissions; the namespace condition scopes it.
    statements.append(
        allow(
            "PublishKnowledgeBaseMetrics",
            ["cloudwatch:PutMetricData"],
            "*",
            condition={"StringEquals": {"cloudwatch:namespace": metric_names.BEDROCK_KB_NAMESPACE}},
        )
    )
    if inputs.secret_arns:
        statements.append(allow("ReadConnectorCredentials", ["secretsmanager:GetSecretValue"], inputs.secret_arns))
    if inputs.kms_key_arns:
        # Decrypt reads data under the key; GenerateDataKey encrypts the KB's transient data
        # (docs.aws.amazon.com/bedrock/latest/userguide/encryption-kb.html).
        statements.append(allow("UseConfiguredKmsKeys", ["kms:Decrypt", "kms:GenerateDataKey"], inputs.kms_key_arns))
    if inputs.embedding_model_arn:
        statements.append(allow("InvokeCustomEmbeddingModel", ["bedrock:InvokeModel"], inputs.embedding_model_arn))
    return document(statements)
