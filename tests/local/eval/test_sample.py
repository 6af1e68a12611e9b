"""The sample dataset is valid and every gold document exists in the emulator's sample corpus."""

from __future__ import annotations

from collections import Counter

from local.emulator.corpus import DEFAULT_CORPUS, load_corpus
from schema.eval_dataset import TYPES, load_dataset
from tests.conftest import REPO

SAMPLE = REPO / "local" / "eval" / "sample.jsonl"


def _gold_paths(item) -> list[str]:
    return [path for entry in item.documents for path in ((entry,) if isinstance(entry, str) else entry)]


def test_the_sample_has_at_least_40_questions_of_every_type():
    items = load_dataset(SAMPLE)
    counts = Counter(item.type for item in items)
    assert len(items) >= 40
    assert set(counts) == set(TYPES) and min(counts.values()) >= 5
    assert max(item.hops for item in items) >= 3


def test_every_gold_document_exists_in_the_corpus_and_is_visible_without_an_acl():
    documents = {
        f"{kb.folder}/{document_id}": document
        for kb in load_corpus(DEFAULT_CORPUS).values()
        for document_id, document in kb.documents.items()
    }
    missing, restricted = [], []
    for item in load_dataset(SAMPLE):
        for path in _gold_paths(item):
            if path not in documents:
                missing.append(f"{item.id}: {path}")
            elif documents[path].allowed_users is not None:
                restricted.append(f"{item.id}: {path}")
    assert not missing, f"gold documents not in {DEFAULT_CORPUS}: {missing}"
    assert not restricted, f"gold documents an anonymous caller cannot see: {restricted}"
