from __future__ import annotations

import json
from pathlib import Path

import pytest

from local.emulator import kb_id_for
from local.emulator.corpus import CorpusError, chunk_text, load_corpus


@pytest.fixture(scope="module")
def sample():
    return {kb.folder: kb for kb in load_corpus().values()}


def test_sample_corpus_has_the_tenant_folders_with_their_descriptions(sample):
    assert {name: len(kb.documents) for name, kb in sample.items()} == {
        "docs": 21,  # 20 text documents and one image
        "tickets": 15,
        "handbook": 5,
        "wiki": 5,
    }
    assert sample["docs"].description == "Public product documentation and API reference."
    assert sample["tickets"].kb_id == kb_id_for("tickets")


def test_side_files_give_metadata_and_acls(sample):
    export = sample["docs"].documents["skyledger/bulk-export.md"]
    assert export.attributes["product"] == "skyledger"
    assert export.allowed_users is None
    roadmap = sample["docs"].documents["internal/roadmap-2025.md"]
    assert roadmap.allowed_users == {"alice", "bob"}
    assert not roadmap.visible_to(None) and roadmap.visible_to("alice") and not roadmap.visible_to("mallory")


def test_chunks_follow_paragraphs_and_keep_headings_with_their_text():
    text = "# Title\n\n" + "word " * 100 + "\n\n## Next\n\n" + "more " * 100
    chunks = chunk_text(text, max_words=120)
    assert len(chunks) == 2
    assert chunks[0].startswith("# Title") and chunks[1].startswith("## Next")


def test_broken_side_file_names_the_file(tmp_path: Path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("hello")
    (kb / "a.md.acl.json").write_text(json.dumps({"users": "alice"}))
    with pytest.raises(CorpusError, match=r"a\.md\.acl\.json"):
        load_corpus(tmp_path)


def test_folder_without_descriptor_is_named_after_itself(tmp_path: Path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "x.txt").write_text("plain text document")
    (kb,) = load_corpus(tmp_path).values()
    assert (kb.name, kb.description, list(kb.documents)) == ("notes", "", ["x.txt"])
