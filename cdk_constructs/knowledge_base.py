"""A MANAGED Bedrock knowledge base with its service role and data sources.

Agentic retrieval works only with MANAGED knowledge bases: Bedrock owns the vector store, so there
is no StorageConfiguration. https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed.html
"""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_bedrock as bedrock
from aws_cdk import aws_iam as iam
from constructs import Construct

from cdk_constructs.data_source import DataSource
from cdk_constructs.document_bucket import DocumentBucket
from cdk_constructs.nag_checks import acknowledge
from contract.resource_names import bounded_name
from contract.resource_refs import KnowledgeBaseRef
from policies.knowledge_base_role import (
    BEDROCK_SERVICE,
    KnowledgeBaseRoleInputs,
    inputs_for,
    knowledge_base_role_policy,
    trust_conditions,
)
from schema.knowledge import KnowledgeBase as KnowledgeBaseConfig
from schema.knowledge import S3Source, Source

# AWS::Bedrock::KnowledgeBase Description: 1-200 characters.
MAX_DESCRIPTION = 200


class KnowledgeBase(Construct):
    """One alias of a tenant: `AWS::Bedrock::KnowledgeBase` (MANAGED), its role and its sources.

    :param config: the validated `knowledge_bases[]` entry: `alias`, `description` (the planner
        routes by it; the first 200 characters also become the resource's Description), `sources`,
        `embedding` (default MANAGED: Bedrock picks the model; CUSTOM needs `model_arn`), and
        `kms_key_arn` (default: an AWS owned key). https://docs.aws.amazon.com/bedrock/latest/userguide/kb-managed.html
    :param name: the knowledge base's name; its data sources are named `<name>-<n>`.
    :param documents: the tenant's document bucket, read by `s3` sources without `bucket_arn`.
    :param removal_policy: the environment's; applies to the knowledge base and its data sources.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: KnowledgeBaseConfig,
        name: str,
        documents: DocumentBucket | None,
        removal_policy: cdk.RemovalPolicy,
    ):
        super().__init__(scope, construct_id)
        self.config = config
        self.alias = config.alias
        self._require_documents(documents)
        self._build_role(name, documents)
        self._build_resource(name, removal_policy)
        self.data_sources: list[DataSource] = self._build_data_sources(name, documents, removal_policy)

    def _build_role(self, name: str, documents: DocumentBucket | None) -> None:
        stack = cdk.Stack.of(self)
        # Bedrock assumes the role only for this account's knowledge bases (confused-deputy guard).
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=iam.PrincipalWithConditions(
                iam.ServicePrincipal(BEDROCK_SERVICE), trust_conditions(stack.partition, stack.region, stack.account)
            ),
            description=f"Knowledge base {name}: reads its own sources only",
        )
        role_inputs = inputs_for(
            self.config,
            partition=stack.partition,
            region=stack.region,
            account=stack.account,
            documents_bucket_arn=documents.bucket_arn if documents else "",
        )
        self.role_policy = iam.Policy(
            self,
            "RolePolicy",
            roles=[self.role],
            document=iam.PolicyDocument.from_json(knowledge_base_role_policy(role_inputs)),
        )
        self._acknowledge_wildcards(role_inputs)

    def _build_resource(self, name: str, removal_policy: cdk.RemovalPolicy) -> None:
        config = self.config
        # Create-only (cfn-lint schema): changing the embedding or the key replaces the knowledge base.
        managed = bedrock.CfnKnowledgeBase.ManagedKnowledgeBaseConfigurationProperty(
            embedding_model_type=config.embedding.type,
            embedding_model_arn=config.embedding.model_arn,
            server_side_encryption_configuration=(
                bedrock.CfnKnowledgeBase.ManagedKnowledgeBaseServerSideEncryptionConfigurationProperty(
                    kms_key_arn=config.kms_key_arn
                )
                if config.kms_key_arn
                else None
            ),
        )
        self.resource = bedrock.CfnKnowledgeBase(
            self,
            "Resource",
            name=name,
            description=_truncate(config.description, MAX_DESCRIPTION),
            role_arn=self.role.role_arn,
            knowledge_base_configuration=bedrock.CfnKnowledgeBase.KnowledgeBaseConfigurationProperty(
                type="MANAGED", managed_knowledge_base_configuration=managed
            ),
        )
        # Creation fails if the role cannot yet read the sources: the policy must exist first.
        policy_resource = self.role_policy.node.default_child
        if not isinstance(policy_resource, cdk.CfnResource):
            raise TypeError(f"{self.node.path}: the role policy has no CloudFormation resource to depend on")
        self.resource.add_resource_dependency(policy_resource)
        self.resource.apply_removal_policy(removal_policy)

    def _build_data_sources(
        self, name: str, documents: DocumentBucket | None, removal_policy: cdk.RemovalPolicy
    ) -> list[DataSource]:
        return [
            DataSource(
                self,
                f"Source{index}",
                knowledge_base_id=self.knowledge_base_id,
                name=bounded_name(f"{name}-{index}", 100),
                source=source,
                bucket_name=_bucket_name(source, documents),
                account=cdk.Stack.of(self).account,
                removal_policy=removal_policy,
            )
            for index, source in enumerate(self.config.sources)
        ]

    def _require_documents(self, documents: DocumentBucket | None) -> None:
        for index, source in enumerate(self.config.sources):
            if isinstance(source, S3Source) and source.bucket_arn is None and documents is None:
                raise ValueError(
                    f"{self.node.path}: sources[{index}] reads the tenant's document bucket but none was "
                    "given; pass documents=DocumentBucket(...) or set bucket_arn on the source"
                )

    def _acknowledge_wildcards(self, inputs: KnowledgeBaseRoleInputs) -> None:
        acknowledge(
            self.role_policy,
            "IAM5",
            "cloudwatch:PutMetricData has no resource-level permissions "
            "(https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudwatch.html); "
            "the statement is limited to the AWS/Bedrock/KnowledgeBases namespace by condition",
            finding="Resource::*",
        )
        stack = cdk.Stack.of(self)
        for bucket_arn in dict.fromkeys(inputs.bucket_arns):
            acknowledge(
                self.role_policy,
                "IAM5",
                "the knowledge base reads every document of its tenant's bucket, whose names are not known "
                "at deploy time: s3:GetObject on bucket/* as AWS's CloudFormation sample grants "
                "(amazon-bedrock-samples managed-kb-s3-cfn.yaml; narrower ARNs are not used: the sample's "
                "security notebooks report even scoped ARNs refused for the connector's role session; "
                "https://docs.aws.amazon.com/bedrock/latest/userguide/kb-permissions.html); the bucket "
                "belongs to this tenant only (the loader rejects a bucket shared by two tenants)",
                finding=f"Resource::{_nag_resource(stack, bucket_arn)}/*",
            )
        for bucket_arn in dict.fromkeys(inputs.certificate_bucket_arns):
            acknowledge(
                self.role_policy,
                "IAM5",
                "the SharePoint/OneDrive connector reads its sign-in certificate from this bucket; AWS's "
                "sample grants s3:GetObject on the certificate bucket's objects with s3:ListBucket and "
                "reports ingestion failing without them (amazon-bedrock-samples "
                "03-sharepoint-connector.ipynb); the loader rejects a certificate bucket shared by two tenants",
                finding=f"Resource::{_nag_resource(stack, bucket_arn)}/*",
            )

    # --- identifiers -------------------------------------------------------------------------

    @property
    def knowledge_base_id(self) -> str:
        return self.resource.attr_knowledge_base_id

    @property
    def knowledge_base_arn(self) -> str:
        return self.resource.attr_knowledge_base_arn

    @property
    def ref(self) -> KnowledgeBaseRef:
        return KnowledgeBaseRef(
            alias=self.alias,
            description=self.config.description,
            knowledge_base_id=self.knowledge_base_id,
            knowledge_base_arn=self.knowledge_base_arn,
        )


def _bucket_name(source: Source, documents: DocumentBucket | None) -> str | None:
    if not isinstance(source, S3Source):
        return None
    if source.bucket_arn:
        return source.bucket_arn.split(":::", 1)[1]
    return documents.bucket_name if documents else None


def _truncate(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _nag_resource(stack: cdk.Stack, arn: str) -> str:
    """How cdk-nag writes a bucket ARN in a finding id: `<LogicalId.Arn>` for a token."""
    if not cdk.Token.is_unresolved(arn):
        return arn
    resolved = stack.resolve(arn)
    logical_id, attribute = resolved["Fn::GetAtt"]
    return f"<{logical_id}.{attribute}>"
