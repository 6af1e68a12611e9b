"""The tenant settings the endpoint runs with, delivered at deploy time in one environment variable.

The stack renders `TenantSettings` to compact JSON in `AKB_TENANT_SETTINGS` (Lambda allows 4 KB of
environment in total; the stack checks the size at synth). `akb local` builds the same object from
the dev config and the emulator's knowledge-base ids. The service never reads config files.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

ENV_VAR = "AKB_TENANT_SETTINGS"


@dataclass(frozen=True)
class Retriever:
    alias: str
    knowledge_base_id: str
    description: str


@dataclass(frozen=True)
class TenantSettings:
    tenant: str
    environment: str
    retrievers: list[Retriever]
    planner_type: str = "MANAGED"  # MANAGED | CUSTOM
    planner_model_arn: str | None = None
    reranking_type: str = "MANAGED"  # MANAGED | CUSTOM | NONE
    reranking_model_arn: str | None = None
    guardrail_id: str | None = None
    guardrail_version: str | None = None
    retrieval_instruction_id: str | None = None
    retrieval_instruction_version: str | None = None
    max_agent_iteration: int = 3
    max_results: int = 10
    generate_response: bool = True
    user_context: str = "none"  # none | caller | trusted
    trusted_callers: list[str] = field(default_factory=list)
    deadline_seconds: int = 290
    max_body_bytes: int = 65536
    agentic_price_per_1000_usd: float = 4.0
    retrieve_price_per_1000_usd: float = 1.0
    # Attempts at opening the upstream stream (throttling and transient 5xx, before the first byte).
    upstream_max_attempts: int = 3
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TenantSettings:
        data = json.loads(text)
        data["retrievers"] = [Retriever(**item) for item in data.get("retrievers", [])]
        return cls(**data)

    @classmethod
    def from_environment(cls) -> TenantSettings:
        text = os.environ.get(ENV_VAR)
        if not text:
            raise RuntimeError(f"{ENV_VAR} is not set: the endpoint needs its tenant settings")
        return cls.from_json(text)

    def retriever(self, alias: str) -> Retriever | None:
        return next((item for item in self.retrievers if item.alias == alias), None)
