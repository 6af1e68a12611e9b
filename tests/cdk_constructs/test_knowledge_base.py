"""MANAGED knowledge bases: type, embedding, role trust and scope, creation order, grants, metrics."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Match, Template

from cdk_constructs.document_bucket import DocumentBucket
from cdk_constructs.knowledge_base import KnowledgeBase
from contract.resource_refs import KnowledgeBaseRef
from schema.knowledge import KnowledgeBase as KnowledgeBaseConfig
from tests.cdk_constructs.probe import probe_stack, tenant_stack
from tests.monitoring.cloudwatch_template import render

pytestmark = [pytest.mark.synth, pytest.mark.xdist_group("synth")]

KEY = "arn:aws:kms:us-west-2:123456789012:key/0f6c1a4e-1111-2222-3333-444455556666"
MODEL = "arn:aws:bedrock:us-west-2::foundation-model/amazon.titan-embed-text-v2:0"


def _kb_config(**overrides) -> KnowledgeBaseConfig:
    data = {"alias": "docs", "description": "Product docs.", "sources": [{"type": "s3", "prefix": "docs/"}]}
    data.update(overrides)
    return KnowledgeBaseConfig.model_validate(data)


def _probe_kb(config: KnowledgeBaseConfig):
    stack = probe_stack()
    documents = DocumentBucket(stack, "Documents", removal_policy=cdk.RemovalPolicy.RETAIN)
    kb = KnowledgeBase(
        stack, "Kb", config=config, name="probe-docs", documents=documents, removal_policy=cdk.RemovalPolicy.RETAIN
    )
    return stack, kb


def test_every_example_knowledge_base_is_managed_with_managed_embeddings_and_no_storage(synthesized):
    for stack_name in ("dev-acme", "dev-globex"):
        kbs = synthesized.resources(stack_name, "AWS::Bedrock::KnowledgeBase")
        aliases = [kb.alias for kb in synthesized.project.tenants[stack_name.split("-", 1)[1]].knowledge_bases]
        assert sorted(kb["Properties"]["Name"] for kb in kbs.values()) == sorted(
            f"akb-{stack_name}-{a}" for a in aliases
        )
        for kb in kbs.values():
            configuration = kb["Properties"]["KnowledgeBaseConfiguration"]
            assert configuration == {
                "Type": "MANAGED",
                "ManagedKnowledgeBaseConfiguration": {"EmbeddingModelType": "MANAGED"},
            }
            assert "StorageConfiguration" not in kb["Properties"]


def test_knowledge_base_depends_on_the_policy_of_its_own_role(synthesized):
    resources = synthesized.template("dev-acme")["Resources"]
    for kb in synthesized.resources("dev-acme", "AWS::Bedrock::KnowledgeBase").values():
        role_id = kb["Properties"]["RoleArn"]["Fn::GetAtt"][0]
        (policy_id,) = kb["DependsOn"]
        policy = resources[policy_id]
        assert policy["Type"] == "AWS::IAM::Policy"
        assert policy["Properties"]["Roles"] == [{"Ref": role_id}]


def test_role_trusts_bedrock_only_for_this_accounts_knowledge_bases(synthesized):
    kb_roles = {
        kb["Properties"]["RoleArn"]["Fn::GetAtt"][0]
        for kb in synthesized.resources("dev-acme", "AWS::Bedrock::KnowledgeBase").values()
    }
    resources = synthesized.template("dev-acme")["Resources"]
    for role_id in kb_roles:
        (statement,) = resources[role_id]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
        assert statement["Principal"] == {"Service": "bedrock.amazonaws.com"}
        assert statement["Condition"]["StringEquals"] == {"aws:SourceAccount": "123456789012"}
        source_arn = render(statement["Condition"]["ArnLike"]["aws:SourceArn"])
        assert source_arn.replace("<ref:AWS::Partition>", "aws") == (
            "arn:aws:bedrock:us-west-2:123456789012:knowledge-base/*"
        )


def test_each_role_reads_only_the_tenants_own_document_bucket(synthesized):
    resources = synthesized.template("dev-acme")["Resources"]
    (bucket_id,) = [
        key for key in synthesized.resources("dev-acme", "AWS::S3::Bucket") if key.startswith("DocumentsBucket")
    ]
    reads = {}
    for kb in synthesized.resources("dev-acme", "AWS::Bedrock::KnowledgeBase").values():
        policy = resources[kb["DependsOn"][0]]["Properties"]["PolicyDocument"]
        statements = {s["Sid"]: s for s in policy["Statement"]}
        reads[kb["Properties"]["Name"]] = (
            statements["ListDocumentBuckets"]["Resource"],
            statements["ReadDocumentBucketObjects"]["Resource"],
        )
    bucket = {"Fn::GetAtt": [bucket_id, "Arn"]}
    objects = {"Fn::Join": ["", [bucket, "/*"]]}
    assert reads == {"akb-dev-acme-docs": (bucket, objects), "akb-dev-acme-tickets": (bucket, objects)}


def test_custom_embedding_and_kms_key_reach_the_resource_and_the_role():
    stack, _ = _probe_kb(_kb_config(embedding={"type": "CUSTOM", "model_arn": MODEL}, kms_key_arn=KEY))
    template = Template.from_stack(stack)
    template.has_resource_properties(
        "AWS::Bedrock::KnowledgeBase",
        {
            "KnowledgeBaseConfiguration": {
                "Type": "MANAGED",
                "ManagedKnowledgeBaseConfiguration": {
                    "EmbeddingModelType": "CUSTOM",
                    "EmbeddingModelArn": MODEL,
                    "ServerSideEncryptionConfiguration": {"KmsKeyArn": KEY},
                },
            }
        },
    )
    template.has_resource_properties(
        "AWS::IAM::Policy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like({"Sid": "UseConfiguredKmsKeys", "Resource": KEY}),
                        Match.object_like({"Sid": "InvokeCustomEmbeddingModel", "Resource": MODEL}),
                    ]
                )
            }
        },
    )


def test_ref_carries_alias_description_and_resource_identifiers():
    stack, kb = _probe_kb(_kb_config())
    ref = kb.ref
    assert isinstance(ref, KnowledgeBaseRef)
    assert (ref.alias, ref.description) == ("docs", "Product docs.")
    assert stack.resolve(ref.knowledge_base_id) == {
        "Fn::GetAtt": [stack.get_logical_id(kb.resource), "KnowledgeBaseId"]
    }
    assert stack.resolve(ref.knowledge_base_arn) == {
        "Fn::GetAtt": [stack.get_logical_id(kb.resource), "KnowledgeBaseArn"]
    }


def test_an_s3_source_without_a_bucket_fails_naming_the_construct_and_the_fix():
    stack = probe_stack()
    with pytest.raises(ValueError, match=r"Probe/Kb: sources\[0\] reads the tenant's document bucket.*bucket_arn"):
        KnowledgeBase(
            stack, "Kb", config=_kb_config(), name="x", documents=None, removal_policy=cdk.RemovalPolicy.RETAIN
        )


def test_long_descriptions_are_cut_to_the_resource_limit():
    stack, _ = _probe_kb(_kb_config(description="word " * 100))
    (kb,) = Template.from_stack(stack).find_resources("AWS::Bedrock::KnowledgeBase").values()
    assert len(kb["Properties"]["Description"]) == 200 and kb["Properties"]["Description"].endswith("...")


def test_tenant_stack_exposes_its_knowledge_constructs_by_alias():
    stack = tenant_stack("acme")
    assert list(stack.knowledge_bases) == ["docs", "tickets"]
    assert all(isinstance(kb, KnowledgeBase) for kb in stack.knowledge_bases.values())
    assert stack.guardrail is not None and stack.retrieval_instruction is not None
    assert stack.documents_bucket is not None


def test_a_certificate_bucket_grant_is_acknowledged_finding_by_finding_under_cdk_nag():
    """cdk-nag runs on the probe app: the certificate bucket's `bucket/*` has its own written reason."""
    from cdk_constructs.nag_checks import enable_nag

    config = _kb_config(
        alias="sites",
        sources=[
            {
                "type": "connector",
                "connector_type": "SHAREPOINT",
                "secret_arn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:sp-AbCdEf",
                "acl_enabled": False,
                "certificate": {"bucket": "acme-certs", "key": "sp/connector.pfx"},
                "parameters": {"connectionConfiguration": {"authType": "ENTRA_ID_APP_ONLY", "tenantId": "t"}},
            }
        ],
    )
    stack, _ = _probe_kb(config)
    enable_nag(stack.node.root)
    stack.node.root.synth()  # an unacknowledged AwsSolutions finding fails synth
    (policy,) = Template.from_stack(stack).find_resources("AWS::IAM::Policy").values()
    statements = {s["Sid"]: s for s in policy["Properties"]["PolicyDocument"]["Statement"]}
    assert "acme-certs/*" in render(statements["ReadConnectorCertificates"]["Resource"])
