"""Reciprocal Rank Fusion (Cormack, Clarke and Buettcher, SIGIR 2009) of ranked lists, deduplicated by chunk.

Scores of different knowledge bases are not on one scale, so the fused order uses ranks only:

    RRF(d) = sum over lists r containing d of 1 / (k + rank_r(d))      (rank from 1)

A chunk found by several lists is one item that remembers every list and rank it came from
(the multi-hit signal survives deduplication). Within one list a repeated chunk keeps its best
rank. Ties are broken by the best single rank, then by the order of the lists as given, so the
output is deterministic. RRF cannot add evidence no list found, and it ignores score gaps.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

DEFAULT_RRF_K = 60
CHUNK_ID_KEY = "x-amz-bedrock-kb-chunk-id"

T = TypeVar("T")


@dataclass(frozen=True)
class Fused(Generic[T]):
    """One deduplicated item: the first copy seen, its fused score and where it was found."""

    key: str
    item: T
    score: float
    ranks: Mapping[str, int]  # list name -> 1-based rank in that list

    @property
    def sources(self) -> list[str]:
        return list(self.ranks)


def chunk_key(result: Mapping[str, Any]) -> str:
    """A Bedrock result's identity: its chunk id, or a hash of its text when there is none."""
    chunk_id = (result.get("metadata") or {}).get(CHUNK_ID_KEY)
    if isinstance(chunk_id, str) and chunk_id:
        return chunk_id
    text = ((result.get("content") or {}).get("text")) or ""
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def reciprocal_rank_fusion(
    lists: Mapping[str, Sequence[T]],
    key: Callable[[T], str],
    k: int = DEFAULT_RRF_K,
    weights: Mapping[str, float] | None = None,
) -> list[Fused[T]]:
    """Fuses named ranked lists (best first) into one deduplicated list, best first.

    `weights` (default 1 per list) is the weighted extension sum w_r / (k + rank); plain RRF
    otherwise.
    """
    if k < 0:
        raise ValueError(f"rrf k must be >= 0, got {k}")
    list_order = {name: n for n, name in enumerate(lists)}
    first: dict[str, T] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, ranked in lists.items():
        for rank, item in enumerate(ranked, start=1):
            item_key = key(item)
            first.setdefault(item_key, item)
            ranks.setdefault(item_key, {}).setdefault(name, rank)  # best rank within one list wins
    fused = []
    for item_key, found in ranks.items():
        score = sum((weights or {}).get(name, 1.0) / (k + rank) for name, rank in found.items())
        fused.append(Fused(item_key, first[item_key], score, dict(found)))

    def order(entry: Fused[T]) -> tuple[float, int, int]:
        best_rank, best_list = min((rank, list_order[name]) for name, rank in entry.ranks.items())
        return (-entry.score, best_rank, best_list)

    return sorted(fused, key=order)
