"""A real lexical index (BM25 via bm25s) per knowledge base, with ACL and filter masking.

Scores are computed for every chunk and masked afterwards rather than pre-filtering the corpus:
the sample corpora are tiny, and masking keeps one index per knowledge base valid for every user
and filter.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np

from local.emulator.corpus import Chunk, Document, KnowledgeBase
from local.emulator.filter_match import matches
from local.emulator.text import tokenize


@dataclass(frozen=True)
class Hit:
    kb: KnowledgeBase
    document: Document
    chunk: Chunk
    score: float

    @property
    def metadata(self) -> dict[str, Any]:
        return self.kb.metadata_for(self.document, self.chunk)


class KnowledgeBaseIndex:
    """BM25 over one knowledge base's chunks."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.kb = kb
        self._entries: list[tuple[Document, Chunk]] = [
            (document, chunk) for document in kb.documents.values() for chunk in document.chunks
        ]
        self._lock = threading.Lock()
        # Ingested ACLs changed after start-up (ingestion.py's control call): document id -> users.
        self._acl: dict[str, frozenset[str] | None] = {}
        self._bm25: bm25s.BM25 | None = None
        if self._entries:
            corpus_tokens = [tokenize(chunk.text) or ["_empty_"] for _, chunk in self._entries]
            self._bm25 = bm25s.BM25()
            self._bm25.index(corpus_tokens, show_progress=False)

    def search(
        self, query: str, limit: int, user_id: str | None = None, where: Mapping[str, Any] | None = None
    ) -> list[Hit]:
        """Top `limit` chunks with a positive score that `user_id` may see and `where` admits."""
        terms = tokenize(query)
        if self._bm25 is None or not terms or limit < 1:
            return []
        with self._lock:
            scores = np.asarray(self._bm25.get_scores(terms), dtype=float)
        hits: list[Hit] = []
        for position in np.argsort(-scores, kind="stable"):
            score = float(scores[position])
            if score <= 0 or len(hits) >= limit:
                break
            document, chunk = self._entries[position]
            if not self.visible(document, user_id):
                continue
            hit = Hit(self.kb, document, chunk, score)
            if where is None or matches(where, hit.metadata):
                hits.append(hit)
        return hits

    def visible(self, document: Document, user_id: str | None) -> bool:
        """The document's ACL as ingested now: its side file, unless a control call replaced it."""
        if document.document_id not in self._acl:
            return document.visible_to(user_id)
        users = self._acl[document.document_id]
        return users is None or (user_id is not None and user_id in users)

    def set_allowed_users(self, document_id: str, users: frozenset[str] | None) -> None:
        self._acl[document_id] = users

    def reset_acls(self) -> None:
        """Back to the ACL side files of the corpus."""
        self._acl.clear()

    def document_hits(self, document_id: str) -> list[Hit]:
        """Every chunk of one document, in order (what FullDocumentExpansion reads)."""
        document = self.kb.documents[document_id]
        return [Hit(self.kb, document, chunk, 0.0) for chunk in document.chunks]
