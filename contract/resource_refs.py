"""What one construct hands another: identifiers (often CDK tokens), never whole constructs.

The knowledge, guardrail and instruction constructs expose these; the endpoint, the IAM policy
builders and observability take them. Keeping them plain data lets `policies/` stay CDK-free.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnowledgeBaseRef:
    alias: str
    description: str
    knowledge_base_id: str
    knowledge_base_arn: str


@dataclass(frozen=True)
class GuardrailRef:
    guardrail_id: str
    guardrail_arn: str
    guardrail_version: str


@dataclass(frozen=True)
class RetrievalInstructionRef:
    instruction_id: str
    instruction_arn: str
    version: str
