"""Layered retrieval metrics over the ranking of distinct documents in a result.

The ranking is the order in which distinct documents first appear in the `result` event (several
chunks of one document count once, at the rank of the first). A gold document matches a ranked
document by any of its names; a gold span matches a document whose returned text contains it
(case and whitespace ignored). With gold G and the top k of the ranking:

- Recall@k        = gold items found in the top k / |G|
- Precision@k     = top-k ranks holding a document that satisfies some gold item / k
                    (divided by k even when fewer than k documents came back: the IR convention)
- Hit@k           = 1 if any gold item is found in the top k
- Completeness@k  = 1 only if every gold item is found in the top k (the evidence set is whole)
- Reciprocal rank = 1 / rank of the first relevant document (whole ranking; 0 if none); MRR is its mean

Abstention (for unanswerable questions) is the same rule for every mode: the result has no
results, or the mode generated an answer and it is blank. Retrieve mode never generates an
answer, so it abstains only by returning nothing — which single-shot retrieval rarely does
(it returns its top N regardless): that gap is what the metric shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import urlparse

from contract.events import ResultItem

DOCUMENT_ID_KEY = "x-amz-bedrock-kb-document-id"
SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"
CHUNK_ID_KEY = "x-amz-bedrock-kb-chunk-id"


@dataclass(frozen=True)
class RankedDocument:
    """One distinct document of a result: a stable key, every name it answers to, its returned text."""

    key: str
    names: frozenset[str]
    text: str = ""


@dataclass(frozen=True)
class Judged:
    """A ranking judged against gold evidence: enough to compute every metric at any k."""

    gold_ranks: tuple[int | None, ...]  # per gold item: the first 1-based rank that satisfies it
    relevant: tuple[bool, ...]  # per ranked document: does it satisfy any gold item

    @property
    def gold_count(self) -> int:
        return len(self.gold_ranks)


def _normalize(text: str) -> str:
    return " ".join(text.split()).casefold()


def _names(item: ResultItem) -> tuple[str, frozenset[str]]:
    metadata = item.metadata or {}
    document_id = item.documentId or metadata.get(DOCUMENT_ID_KEY)
    source_uri = metadata.get(SOURCE_URI_KEY)
    names: set[str] = set()
    key = None
    if isinstance(document_id, str) and document_id:
        key = f"{item.knowledgeBase}/{document_id}" if item.knowledgeBase else document_id
        names |= {document_id, key}
    if isinstance(source_uri, str) and source_uri:
        names.add(source_uri)
        path = urlparse(source_uri).path.lstrip("/")
        if path:
            names.add(path)
        key = key or source_uri
    if key is None:
        chunk_id = metadata.get(CHUNK_ID_KEY)
        key = (
            chunk_id
            if isinstance(chunk_id, str) and chunk_id
            else ("sha256:" + hashlib.sha256(item.text.encode("utf-8")).hexdigest()[:16])
        )
        names.add(key)
    return key, frozenset(names)


def rank_documents(results: Iterable[ResultItem]) -> list[RankedDocument]:
    """Distinct documents in order of first appearance; a document's text joins all its chunks."""
    order: list[str] = []
    names: dict[str, set[str]] = {}
    texts: dict[str, list[str]] = {}
    for item in results:
        key, item_names = _names(item)
        if key not in names:
            order.append(key)
            names[key], texts[key] = set(), []
        names[key] |= item_names
        texts[key].append(item.text or "")
    return [RankedDocument(key, frozenset(names[key]), "\n".join(texts[key])) for key in order]


def document_matches(gold: str, document: RankedDocument) -> bool:
    """Exact name, or a name ending in `/<gold>` (an S3 key `tenant/docs/billing.md` matches `docs/billing.md`)."""
    gold = gold.strip().lstrip("/")
    return any(name == gold or name.endswith("/" + gold) for name in document.names)


def span_matches(span: str, document: RankedDocument) -> bool:
    return _normalize(span) in _normalize(document.text)


def judge(documents: Sequence[str | Sequence[str]], spans: Sequence[str], ranking: Sequence[RankedDocument]) -> Judged:
    """Gold documents (an entry may be a list of acceptable alternatives) and spans against a ranking."""
    alternatives = [(g,) if isinstance(g, str) else tuple(g) for g in documents]
    checks = [lambda d, alts=alts: any(document_matches(a, d) for a in alts) for alts in alternatives]
    checks += [lambda d, s=s: span_matches(s, d) for s in spans]
    satisfied = [[check(document) for check in checks] for document in ranking]
    gold_ranks = tuple(
        next((rank for rank, row in enumerate(satisfied, start=1) if row[n]), None) for n in range(len(checks))
    )
    return Judged(gold_ranks, tuple(any(row) for row in satisfied))


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def recall_at(judged: Judged, k: int) -> float:
    _check_k(k)
    if not judged.gold_count:
        raise ValueError("recall is undefined without gold evidence")
    return sum(1 for rank in judged.gold_ranks if rank is not None and rank <= k) / judged.gold_count


def precision_at(judged: Judged, k: int) -> float:
    _check_k(k)
    return sum(judged.relevant[:k]) / k


def hit_at(judged: Judged, k: int) -> float:
    _check_k(k)
    return 1.0 if any(judged.relevant[:k]) else 0.0


def complete_at(judged: Judged, k: int) -> float:
    _check_k(k)
    return 1.0 if judged.gold_ranks and all(r is not None and r <= k for r in judged.gold_ranks) else 0.0


def reciprocal_rank(judged: Judged) -> float:
    first = next((rank for rank, relevant in enumerate(judged.relevant, start=1) if relevant), None)
    return 1.0 / first if first else 0.0


def abstained(result_count: int, answer: str | None) -> bool:
    """No results, or a generated answer that is blank (see the module docstring)."""
    return result_count == 0 or (answer is not None and not answer.strip())


def mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


def percentile(values: Iterable[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]
