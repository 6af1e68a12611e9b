"""The configuration reference in docs/configuration.md is the one the schema generates."""

from __future__ import annotations

import pytest

from schema.reference import BEGIN, END, REFERENCE_PAGE, generated_section, render, write
from tests.conftest import REPO


def test_configuration_page_reference_matches_the_schema():
    page = (REPO / "docs" / "configuration.md").read_text()
    assert generated_section(page) == render(), (
        "run `python -m schema.reference --write` and commit docs/configuration.md"
    )


def test_reference_page_is_the_configuration_page():
    assert REFERENCE_PAGE == REPO / "docs" / "configuration.md"


def test_readme_no_longer_carries_the_reference():
    assert BEGIN not in (REPO / "README.md").read_text()


def test_reference_lists_nested_fields_with_defaults():
    text = render()
    assert "| `retrieval.max_agent_iteration` | int | `3` |" in text
    assert "| `guardrail` |" in text and "| required |" in text


def test_write_replaces_a_drifted_section_and_keeps_the_prose(tmp_path):
    page = tmp_path / "configuration.md"
    page.write_text(f"# Intro\n\nhand-written\n\n{BEGIN}\n| stale |\n{END}\n\nafter\n")
    assert write(page) is True
    text = page.read_text()
    assert text.startswith("# Intro\n\nhand-written\n\n") and text.endswith("\n\nafter\n")
    assert generated_section(text) == render() and "| stale |" not in text
    assert write(page) is False  # already up to date


def test_a_page_without_markers_is_refused_with_the_markers_to_add(tmp_path):
    page = tmp_path / "configuration.md"
    page.write_text("# no generated section\n")
    with pytest.raises(ValueError, match="BEGIN CONFIG REFERENCE"):
        write(page)
