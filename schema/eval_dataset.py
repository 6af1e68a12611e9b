"""The evaluation dataset: one JSON object per line, gold evidence labelled by document, not by chunk.

Labels name documents (a path relative to the knowledge base, prefixed with its alias:
`docs/billing.md`) or quote text spans that must appear in a result, never chunk ids: re-chunking
changes chunk ids and counts, and would silently invalidate the labels.

    {"id": "billing-1", "question": "...", "type": "single", "hops": 1,
     "documents": ["docs/billing.md", ["docs/plans.md", "docs/pricing.md"]],
     "spans": ["refunds within 30 days"],
     "answer": "optional reference answer", "knowledge_bases": ["docs"]}

A `documents` entry that is a list is one gold item with acceptable alternatives: any of them
satisfies it (the same fact stated in two documents).

Every problem is reported with its line and field, all at once, so a dataset is fixed in one pass.
It lives in schema/ because a tenant's `quality:` block names a golden set in this format, and the config loader
validates it with the tenant file (schema/quality_config.py); `akb eval` reads any dataset with it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

TYPES = ("single", "multi-hop", "comparison", "unanswerable")
FIELDS = ("id", "question", "type", "hops", "documents", "spans", "answer", "knowledge_bases", "notes")


class DatasetError(ValueError):
    """Every problem found in a dataset file, one `file:line: field: message` per line."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class EvalItem:
    id: str
    question: str
    type: str
    hops: int
    documents: tuple[str | tuple[str, ...], ...] = ()
    spans: tuple[str, ...] = ()
    answer: str | None = None
    knowledge_bases: tuple[str, ...] = ()
    line: int = 0

    @property
    def answerable(self) -> bool:
        return self.type != "unanswerable"

    @property
    def gold_count(self) -> int:
        return len(self.documents) + len(self.spans)

    def fingerprint(self) -> str:
        """Changes whenever the question or its labels change, so a resumed run re-asks it."""
        data = asdict(self)
        data.pop("line")
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def _string_list(value: Any, field: str, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append(f"{field}: must be a list of non-empty strings")
        return ()
    if len(set(value)) != len(value):
        problems.append(f"{field}: lists an entry twice")
    return tuple(v.strip() for v in value)


def _documents(value: Any, problems: list[str]) -> tuple[str | tuple[str, ...], ...]:
    if value is None:
        return ()

    def valid(entry: Any) -> bool:
        if isinstance(entry, str):
            return bool(entry.strip())
        return isinstance(entry, list) and bool(entry) and all(isinstance(e, str) and e.strip() for e in entry)

    if not isinstance(value, list) or not all(valid(entry) for entry in value):
        problems.append(
            "documents: must be a list of document paths; an entry may be a list of alternatives (any one counts)"
        )
        return ()
    entries = tuple(e.strip() if isinstance(e, str) else tuple(x.strip() for x in e) for e in value)
    if len(set(entries)) != len(entries):
        problems.append("documents: lists an entry twice")
    return entries


def parse_item(data: Any, line: int) -> tuple[EvalItem | None, list[str]]:
    """One line's item, or the problems with it (each prefixed with its field)."""
    if not isinstance(data, dict):
        return None, ["expected a JSON object"]
    problems: list[str] = []
    for key in data:
        if key not in FIELDS:
            close = difflib.get_close_matches(str(key), FIELDS, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(f"{key}: unknown field{hint}; allowed: {', '.join(FIELDS)}")
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        problems.append("question: required, a non-empty string")
    kind = data.get("type")
    if kind not in TYPES:
        problems.append(f"type: must be one of {', '.join(TYPES)}, got {json.dumps(kind)}")
    documents = _documents(data.get("documents"), problems)
    spans = _string_list(data.get("spans"), "spans", problems)
    knowledge_bases = _string_list(data.get("knowledge_bases"), "knowledge_bases", problems)
    item_id = data.get("id", f"line-{line}")
    if not isinstance(item_id, str | int) or isinstance(item_id, bool) or not str(item_id).strip():
        problems.append("id: must be a non-empty string or number")
    answer = data.get("answer")
    if answer is not None and not isinstance(answer, str):
        problems.append("answer: must be a string")
    # Unanswerable: 0 hops; single: 1; multi-hop and comparison: one hop per gold document.
    default_hops = {"unanswerable": 0, "single": 1}.get(str(kind), max(1, len(documents)))
    hops = data.get("hops", default_hops)
    if not isinstance(hops, int) or isinstance(hops, bool) or hops < 0:
        problems.append(f"hops: must be a whole number >= 0, got {json.dumps(hops)}")
    elif kind == "multi-hop" and hops < 2:
        problems.append(f"hops: a multi-hop question needs hops >= 2, got {hops}")
    if kind == "unanswerable" and (documents or spans):
        problems.append("documents: an unanswerable question has no gold evidence; remove documents and spans")
    if kind in TYPES and kind != "unanswerable" and not (documents or spans):
        problems.append("documents: an answerable question needs gold evidence (documents or spans)")
    if problems or not isinstance(question, str) or not isinstance(kind, str):  # the checks above, for mypy
        return None, problems
    return (
        EvalItem(
            id=str(item_id).strip(),
            question=question.strip(),
            type=kind,
            hops=hops,
            documents=documents,
            spans=spans,
            answer=answer,
            knowledge_bases=knowledge_bases,
            line=line,
        ),
        [],
    )


def scan_lines(lines: list[str], source: str = "<dataset>") -> tuple[list[EvalItem], list[str]]:
    """The valid items and every problem (`source:line: field: message`), so a caller can check the valid items
    further and still report everything at once."""
    items: list[EvalItem] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            problems.append(f"{source}:{number}: not valid JSON ({error.msg} at column {error.colno})")
            continue
        item, item_problems = parse_item(data, number)
        problems.extend(f"{source}:{number}: {problem}" for problem in item_problems)
        raw_id = str(data.get("id", f"line-{number}")).strip() if isinstance(data, dict) else None
        if raw_id is not None and raw_id in seen:  # checked on invalid lines too: one pass finds all
            problems.append(f"{source}:{number}: id: '{raw_id}' already used on line {seen[raw_id]}")
            continue
        if raw_id is not None:
            seen[raw_id] = number
        if item is not None:
            items.append(item)
    if not items and not problems:
        problems.append(f"{source}: no questions (expected one JSON object per line)")
    return items, problems


def parse_lines(lines: list[str], source: str = "<dataset>") -> list[EvalItem]:
    items, problems = scan_lines(lines, source)
    if problems:
        raise DatasetError(problems)
    return items


def read_lines(path: Path) -> list[str]:
    """The file's lines, or a DatasetError naming the file."""
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError([f"{path}: cannot read ({error})"]) from None


def load_dataset(path: Path) -> list[EvalItem]:
    """All items of a JSONL file, or a DatasetError listing every problem by line and field."""
    return parse_lines(read_lines(path), str(path))
