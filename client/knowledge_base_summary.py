"""A tenant's knowledge bases as people and agents read about them: the alias and the one sentence of the
tenant file. `akb mcp` writes them into its tool descriptions, `akb playground` onto its page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KnowledgeBaseSummary:
    alias: str
    description: str


def summaries(tenant: Any) -> tuple[KnowledgeBaseSummary, ...]:
    """Each knowledge base of a validated `schema.Tenant`, in the tenant file's order."""
    return tuple(KnowledgeBaseSummary(kb.alias, kb.description) for kb in tenant.knowledge_bases)
