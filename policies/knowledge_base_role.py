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
class BucketRead:
    """One bucket the role may read, limited to the key prefixes its data sources name."""

    bucket_arn: str
    prefixes: Sequence[str]


@dataclass(frozen=True)
class KnowledgeBaseRoleInputs:
    partition: str
    region: str
    account: str
    buckets: Sequence[BucketRead] = field(default_factory=tuple)
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


def _object_arns(read: BucketRead) -> list[str]:
    # An empty prefix means the whole bucket; otherwise only keys under each prefix.
    return [f"{read.bucket_arn}/{prefix}*" for prefix in read.prefixes]


def knowledge_base_role_policy(inputs: KnowledgeBaseRoleInputs) -> dict:
    """The role's permissions: only what its own sources, keys and embedding model need."""
    statements: list[dict] = []
    if inputs.buckets:
        statements.append(
            {
                "Sid": "ListDocumentBuckets",
                "Effect": "Allow",
                "Action": "s3:ListBucket",
                # Listing is not narrowed by s3:prefix: how the connector lists (by prefix or whole
                # bucket) is not documented, and a too-narrow condition silently ingests nothing.
                "Resource": _unique(read.bucket_arn for read in inputs.buckets),
                "Condition": {"StringEquals": {"aws:ResourceAccount": inputs.account}},
            }
        )
        statements.append(
            {
                "Sid": "ReadDocumentsUnderSourcePrefixes",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": _unique(arn for read in inputs.buckets for arn in _object_arns(read)),
                "Condition": {"StringEquals": {"aws:ResourceAccount": inputs.account}},
            }
        )
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
