"""The whole documents the page may open beside a cited passage (`GET /api/document`).

The endpoint returns passages, not documents. Against `akb local` the documents are files of the
emulator's corpus (`<corpus>/<alias>/<document id>`), so the playground can show the whole text
around a passage. It does so only for documents an answer of this run returned to the page: a
document the endpoint did not return (say, one behind a document ACL the caller fails) is never
read. A deployed tenant's documents live in its bucket; the page then shows the passages of that
document the answer retrieved and its source URI.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from contract.events import Event, ResultEvent

TEXT_SUFFIXES = (".md", ".txt")
MAX_DOCUMENT_BYTES = 1024 * 1024


@dataclass(frozen=True)
class DocumentUnavailable(Exception):
    status: int
    code: str
    message: str


class DocumentShelf:
    """`remember` every relayed event; `read` a document one of them returned."""

    def __init__(self, corpus_root: Path | None) -> None:
        self.corpus_root = corpus_root.resolve() if corpus_root is not None else None
        self._returned: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def remember(self, event: Event) -> None:
        if isinstance(event, ResultEvent):
            with self._lock:
                self._returned.update(
                    (item.knowledgeBase, item.documentId) for item in event.results if item.documentId
                )

    def read(self, alias: str, document_id: str) -> str:
        if self.corpus_root is None:
            raise DocumentUnavailable(
                404,
                "no_document_source",
                "The endpoint returns passages, not whole documents, and this playground reads no bucket; "
                "the document is at its source URI.",
            )
        with self._lock:
            returned = (alias, document_id) in self._returned
        if not returned:
            raise DocumentUnavailable(404, "document_not_returned", "Only documents an answer returned can be opened.")
        folder = (self.corpus_root / alias).resolve()
        path = (folder / document_id).resolve()
        if not path.is_relative_to(folder) or not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            raise DocumentUnavailable(
                404, "no_text_document", "This source is not a text document of the local corpus."
            )
        if path.stat().st_size > MAX_DOCUMENT_BYTES:
            raise DocumentUnavailable(413, "document_too_large", f"The document is above {MAX_DOCUMENT_BYTES} bytes.")
        return path.read_text(encoding="utf-8", errors="replace")
