"""Dataset validation: every problem named by line and field."""

from __future__ import annotations

import json

import pytest

from schema.eval_dataset import DatasetError, load_dataset, parse_lines


def line(**fields) -> str:
    return json.dumps(fields)


def good(**overrides) -> str:
    fields = {"id": "q1", "question": "How do refunds work?", "type": "single", "documents": ["docs/billing.md"]}
    fields.update(overrides)
    return json.dumps({k: v for k, v in fields.items() if v is not None})


def problems_of(*lines: str) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        parse_lines(list(lines), "set.jsonl")
    return caught.value.problems


def test_a_valid_dataset_parses_with_defaults():
    items = parse_lines(
        [
            good(),
            "",
            line(question="Who owns X?", type="multi-hop", documents=["a.md", "b.md"], spans=["team Y"]),
            line(id=3, question="Is there a moon base?", type="unanswerable"),
        ]
    )
    assert [i.id for i in items] == ["q1", "line-3", "3"]
    assert items[0].hops == 1 and items[0].answerable
    assert items[1].hops == 2 and items[1].spans == ("team Y",) and items[1].gold_count == 3
    assert items[2].hops == 0 and not items[2].answerable


def test_a_documents_entry_may_list_acceptable_alternatives():
    item = parse_lines([good(documents=["docs/a.md", ["docs/b.md", "tickets/b.md"]])])[0]
    assert item.documents == ("docs/a.md", ("docs/b.md", "tickets/b.md"))
    assert item.gold_count == 2
    assert "alternatives" in problems_of(good(documents=["docs/a.md", []]))[0]


def test_invalid_json_names_the_line():
    assert problems_of(good(), "{not json") == [
        "set.jsonl:2: not valid JSON (Expecting property name enclosed in double quotes at column 2)"
    ]


def test_every_problem_is_reported_with_line_and_field():
    problems = problems_of(
        good(type="multihop"),
        good(id="q2", question=""),
        good(id="q3", documents="docs/a.md"),
        good(id="q4", type="unanswerable"),
        good(id="q5", documents=[], spans=None),
        good(id="q6", type="multi-hop", hops=1),
        good(id="q7", hops=-1),
        good(id="q8", gold=["x"]),
        good(id="q1"),
        "[1, 2]",
    )
    assert problems == [
        'set.jsonl:1: type: must be one of single, multi-hop, comparison, unanswerable, got "multihop"',
        "set.jsonl:2: question: required, a non-empty string",
        "set.jsonl:3: documents: must be a list of document paths; an entry may be a list of alternatives (any "
        "one counts)",
        "set.jsonl:3: documents: an answerable question needs gold evidence (documents or spans)",
        "set.jsonl:4: documents: an unanswerable question has no gold evidence; remove documents and spans",
        "set.jsonl:5: documents: an answerable question needs gold evidence (documents or spans)",
        "set.jsonl:6: hops: a multi-hop question needs hops >= 2, got 1",
        "set.jsonl:7: hops: must be a whole number >= 0, got -1",
        "set.jsonl:8: gold: unknown field; allowed: id, question, type, hops, documents, spans, answer, "
        "knowledge_bases, notes",
        "set.jsonl:9: id: 'q1' already used on line 1",
        "set.jsonl:10: expected a JSON object",
    ]


def test_a_misspelt_field_gets_a_suggestion():
    assert problems_of(good(document=["x"], documents=["y"])) == [
        "set.jsonl:1: document: unknown field (did you mean 'documents'?); allowed: id, question, type, hops, "
        "documents, spans, answer, knowledge_bases, notes"
    ]


def test_empty_and_unreadable_files_are_errors(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    with pytest.raises(DatasetError, match="no questions"):
        load_dataset(empty)
    with pytest.raises(DatasetError, match="cannot read"):
        load_dataset(tmp_path / "missing.jsonl")


def test_fingerprint_changes_with_the_labels_not_with_the_line():
    one = parse_lines([good()])[0]
    moved = parse_lines(["", good()])[0]
    relabelled = parse_lines([good(documents=["docs/other.md"])])[0]
    assert one.fingerprint() == moved.fingerprint() != relabelled.fingerprint()
