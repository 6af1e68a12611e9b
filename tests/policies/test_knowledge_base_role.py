"""The knowledge-base role policy builder: pure, scoped, every statement named by its purpose."""

from __future__ import annotations

import json

import pytest

from policies.knowledge_base_role import (
    BucketRead,
    KnowledgeBaseRoleInputs,
    knowledge_base_role_policy,
    knowledge_base_trust_policy,
)

BUCKET = "arn:aws:s3:::acme-docs"
SECRET = "arn:aws:secretsmanager:us-west-2:123456789012:secret:wiki-AbCdEf"
KEY = "arn:aws:kms:us-west-2:123456789012:key/0f6c1a4e-1111-2222-3333-444455556666"
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


def test_objects_are_readable_only_under_each_sources_prefix():
    policy = knowledge_base_role_policy(_inputs(buckets=[BucketRead(BUCKET, ["docs/", "faq/"])]))
    statements = _statements(policy)
    assert statements["ReadDocumentsUnderSourcePrefixes"]["Resource"] == [f"{BUCKET}/docs/*", f"{BUCKET}/faq/*"]
    assert statements["ReadDocumentsUnderSourcePrefixes"]["Action"] == "s3:GetObject"
    assert (
        statements["ListDocumentBuckets"]["Resource"] == BUCKET
    )  # one resource: a string, as policies/document.py writes it
    for sid in ("ReadDocumentsUnderSourcePrefixes", "ListDocumentBuckets"):
        assert statements[sid]["Condition"] == {"StringEquals": {"aws:ResourceAccount": "123456789012"}}


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
            buckets=[BucketRead(BUCKET, ["a/"])], secret_arns=[SECRET], kms_key_arns=[KEY], embedding_model_arn=MODEL
        ),
    ],
)
def test_every_statement_has_a_unique_sid_and_only_the_metrics_statement_uses_a_star(inputs):
    policy = knowledge_base_role_policy(inputs)
    sids = [statement["Sid"] for statement in policy["Statement"]]
    assert len(sids) == len(set(sids)) and all(sids)
    stars = [s["Sid"] for s in policy["Statement"] if "*" in _resources(s)]
    assert stars == ["PublishKnowledgeBaseMetrics"]
    json.dumps(policy)  # printable for a security review


def test_tokens_pass_through_unchanged():
    token = "${Token[TOKEN.123]}"
    policy = knowledge_base_role_policy(_inputs(buckets=[BucketRead(token, ["docs/"])]))
    assert _statements(policy)["ReadDocumentsUnderSourcePrefixes"]["Resource"] == f"{token}/docs/*"


def _resources(statement: dict) -> list[str]:
    """A statement's resources as a list (one resource is written as a plain string)."""
    resource = statement["Resource"]
    return resource if isinstance(resource, list) else [resource]
