"""Publishes what `akb` commands and application teams need to find a tenant's knowledge resources.

Each value becomes a stack output and an SSM parameter `/akb/<env>/<tenant>/<key>` (cdk_constructs/stack_outputs.py);
the keys come from contract/resource_names.py, which `akb ingest` reads too.
"""

from __future__ import annotations

from constructs import Construct

from cdk_constructs.document_bucket import DocumentBucket
from cdk_constructs.guardrail import Guardrail
from cdk_constructs.knowledge_base import KnowledgeBase
from cdk_constructs.retrieval_instruction import RetrievalInstruction
from cdk_constructs.stack_outputs import publish
from contract import resource_names as naming


def publish_knowledge(
    scope: Construct,
    *,
    env_name: str,
    tenant: str,
    documents: DocumentBucket | None,
    knowledge_bases: dict[str, KnowledgeBase],
    guardrail: Guardrail | None,
    instruction: RetrievalInstruction | None,
) -> None:
    def put(key: str, value: str, description: str) -> None:
        publish(scope, env_name, tenant, key, value, description)

    if documents:
        put(naming.DOCUMENTS_BUCKET_KEY, documents.bucket_name, f"Document bucket of tenant {tenant}")
    for alias, kb in knowledge_bases.items():
        put(naming.knowledge_base_key(alias, "id"), kb.knowledge_base_id, f"Knowledge base id of {alias}")
        put(naming.knowledge_base_key(alias, "arn"), kb.knowledge_base_arn, f"Knowledge base ARN of {alias}")
        for index, source in enumerate(kb.data_sources):
            what = f"data source {index} ({source.source.type}) of {alias}"
            put(naming.data_source_key(alias, index, "id"), source.data_source_id, f"Id of {what}")
            if source.bucket_name and source.prefix is not None:  # an s3 source: both are set
                put(naming.data_source_key(alias, index, "bucket"), source.bucket_name, f"Bucket of {what}")
                put(naming.data_source_key(alias, index, "prefix"), source.prefix, f"Key prefix of {what}")
    if guardrail:
        put(naming.GUARDRAIL_ID_KEY, guardrail.guardrail_id, f"Guardrail id of tenant {tenant}")
        put(naming.GUARDRAIL_ARN_KEY, guardrail.guardrail_arn, f"Guardrail ARN of tenant {tenant}")
        put(naming.GUARDRAIL_VERSION_KEY, guardrail.guardrail_version, f"Guardrail version of tenant {tenant}")
    if instruction:
        put(naming.INSTRUCTION_ID_KEY, instruction.instruction_id, f"Retrieval instruction id of tenant {tenant}")
        put(naming.INSTRUCTION_ARN_KEY, instruction.instruction_arn, f"Retrieval instruction ARN of tenant {tenant}")
