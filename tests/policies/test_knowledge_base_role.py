"""The knowledge-base role policy builder: pure, scoped, every statement named by its purpose."""

from __future__ import annotations

import json

import pytest

from policies.knowledge_base_role import (
    KnowledgeBaseRoleInputs,
    knowledge_base_role_policy,
    knowledge_base_trust_policy,
)

BUCKET = "arn:aws:s3:::acme-docs"
SECRET = "arn:aws:secretsmanager:us-west-2:123456789012:secret:wiki-AbCdEf"
KEY = "arn:aws:kms:us-west-2:123456789012:key/0f6c1a4e-1111-2222-3333-444455556666"
CERTIFICATES = "arn:aws:s3:::acme-certs"
MODEL = "arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-embed-text-v2:0"


def _inputs(**overrides) -> KnowledgeBaseRoleInputs:
    values = dict(partition="aws", region="us-west-2", account="123456789012")
    values.update(overrides)
    return KnowledgeBaseRoleInputs(**values)


def _statements(policy: dict) -> dict[str, dict]:
    return {statement["Sid"]: statement for statement in policy["Statement"]}


def test_trust_policy_admits_only_bedrock_for_this_accounts_knowledge_bases():
    (statement,) = knowledge_base_trust_policy("aws-cn", "cn-north-1", "123456789012")["Statement"]
    assert statement["Principal"] == {"Service": "bedrock.amazonaws.com"}
    assert statement["Action"] == "sts:AssumeRole"
    assert statement["Condition"] == {
        "StringEquals": {"aws:SourceAccount": "123456789012"},
        "ArnLike": {"aws:SourceArn": "arn:aws-cn:bedrock:cn-north-1:123456789012:knowledge-base/*"},
    }


def test_the_role_lists_its_bucket_and_reads_its_objects_in_this_account_only():
    # bucket and bucket/* with aws:ResourceAccount, as AWS's CloudFormation sample grants (ledger: CONFLICTING).
    policy = knowledge_base_role_policy(_inputs(bucket_arns=[BUCKET, BUCKET]))
    statements = _statements(policy)
    assert statements["ListDocumentBuckets"]["Action"] == "s3:ListBucket"
    assert statements["ListDocumentBuckets"]["Resource"] == BUCKET  # one resource: a string (policies/document.py)
    assert statements["ReadDocumentBucketObjects"]["Action"] == "s3:GetObject"
    assert statements["ReadDocumentBucketObjects"]["Resource"] == f"{BUCKET}/*"
    for sid in ("ReadDocumentBucketObjects", "ListDocumentBuckets"):
        assert statements[sid]["Condition"] == {"StringEquals": {"aws:ResourceAccount": "123456789012"}}


def test_a_certificate_bucket_is_listed_and_read_as_aws_sample_grants_it_in_its_own_account():
    policy = knowledge_base_role_policy(_inputs(certificate_bucket_arns=[CERTIFICATES]))
    statements = _statements(policy)
    same_account = {"StringEquals": {"aws:ResourceAccount": "123456789012"}}
    assert statements["ListConnectorCertificateBuckets"] == {
        "Sid": "ListConnectorCertificateBuckets",
        "Effect": "Allow",
        "Action": "s3:ListBucket",
        "Resource": CERTIFICATES,
        "Condition": same_account,
    }
    assert statements["ReadConnectorCertificates"] == {
        "Sid": "ReadConnectorCertificates",
        "Effect": "Allow",
        "Action": "s3:GetObject",
        "Resource": f"{CERTIFICATES}/*",
        "Condition": same_account,
    }
    assert "ListDocumentBuckets" not in statements


def test_metrics_statement_is_limited_to_the_knowledge_base_namespace():
    statement = _statements(knowledge_base_role_policy(_inputs()))["PublishKnowledgeBaseMetrics"]
    assert statement["Action"] == "cloudwatch:PutMetricData"
    assert statement["Resource"] == "*"
    assert statement["Condition"] == {"StringEquals": {"cloudwatch:namespace": "AWS/Bedrock/KnowledgeBases"}}


def test_a_role_without_sources_secrets_keys_or_model_gets_only_metrics():
    assert list(_statements(knowledge_base_role_policy(_inputs()))) == ["PublishKnowledgeBaseMetrics"]


def test_secret_key_and_model_statements_name_exactly_the_configured_resources():
    policy = knowledge_base_role_policy(
        _inputs(secret_arns=[SECRET, SECRET], kms_key_arns=[KEY], embedding_model_arn=MODEL)
    )
    statements = _statements(policy)
    assert statements["ReadConnectorCredentials"] == {
        "Sid": "ReadConnectorCredentials",
        "Effect": "Allow",
        "Action": "secretsmanager:GetSecretValue",
        "Resource": SECRET,
    }
    assert statements["UseConfiguredKmsKeys"]["Resource"] == KEY
    assert "kms:Decrypt" in statements["UseConfiguredKmsKeys"]["Action"]
    assert statements["InvokeCustomEmbeddingModel"]["Resource"] == MODEL


@pytest.mark.parametrize(
    "inputs",
    [
        _inputs(),
        _inputs(
            bucket_arns=[BUCKET],
            certificate_bucket_arns=[CERTIFICATES],
            secret_arns=[SECRET],
            kms_key_arns=[KEY],
            embedding_model_arn=MODEL,
        ),
    ],
)
def test_every_statement_has_a_unique_sid_and_wildcards_only_where_a_reason_is_written(inputs):
    policy = knowledge_base_role_policy(inputs)
    sids = [statement["Sid"] for statement in policy["Statement"]]
    assert len(sids) == len(set(sids)) and all(sids)
    resources = {
        s["Sid"]: [s["Resource"]] if isinstance(s["Resource"], str) else s["Resource"] for s in policy["Statement"]
    }
    stars = {sid for sid, arns in resources.items() if any("*" in arn for arn in arns)}
    # PutMetricData has no resource-level permissions; bucket/* is the tenant's own bucket.
    assert stars <= {"PublishKnowledgeBaseMetrics", "ReadDocumentBucketObjects", "ReadConnectorCertificates"}
    assert resources["PublishKnowledgeBaseMetrics"] == ["*"]
    for sid in ("ReadDocumentBucketObjects", "ReadConnectorCertificates"):
        assert all(arn.endswith("/*") and arn.count("*") == 1 for arn in resources.get(sid, []))
    json.dumps(policy)  # printable for a security review


def test_tokens_pass_through_unchanged():
    token = "${Token[TOKEN.123]}"
    policy = knowledge_base_role_policy(_inputs(bucket_arns=[token]))
    assert _statements(policy)["ReadDocumentBucketObjects"]["Resource"] == f"{token}/*"
