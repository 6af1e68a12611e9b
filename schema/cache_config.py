"""A tenant's `cache:` block: the result cache, off unless the block is there (docs/cache.md).

The cache stores whole answers (the `text` and `result` events) under a key that holds
everything that changes them, including each knowledge base's content version and the caller's
authorized scope; TTL is only a fallback. In AWS the tenant stack creates a DynamoDB table for
it; `akb local` uses a SQLite file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from contract.enums import MODES, Mode
from schema.common import StrictModel, unique

# DynamoDB items are at most 400 KB (ledger); the entry's other attributes and keys need room.
MAX_ENTRY_KB = 350
ALL_MODES: tuple[Mode, ...] = MODES


class Cache(StrictModel):
    """The per-tenant result cache."""

    enabled: bool = Field(True, description="Turn the cache off without deleting the block (the table stays).")
    ttl_seconds: int = Field(
        3600,
        ge=60,
        le=7 * 24 * 3600,
        description="Fallback expiry of an entry. Content versions and the access re-check invalidate first.",
    )
    max_entry_kb: int = Field(
        200,
        ge=1,
        le=MAX_ENTRY_KB,
        description=f"Larger answers are not stored (DynamoDB items hold 400 KB; at most {MAX_ENTRY_KB}).",
    )
    modes: list[Mode] = Field(
        default_factory=lambda: list(ALL_MODES),
        min_length=1,
        description="Modes whose answers are cached (the mode a request asks for).",
    )
    version_refresh_seconds: int = Field(
        60,
        ge=60,
        le=3600,
        description="How often the endpoint reads each knowledge base's latest COMPLETE ingestion job "
        "(at most once a minute); `akb ingest` publishes a new version at once.",
    )
    acl_recheck: Literal["all", "none"] | list[str] = Field(
        "all",
        description="Knowledge bases whose documents carry ACLs: on a hit, the caller's access to every "
        "document of these is re-checked (CheckIngestedDocumentAcl). `all`, `none`, or a list of aliases.",
    )

    @field_validator("modes")
    @classmethod
    def _distinct_modes(cls, value: list[str]) -> list[str]:
        unique(value, "cache mode")
        return value
