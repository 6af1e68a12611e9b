"""The cache key: everything that changes a result, hashed; nothing else.

An entry is found by its *lookup key* and served only when its *version key* matches now:
- lookup key = hash(key schema, tenant, the caller's authorized scope (the userContext id the
  request runs with, or none), the normalized conversation, the filter, the knowledge-base set
  (aliases and ids), the retrieval strategy version);
- version key = hash(each of those knowledge bases' content version, the strategy version).
Together they are the key the design asks for (docs/cache.md); split in two so a version change
is seen as one (StaleRejected) and the stale entry is overwritten instead of left to its TTL.

The strategy version is a hash of every tenant setting and request option that changes what
comes back: planner type and model, reranking type and model, retrieval instruction id and
version, guardrail id and version, the iteration cap, max results, whether an answer is
generated, the mode asked for and, for `retrieve`/`auto`, the routing settings.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from contract.settings import TenantSettings
from lambdas.endpoint.cache.normalize import normalize_text
from lambdas.endpoint.request import Query

# Bumped whenever what a key covers or what an entry holds changes: old entries then never match.
KEY_SCHEMA = 2  # 2: issue 26 normalization (NFC + width folding, question-word case only)


def _digest(value: Any, length: int = 64) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:length]


def strategy_version(settings: TenantSettings, query: Query) -> str:
    """16 hex digits naming the retrieval strategy this request runs with."""
    strategy: dict[str, Any] = {
        "planner": [settings.planner_type, settings.planner_model_arn],
        "reranking": [settings.reranking_type, settings.reranking_model_arn],
        "instruction": [settings.retrieval_instruction_id, settings.retrieval_instruction_version],
        "guardrail": [settings.guardrail_id, settings.guardrail_version],
        "maxAgentIteration": query.max_agent_iteration,
        "maxResults": query.max_results,
        "generateResponse": query.generate_response,
        "mode": query.mode,
    }
    if query.mode != "agentic":
        strategy["routing"] = asdict(settings.routing)
    return _digest(strategy, 16)


def lookup_key(settings: TenantSettings, query: Query, scope: str | None, strategy: str) -> str:
    """What an entry is stored under (see the module docstring)."""
    retrievers = {}
    for alias in query.knowledge_bases:
        retriever = settings.retriever(alias)
        retrievers[alias] = retriever.knowledge_base_id if retriever else None
    return _digest(
        {
            "schema": KEY_SCHEMA,
            "tenant": settings.tenant,
            "scope": scope,
            "messages": [[role, normalize_text(text)] for role, text in query.messages],
            "filter": query.filter,
            "knowledgeBases": retrievers,
            "strategy": strategy,
        }
    )


def version_key(content_versions: Mapping[str, str], strategy: str) -> str:
    """16 hex digits: the content versions (knowledge-base id -> version) and the strategy together."""
    return _digest({"content": dict(content_versions), "strategy": strategy}, 16)
