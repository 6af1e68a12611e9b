"""Which endpoint the playground talks to, and what the page knows about its tenant before asking.

Three ways to name the endpoint, as `akb ask` has (docs/playground.md):

- `--local`: an `akb local` the playground starts itself (local_stack.py); the tenant's knowledge
  bases, descriptions and caps come from the config `akb local` runs it with;
- `--env E --tenant T`: a deployed tenant: the URL from SSM (client/endpoint_url.py), the tenant's
  knowledge bases from the same config files that deployed it;
- `--url U`: any endpoint (an `akb local` already running, a function URL, an API); with `--tenant T`
  the knowledge bases come from the config, without it the page lets the developer type aliases and
  offers the ones seen in the endpoint's answers (results and sub-queries name them).

Nothing here holds or forwards credentials: `page_json()` is everything the page is told.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.knowledge_base_summary import KnowledgeBaseSummary, summaries
from contract.enums import MODES
from schema import Project


@dataclass(frozen=True)
class TenantView:
    """The tenant as its config describes it; every field None/empty when the config is not known (--url)."""

    tenant: str | None = None
    environment: str | None = None
    description: str | None = None
    knowledge_bases: tuple[KnowledgeBaseSummary, ...] = ()
    max_agent_iteration: int | None = None
    max_results: int | None = None
    generate_response: bool = True
    default_mode: str = "agentic"
    conversations: bool | None = None  # None: unknown (the endpoint answers memory_not_enabled if off)
    cache: bool | None = None
    planner_type: str | None = None


@dataclass(frozen=True)
class Target:
    """The endpoint (`url`, signed or not, `region`) and how to describe it on the page."""

    url: str
    region: str | None
    signed: bool
    source: str  # "akb local", "deployed (SSM /akb/E/T/endpoint/url)", "--url"
    tenant: TenantView = field(default_factory=TenantView)
    corpus_root: Path | None = None  # akb local's corpus: whole documents can be shown (document_shelf.py)

    def page_json(self) -> dict[str, Any]:
        """What the page reads from /api/tenant: the endpoint's address and the tenant's config, no secret."""
        view = self.tenant
        return {
            "url": self.url,
            "signed": self.signed,
            "region": self.region,
            "source": self.source,
            "tenant": view.tenant,
            "environment": view.environment,
            "description": view.description,
            "knowledgeBases": [{"alias": kb.alias, "description": kb.description} for kb in view.knowledge_bases],
            "maxAgentIteration": view.max_agent_iteration,
            "maxResults": view.max_results,
            "generateResponse": view.generate_response,
            "defaultMode": view.default_mode,
            "modes": list(MODES),
            "conversations": view.conversations,
            "cache": view.cache,
            "plannerType": view.planner_type,
            "wholeDocuments": self.corpus_root is not None,
        }


def tenant_view(project: Project, tenant_name: str) -> TenantView:
    """The tenant of `project` (a validated config) as the page shows it; KeyError for an unknown tenant."""
    tenant = project.tenants[tenant_name]
    return TenantView(
        tenant=tenant_name,
        environment=project.env_name,
        description=tenant.description,
        knowledge_bases=summaries(tenant),
        max_agent_iteration=tenant.retrieval.max_agent_iteration,
        max_results=tenant.retrieval.max_results,
        generate_response=tenant.retrieval.generate_response,
        default_mode=tenant.routing.default_mode,
        conversations=tenant.memory_on,
        cache=tenant.cache_on,
        planner_type=project.environment.planner.type,
    )
