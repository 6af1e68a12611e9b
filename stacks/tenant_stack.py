"""`<env>-<tenant>`: one tenant's knowledge, guardrail, endpoint and monitoring.

The stack only composes constructs; each construct lives in its own file.
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from constructs import Construct

from cdk_constructs.agentcore_memory import ConversationMemory, memory_name
from cdk_constructs.api_front_door import STAGE as API_STAGE
from cdk_constructs.bedrock_agent import TenantAgent
from cdk_constructs.cache_table import CacheTable
from cdk_constructs.document_bucket import DocumentBucket
from cdk_constructs.guardrail import Guardrail
from cdk_constructs.ingestion_logs import IngestionLogs
from cdk_constructs.knowledge_base import KnowledgeBase
from cdk_constructs.knowledge_base_policy import KnowledgeBasePolicy
from cdk_constructs.knowledge_outputs import publish_knowledge
from cdk_constructs.log_group import log_group
from cdk_constructs.mcp_gateway import McpGatewayConstruct
from cdk_constructs.removal import removal_policy
from cdk_constructs.retrieval_instruction import RetrievalInstruction
from cdk_constructs.streaming_endpoint import StreamingEndpoint, token_lengths
from contract.resource_names import (
    bounded_name,
    cache_table_name,
    endpoint_log_group_name,
    ingestion_log_group_name,
    ingestion_metric_namespace,
    query_folder,
    resource_prefix,
)
from monitoring.agent_observability import AgentObservability
from monitoring.api_metrics import ApiMetrics
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
        **kwargs: Any,
    ):
        super().__init__(scope, construct_id, **kwargs)
        self.project = project
        self.tenant_name = tenant_name
        self.tenant: Tenant = project.tenants[tenant_name]
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
        self.ingestion_logs = self._build_ingestion_logs()
        # The result cache's table, when the tenant has a `cache:` block (docs/cache.md).
        self.cache_table = (
            CacheTable(self, "ResultCache", table_name=cache_table_name(project.env_name, tenant_name))
            if self.tenant.cache is not None
            else None
        )
        self.memory = self._build_memory()
        # The endpoint, below the knowledge it serves: its role reaches these resources and no others.
        self.endpoint = self._build_endpoint()
        # Opt-in: the same knowledge as MCP tools behind an AgentCore Gateway, with the endpoint's
        # identity rules in its interceptor (docs/agents.md). Its role reads the knowledge bases too.
        self.gateway = self._build_gateway() if self.tenant.gateway else None
        # The agent (docs/agents.md), when the tenant has an `agent:` block: its action group runs agentic retrieval.
        self.agent = self._build_agent() if self.tenant.agent is not None else None
        readers = [self.endpoint.role.role_arn, *([self.gateway.role.role_arn] if self.gateway else [])]
        readers += [self.agent.function_role.role_arn] if self.agent else []
        self.knowledge_base_policies = self._build_knowledge_base_policies(readers)
        # The agent's function alarms join the tenant's composite (one page per tenant).
        self.agent_observability = (
            AgentObservability(self, "AgentObservability", agent=self.agent, name=self._prefix) if self.agent else None
        )
        self.observability = self._build_observability(platform)

    def _build_endpoint(self) -> StreamingEndpoint:
        return StreamingEndpoint(
            self,
            "Endpoint",
            project=self.project,
            tenant_name=self.tenant_name,
            knowledge_bases=[kb.ref for kb in self.knowledge_bases.values()],
            guardrail=self.guardrail.ref if self.guardrail else None,
            retrieval_instruction=self.retrieval_instruction.ref if self.retrieval_instruction else None,
            log_group=self.endpoint_log_group,
            cache_table=self.cache_table,
            memory=self.memory,
        )

    def _build_memory(self) -> ConversationMemory | None:
        """The tenant's AgentCore Memory, when its config turns conversations on (docs/conversations.md)."""
        if not self.tenant.memory_on or self.tenant.memory is None:
            return None
        return ConversationMemory(
            self,
            "ConversationMemory",
            memory=self.tenant.memory,
            name=memory_name(self.project.env_name, self.tenant_name),
            description=f"Conversations of tenant {self.tenant_name} ({self.project.env_name})",
        )

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

    def _build_agent(self) -> TenantAgent:
        knowledge_bases = [kb.ref for kb in self.knowledge_bases.values()]
        guardrail = self.guardrail.ref if self.guardrail else None
        instruction = self.retrieval_instruction.ref if self.retrieval_instruction else None
        return TenantAgent(
            self,
            "Agent",
            project=self.project,
            tenant_name=self.tenant_name,
            settings=self.endpoint.settings,
            knowledge_bases=knowledge_bases,
            guardrail=guardrail,
            token_lengths=token_lengths(knowledge_bases, guardrail, instruction),
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

    def _build_observability(self, platform: PlatformStack) -> TenantObservability:
        """Dashboard, alarms (+ a composite that pages the environment's topic) and saved log queries.
        It reads the function's metrics and the tenant's EMF metrics (metric_names.py)."""
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
            cache=self.tenant.cache is not None,
            knowledge_bases={alias: kb.knowledge_base_id for alias, kb in self.knowledge_bases.items()},
            index_storage_price_per_gb_month=self.project.environment.pricing.index_storage_per_gb_month_usd,
            ingestion=(
                (self.ingestion_logs.log_group, ingestion_metric_namespace(self.project.env_name, self.tenant_name))
                if self.ingestion_logs
                else None
            ),
            gateway=self.gateway.metrics if self.gateway else None,
            interceptor=self.gateway.interceptor if self.gateway else None,
            extra_alarms=self.agent_observability.alarms if self.agent_observability else (),
            # api_gateway front door: the REST API stage's metrics (monitoring/api_metrics.py)
            api=ApiMetrics(self.endpoint.api.api.rest_api_name, API_STAGE) if self.endpoint.api else None,
        )

    def _build_ingestion_logs(self) -> IngestionLogs | None:
        """Each knowledge base's APPLICATION_LOGS, delivered to one log group (cdk_constructs/ingestion_logs.py)."""
        if not self.tenant.ingestion_logs:
            return None
        return IngestionLogs(
            self,
            "IngestionLogs",
            environment=self.project.environment,
            log_group_name=ingestion_log_group_name(self.project.env_name, self.tenant_name),
            name_prefix=self._prefix,
            knowledge_bases={alias: kb.knowledge_base_arn for alias, kb in self.knowledge_bases.items()},
        )

    def _build_gateway(self) -> McpGatewayConstruct:
        return McpGatewayConstruct(
            self,
            "McpGateway",
            project=self.project,
            tenant_name=self.tenant_name,
            knowledge_bases=[kb.ref for kb in self.knowledge_bases.values()],
            log_group_name=f"{endpoint_log_group_name(self.project.env_name, self.tenant_name)}-mcp-interceptor",
            guardrail=self.guardrail.ref if self.guardrail else None,
            retrieval_instruction=self.retrieval_instruction.ref if self.retrieval_instruction else None,
        )

    def _build_knowledge_base_policies(self, reader_role_arns: list[str]) -> dict[str, KnowledgeBasePolicy]:
        """Defence in depth: each knowledge base's own policy lets only this tenant's readers retrieve,
        whatever another identity policy of the account allows. Every front door's role is a reader:
        the endpoint's and, with `gateway:`, the MCP gateway's."""
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
