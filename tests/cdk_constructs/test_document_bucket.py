"""The tenant's document bucket: encrypted, TLS-only, versioned, private, access-logged."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from cdk_constructs.document_bucket import DocumentBucket
from schema.knowledge import KnowledgeBase
from tests.cdk_constructs.probe import probe_stack, tenant_stack

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]


def _buckets(template: dict) -> tuple[str, dict, str, dict]:
    resources = template["Resources"]
    (documents,) = [
        k for k, v in resources.items() if v["Type"] == "AWS::S3::Bucket" and k.startswith("DocumentsBucket")
    ]
    (logs,) = [
        k for k, v in resources.items() if v["Type"] == "AWS::S3::Bucket" and k.startswith("DocumentsAccessLogs")
    ]
    return documents, resources[documents], logs, resources[logs]


def _policy_of(template: dict, bucket_id: str) -> list[dict]:
    (policy,) = [
        v
        for v in template["Resources"].values()
        if v["Type"] == "AWS::S3::BucketPolicy" and v["Properties"]["Bucket"] == {"Ref": bucket_id}
    ]
    return policy["Properties"]["PolicyDocument"]["Statement"]


def test_documents_are_encrypted_versioned_and_private(synthesized):
    _, documents, _, _ = _buckets(synthesized.template("dev-acme"))
    properties = documents["Properties"]
    assert properties["BucketEncryption"] == {
        "ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
    }
    assert properties["VersioningConfiguration"] == {"Status": "Enabled"}
    assert properties["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }


def test_both_buckets_refuse_requests_without_tls(synthesized):
    template = synthesized.template("dev-acme")
    documents_id, _, logs_id, _ = _buckets(template)
    for bucket_id in (documents_id, logs_id):
        denies = [s for s in _policy_of(template, bucket_id) if s["Effect"] == "Deny"]
        assert any(
            s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} and s["Action"] == "s3:*" for s in denies
        )


def test_access_is_logged_to_the_log_bucket_through_a_bucket_policy(synthesized):
    template = synthesized.template("dev-acme")
    _, documents, logs_id, logs = _buckets(template)
    assert documents["Properties"]["LoggingConfiguration"] == {
        "DestinationBucketName": {"Ref": logs_id},
        "LogFilePrefix": "documents/",
    }
    assert "AccessControl" not in logs["Properties"]  # no ACLs: delivery is granted by policy
    assert any(
        s.get("Principal") == {"Service": "logging.s3.amazonaws.com"} and s["Action"] == "s3:PutObject"
        for s in _policy_of(template, logs_id)
    )


def test_destroy_environments_empty_and_delete_the_buckets(synthesized):
    assert synthesized.project.environment.removal_policy == "destroy"
    template = synthesized.template("dev-acme")
    _, documents, _, logs = _buckets(template)
    assert documents["DeletionPolicy"] == logs["DeletionPolicy"] == "Delete"
    assert len([v for v in template["Resources"].values() if v["Type"] == "Custom::S3AutoDeleteObjects"]) == 2


def test_retain_keeps_the_buckets_and_their_objects():
    stack = probe_stack()
    DocumentBucket(stack, "Documents", removal_policy=cdk.RemovalPolicy.RETAIN)
    template = Template.from_stack(stack).to_json()
    _, documents, _, logs = _buckets(template)
    assert documents["DeletionPolicy"] == logs["DeletionPolicy"] == "Retain"
    assert not [v for v in template["Resources"].values() if v["Type"] == "Custom::S3AutoDeleteObjects"]


def test_no_bucket_is_created_when_no_source_reads_it():
    wiki_only = [
        KnowledgeBase.model_validate(
            {
                "alias": "site",
                "description": "Public site.",
                "sources": [{"type": "web", "seed_urls": ["https://example.com"]}],
            }
        )
    ]
    stack = tenant_stack("acme", knowledge_bases=wiki_only)
    assert stack.documents_bucket is None
    Template.from_stack(stack).resource_count_is("AWS::S3::Bucket", 0)
