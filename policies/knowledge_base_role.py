"""The service role a MANAGED knowledge base assumes to read its sources and publish its metrics.

Pure: inputs are strings (CDK tokens are strings too), output is an IAM policy document as a dict.
https://docs.aws.amazon.com/bedrock/latest/userguide/kb-permissions.html
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lambdas.endpoint import metric_names
from policies.document import PolicyDocument, Statement, allow, document
from schema.knowledge import ConnectorSource, S3Source

if TYPE_CHECKING:
    from schema.knowledge import KnowledgeBase

BEDROCK_SERVICE = "bedrock.amazonaws.com"


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


def inputs_for(
    config: KnowledgeBase, *, partition: str, region: str, account: str, documents_bucket_arn: str | None
) -> KnowledgeBaseRoleInputs:
    """The inputs from one `knowledge_bases[]` entry; `documents_bucket_arn` is the tenant's document
    bucket, read by `s3` sources without `bucket_arn` (the construct and `akb policy` both call this)."""
    buckets: dict[str, list[str]] = {}
    for index, source in enumerate(config.sources):
        if not isinstance(source, S3Source):
            continue
        arn = source.bucket_arn or documents_bucket_arn
        if arn is None:
            raise ValueError(f"sources[{index}] reads the tenant's document bucket but none was given")
        buckets.setdefault(arn, []).append(source.prefix)
    return KnowledgeBaseRoleInputs(
        partition=partition,
        region=region,
        account=account,
        buckets=tuple(BucketRead(arn, tuple(prefixes)) for arn, prefixes in buckets.items()),
        secret_arns=tuple(s.secret_arn for s in config.sources if isinstance(s, ConnectorSource) and s.secret_arn),
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


def _object_arns(read: BucketRead) -> list[str]:
    # An empty prefix means the whole bucket; otherwise only keys under each prefix.
    return [f"{read.bucket_arn}/{prefix}*" for prefix in read.prefixes]


def knowledge_base_role_policy(inputs: KnowledgeBaseRoleInputs) -> PolicyDocument:
    """The role's permissions: only what its own sources, keys and embedding model need."""
    return document(
        [
            *_bucket_statements(inputs),
            # PutMetricData has no resource-level permissions; the namespace condition scopes it.
            allow(
                "PublishKnowledgeBaseMetrics",
                ["cloudwatch:PutMetricData"],
                "*",
                condition={"StringEquals": {"cloudwatch:namespace": metric_names.BEDROCK_KB_NAMESPACE}},
            ),
            *_optional_statements(inputs),
        ]
    )


def _bucket_statements(inputs: KnowledgeBaseRoleInputs) -> list[Statement]:
    if not inputs.buckets:
        return []
    same_account = {"StringEquals": {"aws:ResourceAccount": inputs.account}}
    return [
        # Listing is not narrowed by s3:prefix: how the connector lists (by prefix or whole
        # bucket) is not documented, and a too-narrow condition silently ingests nothing.
        allow(
            "ListDocumentBuckets",
            ["s3:ListBucket"],
            [read.bucket_arn for read in inputs.buckets],
            condition=same_account,
        ),
        allow(
            "ReadDocumentsUnderSourcePrefixes",
            ["s3:GetObject"],
            [arn for read in inputs.buckets for arn in _object_arns(read)],
            condition=same_account,
        ),
    ]


def _optional_statements(inputs: KnowledgeBaseRoleInputs) -> list[Statement]:
    statements: list[Statement] = []
    if inputs.secret_arns:
        statements.append(allow("ReadConnectorCredentials", ["secretsmanager:GetSecretValue"], inputs.secret_arns))
    if inputs.kms_key_arns:
        # Decrypt reads data under the key; GenerateDataKey encrypts the KB's transient data
        # (docs.aws.amazon.com/bedrock/latest/userguide/encryption-kb.html).
        statements.append(allow("UseConfiguredKmsKeys", ["kms:Decrypt", "kms:GenerateDataKey"], inputs.kms_key_arns))
    if inputs.embedding_model_arn:
        statements.append(allow("InvokeCustomEmbeddingModel", ["bedrock:InvokeModel"], inputs.embedding_model_arn))
    return statements
