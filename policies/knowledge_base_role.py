"""The service role a MANAGED knowledge base assumes to read its sources and publish its metrics.

Pure: inputs are strings (CDK tokens are strings too), output is an IAM policy document as a dict.
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-permissions.html
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

BEDROCK_SERVICE = "bedrock.amazonaws.com"
# Knowledge bases publish their metrics under this namespace and no other (docs/facts-and-decisions.md).
KNOWLEDGE_BASE_METRIC_NAMESPACE = "AWS/Bedrock/KnowledgeBases"
VERSION = "2012-10-17"


@dataclass(frozen=True)
class KnowledgeBaseRoleInputs:
    """What one knowledge base's role may reach.

    :param bucket_arns: buckets its `s3` sources read. Each belongs to one tenant, so the role may
        list it and read every object in it (see `knowledge_base_role_policy`).
    :param certificate_object_arns: single S3 objects (SharePoint/OneDrive sign-in certificates).
    """

    partition: str
    region: str
    account: str
    bucket_arns: Sequence[str] = field(default_factory=tuple)
    certificate_object_arns: Sequence[str] = field(default_factory=tuple)
    secret_arns: Sequence[str] = field(default_factory=tuple)
    kms_key_arns: Sequence[str] = field(default_factory=tuple)
    embedding_model_arn: str | None = None


def knowledge_base_source_arn(partition: str, region: str, account: str) -> str:
    """Every knowledge base of this account and region: the trust policy's `aws:SourceArn`."""
    return f"arn:{partition}:bedrock:{region}:{account}:knowledge-base/*"


def trust_conditions(partition: str, region: str, account: str) -> dict:
    """Confused-deputy guard: Bedrock may assume the role only on behalf of this account's KBs."""
    return {
        "StringEquals": {"aws:SourceAccount": account},
        "ArnLike": {"aws:SourceArn": knowledge_base_source_arn(partition, region, account)},
    }


def knowledge_base_trust_policy(partition: str, region: str, account: str) -> dict:
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Sid": "BedrockAssumesRoleForThisAccountsKnowledgeBases",
                "Effect": "Allow",
                "Principal": {"Service": BEDROCK_SERVICE},
                "Action": "sts:AssumeRole",
                "Condition": trust_conditions(partition, region, account),
            }
        ],
    }


def _same_account(account: str) -> dict:
    return {"StringEquals": {"aws:ResourceAccount": account}}


def _s3_statements(inputs: KnowledgeBaseRoleInputs) -> list[dict]:
    statements: list[dict] = []
    if inputs.bucket_arns:
        # bucket and bucket/*, as AWS's CloudFormation sample grants (managed-kb-s3-cfn.yaml), not the
        # source's prefix; the sample's security notebooks even report scoped ARNs refused for the
        # connector's role session and use `*` (ledger: CONFLICTING). Each bucket belongs to one
        # tenant (the loader rejects a shared bucket_arn), so bucket/* reads only that tenant's data.
        statements.append(
            {
                "Sid": "ListDocumentBuckets",
                "Effect": "Allow",
                "Action": "s3:ListBucket",
                "Resource": _unique(inputs.bucket_arns),
                "Condition": _same_account(inputs.account),
            }
        )
        statements.append(
            {
                "Sid": "ReadDocumentBucketObjects",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": _unique(f"{arn}/*" for arn in inputs.bucket_arns),
                "Condition": _same_account(inputs.account),
            }
        )
    if inputs.certificate_object_arns:
        statements.append(
            {
                "Sid": "ReadConnectorCertificates",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                # One object each: the connector reads its .pfx from S3 (sample 03-sharepoint-connector.ipynb).
                "Resource": _unique(inputs.certificate_object_arns),
                "Condition": _same_account(inputs.account),
            }
        )
    return statements


def knowledge_base_role_policy(inputs: KnowledgeBaseRoleInputs) -> dict:
    """The role's permissions: only what its own sources, keys and embedding model need."""
    statements = _s3_statements(inputs)
    statements.append(
        {
            "Sid": "PublishKnowledgeBaseMetrics",
            "Effect": "Allow",
            "Action": "cloudwatch:PutMetricData",
            # PutMetricData has no resource-level permissions; the namespace condition scopes it.
            "Resource": "*",
            "Condition": {"StringEquals": {"cloudwatch:namespace": KNOWLEDGE_BASE_METRIC_NAMESPACE}},
        }
    )
    if inputs.secret_arns:
        statements.append(
            {
                "Sid": "ReadConnectorCredentials",
                "Effect": "Allow",
                "Action": "secretsmanager:GetSecretValue",
                "Resource": _unique(inputs.secret_arns),
            }
        )
    if inputs.kms_key_arns:
        statements.append(
            {
                "Sid": "UseConfiguredKmsKeys",
                "Effect": "Allow",
                # Decrypt reads data under the key; GenerateDataKey encrypts the KB's transient data
                # (docs.aws.amazon.com/bedrock/latest/userguide/encryption-kb.html).
                "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                "Resource": _unique(inputs.kms_key_arns),
            }
        )
    if inputs.embedding_model_arn:
        statements.append(
            {
                "Sid": "InvokeCustomEmbeddingModel",
                "Effect": "Allow",
                "Action": "bedrock:InvokeModel",
                "Resource": inputs.embedding_model_arn,
            }
        )
    return {"Version": VERSION, "Statement": statements}


def _unique(values) -> list[str]:
    return list(dict.fromkeys(values))
