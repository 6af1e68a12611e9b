"""Which whole documents the playground reads: returned ones, inside the corpus, text only."""

from __future__ import annotations

import pytest

from client.playground.document_shelf import DocumentShelf, DocumentUnavailable
from contract.events import ResultEvent, ResultItem


def returned(*items: tuple[str, str]) -> ResultEvent:
    return ResultEvent(results=[ResultItem(kb, "passage", documentId=document) for kb, document in items])


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "docs" / "api").mkdir(parents=True)
    (tmp_path / "docs" / "api" / "keys.md").write_text("# Keys\n\nRotate them.")
    (tmp_path / "docs" / "diagram.png").write_bytes(b"\x89PNG")
    (tmp_path / "secret.md").write_text("outside every knowledge base")
    return tmp_path


def code_of(shelf: DocumentShelf, kb: str, document: str) -> str:
    with pytest.raises(DocumentUnavailable) as refused:
        shelf.read(kb, document)
    return refused.value.code


def test_a_returned_document_is_read_whole(corpus):
    shelf = DocumentShelf(corpus)
    assert code_of(shelf, "docs", "api/keys.md") == "document_not_returned"
    shelf.remember(returned(("docs", "api/keys.md")))
    assert shelf.read("docs", "api/keys.md") == "# Keys\n\nRotate them."


def test_nothing_outside_the_knowledge_base_folder_or_not_text_is_read(corpus):
    shelf = DocumentShelf(corpus)
    shelf.remember(returned(("docs", "../secret.md"), ("docs", "diagram.png"), ("docs", "/etc/passwd")))
    assert code_of(shelf, "docs", "../secret.md") == "no_text_document"
    assert code_of(shelf, "docs", "diagram.png") == "no_text_document"
    assert code_of(shelf, "docs", "/etc/passwd") == "no_text_document"


def test_without_a_local_corpus_the_page_is_told_where_the_document_is():
    shelf = DocumentShelf(None)
    shelf.remember(returned(("docs", "api/keys.md")))
    assert code_of(shelf, "docs", "api/keys.md") == "no_document_source"
