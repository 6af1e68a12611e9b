"""The tenant settings the endpoint runs with, delivered at deploy time in one environment variable.

The stack renders `TenantSettings` to compact JSON in `AKB_TENANT_SETTINGS` (Lambda allows 4 KB of
environment in total; the stack checks the size at synth). `akb local` builds the same object from
the dev config and the emulator's knowledge-base ids. The service never reads config files.

The settings are dataclasses; `from_json` validates the whole document strictly (nested retrievers
and routing included; strict_json.py, without pydantic, which would cost a cold start tens of
milliseconds of schema building) and refuses unknown fields, so a settings JSON this code does not
understand stops the function at start-up instead of being half-read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from contract import strict_json
from contract.enums import MODES, Mode, UserContextMode


@dataclass(frozen=True)
class Retriever:
    alias: str
    knowledge_base_id: str
    description: str


@dataclass(frozen=True)
class RoutingSettings:
    """Which path a question takes (`mode`), and the thresholds of the `auto` router (docs/routing.md).

    Rendered from the tenant config's `routing:` block; every field has the schema's default so an
    older settings JSON without it still loads.
    """

    default_mode: Mode = "agentic"  # used when a request names no mode
    rrf_k: int = 60
    max_words_for_retrieve: int = 12
    max_intents_for_retrieve: int = 1
    max_knowledge_bases_for_retrieve: int = 5
    comparison_to_agentic: bool = True
    time_range_to_agentic: bool = True
    exploratory_to_agentic: bool = True


@dataclass(frozen=True)
class CacheSettings:
    """The tenant's result cache (docs/cache.md), rendered from its config's `cache:` block.

    Absent (`TenantSettings.cache is None`) means off. Where entries live is not a setting: the
    endpoint's environment names the DynamoDB table (AWS) or the SQLite file (`akb local`).
    """

    ttl_seconds: int = 3600  # fallback only: versions and ACLs invalidate first
    max_entry_bytes: int = 200_000
    modes: list[Mode] = field(default_factory=lambda: list(MODES))
    version_refresh_seconds: int = 60  # ListIngestionJobs at most this often per knowledge base
    acl_knowledge_bases: list[str] = field(default_factory=list)  # aliases re-checked on a hit


@dataclass(frozen=True)
class MemorySettings:
    """The tenant's AgentCore Memory (docs/conversations.md), rendered from its config's `memory:` block.

    Absent (`TenantSettings.memory is None`) means no conversations: a request's `sessionId` is refused.
    """

    memory_id: str  # the AWS::BedrockAgentCore::Memory's MemoryId (a token at synth, a local id locally)
    required: bool = False  # refuse requests whose end user cannot be verified
    # `/actors/{actorId}/facts`-style template the planner may read, resolved per request; None: none.
    retrieval_namespace: str | None = None


def bucket_capacity(per_minute: float, burst_seconds: float) -> float:
    """How many requests a token bucket refilling at `per_minute` holds: `burst_seconds` of its rate, at least
    one (a bucket that can never hold a whole token would refuse forever); 0 for a rate of 0. The stack
    (the reserve it renders) and the endpoint (its buckets) both size buckets with this one function."""
    if per_minute <= 0:
        return 0.0
    return max(1.0, per_minute * burst_seconds / 60)


@dataclass(frozen=True)
class QuotaSettings:
    """The tenant's fair share of the account's AgenticRetrieveStream quota (docs/quota.md), rendered from
    the environment's `quota:` block and the tenant's.

    Absent (`TenantSettings.quota is None`) means no fair sharing: every agentic request goes to Bedrock,
    whose own throttling is retried as always. Where the buckets live is not a setting: the endpoint's
    environment names the DynamoDB table (AWS) or the SQLite file (`akb local`).
    """

    account_per_minute: float  # the account's quota (requests per minute), the shared bucket's rate
    guaranteed_per_minute: float  # this tenant's guaranteed share (0: best effort, borrowing only)
    burst_per_minute: float  # the most it may use, guarantee and borrowed together (>= guaranteed)
    # Tokens the shared bucket keeps for the other tenants' guarantees (the sum of their buckets'
    # capacities) plus one: borrowing never takes the shared bucket below it.
    reserve_tokens: float
    # The shared bucket's capacity: `burst_seconds` of the account's rate, and never less than every
    # guarantee bucket together plus two (so a tenant can borrow while every reserve is kept).
    account_tokens: float
    burst_seconds: float = 10.0  # each bucket holds this many seconds of its rate (bucket_capacity)

    @classmethod
    def for_tenant(
        cls,
        tenant: str,
        account_per_minute: float,
        guaranteed: Mapping[str, float],
        burst: Mapping[str, float],
        burst_seconds: float,
    ) -> QuotaSettings:
        """`tenant`'s settings among every tenant of the environment (`guaranteed`, `burst`: per minute, by
        tenant): the reserve and the shared bucket's size depend on every tenant's guarantee."""
        capacities = {name: bucket_capacity(rate, burst_seconds) for name, rate in guaranteed.items()}
        return cls(
            account_per_minute=account_per_minute,
            guaranteed_per_minute=guaranteed[tenant],
            burst_per_minute=burst[tenant],
            reserve_tokens=sum(capacity for name, capacity in capacities.items() if name != tenant) + 1,
            account_tokens=max(bucket_capacity(account_per_minute, burst_seconds), sum(capacities.values()) + 2),
            burst_seconds=burst_seconds,
        )


@dataclass(frozen=True)
class TenantSettings:
    tenant: str
    environment: str
    retrievers: list[Retriever]
    planner_type: str = "MANAGED"  # MANAGED | CUSTOM
    planner_model_arn: str | None = None
    # MANAGED | CUSTOM | NONE; None: rerankingModelType is not sent and the service default applies
    # (MANAGED for managed-embedding knowledge bases, NONE for custom-embedding ones; botocore).
    reranking_type: str | None = None
    reranking_model_arn: str | None = None
    guardrail_id: str | None = None
    guardrail_version: str | None = None
    retrieval_instruction_id: str | None = None
    retrieval_instruction_version: str | None = None
    max_agent_iteration: int = 3
    max_results: int = 10
    generate_response: bool = True
    user_context: UserContextMode = "none"
    trusted_callers: list[str] = field(default_factory=list)
    # Roles whose session name the tenant vouches for as the end user's id (identity.py).
    session_name_callers: list[str] = field(default_factory=list)
    deadline_seconds: int = 290
    max_body_bytes: int = 65536
    agentic_price_per_1000_usd: float = 4.0
    retrieve_price_per_1000_usd: float = 1.0
    # Attempts at opening the upstream stream (throttling and transient 5xx, before the first byte).
    upstream_max_attempts: int = 3
    routing: RoutingSettings = field(default_factory=RoutingSettings)
    cache: CacheSettings | None = None
    memory: MemorySettings | None = None
    quota: QuotaSettings | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TenantSettings:
        """Raises ValueError (strict_json.StrictJsonError) naming each field that is wrong."""
        try:
            data = json.loads(text)
        except ValueError as error:
            raise strict_json.StrictJsonError(f"the tenant settings are not JSON: {error}") from None
        return strict_json.load(cls, data)

    @classmethod
    def from_environment(cls) -> TenantSettings:
        from contract.env_vars import TENANT_SETTINGS

        text = os.environ.get(TENANT_SETTINGS)
        if not text:
            raise RuntimeError(f"{TENANT_SETTINGS} is not set: the endpoint needs its tenant settings")
        return cls.from_json(text)

    def retriever(self, alias: str) -> Retriever | None:
        return next((item for item in self.retrievers if item.alias == alias), None)

    def require_retriever(self, alias: str) -> Retriever:
        """The retriever of an alias request.py already admitted; a miss is a bug, answered as a 500."""
        retriever = self.retriever(alias)
        if retriever is None:
            raise LookupError(f"knowledge base alias '{alias}' is not one of the tenant's")
        return retriever
