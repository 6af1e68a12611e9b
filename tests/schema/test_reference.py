"""The configuration reference in README.md is the one the schema generates."""

from __future__ import annotations

from schema.reference import BEGIN, END, render
from tests.conftest import REPO


def test_readme_reference_matches_the_schema():
    readme = (REPO / "README.md").read_text()
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    assert readme[start:end] == render(), "run `python -m schema.reference` and paste it into README.md"


def test_reference_lists_nested_fields_with_defaults():
    text = render()
    assert "| `retrieval.max_agent_iteration` | int | `3` |" in text
    assert "| `guardrail` |" in text and "| required |" in text
