"""`<env>-<tenant>`: one tenant's knowledge, guardrail, endpoint and monitoring.

The stack only composes constructs, each in its own file. Everything opt-in comes from the
tenant-feature registry (features/registry.py), whose hooks it calls in order: build before the
endpoint, plan the endpoint, build beside it, collect the knowledge bases' readers and the monitoring
contributions. It names no feature (tests/test_composition_roots.py); docs/architecture.md walks through it.
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from cdk_constructs.document_bucket import DocumentBucket
from cdk_constructs.guardrail import Guardrail
from cdk_constructs.knowledge_base import KnowledgeBase
from cdk_constructs.knowledge_base_policy import KnowledgeBasePolicy
from cdk_constructs.knowledge_outputs import publish_knowledge
from cdk_constructs.log_group import log_group, log_group_arn
from cdk_constructs.removal import removal_policy
from cdk_constructs.retrieval_instruction import RetrievalInstruction
from cdk_constructs.streaming_endpoint import StreamingEndpoint, StreamingEndpointProps
from contract.resource_names import bounded_name, endpoint_log_group_name, query_folder, resource_prefix
from features.endpoint_plan import endpoint_plan
from features.registry import FEATURES, Features, TenantFeatures
from features.tenant_feature import BuildContext, TenantScope
from monitoring.tenant_observability import TenantObservability
from schema import Project, Tenant
from schema.alarm_config import tenant_thresholds
from schema.knowledge import S3Source
from stacks.platform_stack import PlatformStack


class TenantStack(cdk.Stack):
    """One tenant: its knowledge (bucket, knowledge bases, guardrail, instruction), endpoint, monitoring."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        project: Project,
        tenant_name: str,
        platform: PlatformStack,
        features: Features = FEATURES,
        **kwargs: Any,
    ):
        """`features`: the registry (features/registry.py); tests pass their own to add one."""
        super().__init__(scope, construct_id, **kwargs)
        self.project = project
        self.tenant_name = tenant_name
        self.tenant: Tenant = project.tenants[tenant_name]
        self._scope = TenantScope(project, tenant_name)
        self._registry = features
        self.add_stack_dependency(platform)
        cdk.Tags.of(self).add("akb:tenant", tenant_name)
        if self.tenant.cost_center:  # cost allocation (docs/operations.md, "Cost per tenant")
            cdk.Tags.of(self).add("akb:cost-center", self.tenant.cost_center)
        self._prefix = resource_prefix(project.env_name, tenant_name)
        self._removal = removal_policy(project.environment)

        # The endpoint's log group, created up front so its retention is ours, not Lambda's default.
        self.endpoint_log_group = log_group(
            self,
            "EndpointLogs",
            environment=project.environment,
            name=endpoint_log_group_name(project.env_name, tenant_name),
        )
        self._build_knowledge()
        # The tenant's opt-in features (features/registry.py): what the endpoint reaches is built first.
        self.features = TenantFeatures(self._scope, features)
        context = self._build_context(platform)
        self.features.build_resources(context)
        # The endpoint, below the knowledge it serves: its role reaches these resources and no others.
        self.endpoint = self._build_endpoint()
        self.features.build_beside_endpoint(context, self.endpoint)
        self.knowledge_base_policies = self._build_knowledge_base_policies(
            [self.endpoint.role.role_arn, *self.features.reader_roles()]
        )
        self.observability = self._build_observability(platform, context)

    def _build_context(self, platform: PlatformStack) -> BuildContext:
        return BuildContext(
            scope=self,
            tenant=self._scope,
            knowledge_bases=self.knowledge_bases,
            guardrail=self.guardrail.ref if self.guardrail else None,
            retrieval_instruction=self.retrieval_instruction.ref if self.retrieval_instruction else None,
            environment_parts=platform.feature_parts,
        )

    def _build_endpoint(self) -> StreamingEndpoint:
        plan = endpoint_plan(
            self._scope,
            knowledge_bases=[kb.ref for kb in self.knowledge_bases.values()],
            log_group_arn=log_group_arn(self.endpoint_log_group),
            guardrail=self.guardrail.ref if self.guardrail else None,
            retrieval_instruction=self.retrieval_instruction.ref if self.retrieval_instruction else None,
            refs=self.features.refs(),
            features=self._registry,
        )
        props = StreamingEndpointProps.for_tenant(self._scope, plan)
        return StreamingEndpoint(self, "Endpoint", props=props, log_group=self.endpoint_log_group)

    def _build_knowledge(self) -> None:
        """Document bucket (only when an s3 source reads it), knowledge bases, guardrail, retrieval
        instruction, and their identifiers as outputs + SSM parameters."""
        tenant, prefix, removal = self.tenant, self._prefix, self._removal
        self.documents_bucket = (
            DocumentBucket(self, "Documents", removal_policy=removal) if _reads_document_bucket(tenant) else None
        )
        self.knowledge_bases: dict[str, KnowledgeBase] = {
            kb.alias: KnowledgeBase(
                self,
                f"KnowledgeBase-{kb.alias}",
                config=kb,
                name=bounded_name(f"{prefix}-{kb.alias}", 100),
                documents=self.documents_bucket,
                removal_policy=removal,
            )
            for kb in tenant.knowledge_bases
        }
        self.guardrail = self._build_guardrail()
        self.retrieval_instruction = self._build_retrieval_instruction()
        publish_knowledge(
            self,
            env_name=self.project.env_name,
            tenant=self.tenant_name,
            documents=self.documents_bucket,
            knowledge_bases=self.knowledge_bases,
            guardrail=self.guardrail,
            instruction=self.retrieval_instruction,
        )

    def _build_guardrail(self) -> Guardrail | None:
        if self.tenant.guardrail is None:
            return None
        return Guardrail(
            self,
            "Guardrail",
            config=self.tenant.guardrail,
            name=bounded_name(f"{self._prefix}-guardrail", 50),
            tenant=self.tenant_name,
            removal_policy=self._removal,
        )

    def _build_retrieval_instruction(self) -> RetrievalInstruction | None:
        instruction = self.tenant.retrieval.instruction
        if instruction is None:
            return None
        env_name = self.project.env_name
        return RetrievalInstruction(
            self,
            "RetrievalInstruction",
            config=instruction,
            name=bounded_name(f"{self._prefix}-instruction", 100),
            description=f"Retrieval instruction of {self.tenant_name} ({env_name})",
            tags={
                "akb:environment": env_name,
                "akb:tenant": self.tenant_name,
                **({"akb:cost-center": self.tenant.cost_center} if self.tenant.cost_center else {}),
            },
            removal_policy=self._removal,
        )

    def _build_observability(self, platform: PlatformStack, context: BuildContext) -> TenantObservability:
        """Dashboard, alarms (+ a composite that pages the environment's topic) and saved log queries.
        It reads the function's metrics and the tenant's EMF metrics (metric_names.py); the features add
        their rows, alarms and monitors."""
        return TenantObservability(
            self,
            "Observability",
            function=self.endpoint.function,
            log_group=self.endpoint_log_group,
            tenant=self.tenant_name,
            name=self._prefix,
            thresholds=tenant_thresholds(self.project.environment, self.tenant),
            topic=platform.alarms.topic,
            reserved_concurrency=self.tenant.reserved_concurrency,
            query_folder=query_folder(self.project.env_name, self.tenant_name),
            knowledge_bases={alias: kb.knowledge_base_id for alias, kb in self.knowledge_bases.items()},
            index_storage_price_per_gb_month=self.project.environment.pricing.index_storage_per_gb_month_usd,
            contributions=self.features.observability(context),
        )

    def _build_knowledge_base_policies(self, reader_role_arns: list[str]) -> dict[str, KnowledgeBasePolicy]:
        """Defence in depth: each knowledge base's own policy lets only this tenant's readers retrieve,
        whatever another identity policy of the account allows. Every door's role is a reader: the
        endpoint's and the roles the tenant's features add."""
        access = self.tenant.knowledge_base_access
        return {
            alias: KnowledgeBasePolicy(
                knowledge_base,
                "AccessPolicy",
                knowledge_base_id=knowledge_base.knowledge_base_id,
                knowledge_base_arn=knowledge_base.knowledge_base_arn,
                reader_role_arns=reader_role_arns,
                cross_account_readers=access.cross_account_readers,
                break_glass_role_arns=access.break_glass_roles,
            )
            for alias, knowledge_base in self.knowledge_bases.items()
        }


def _reads_document_bucket(tenant: Tenant) -> bool:
    return any(
        isinstance(source, S3Source) and source.bucket_arn is None
        for kb in tenant.knowledge_bases
        for source in kb.sources
    )
