"""docs/architecture.md's walk-through example runs as written and prints what the page says."""

from __future__ import annotations

from tests.conftest import REPO


def test_the_add_a_feature_example_runs_and_reaches_akb_policy(monkeypatch, capsys):
    text = (REPO / "docs" / "architecture.md").read_text()
    section = text.split("## Adding a tenant feature", 1)[1]
    example = section.split("```python\n", 1)[1].split("```\n", 1)[0]
    monkeypatch.chdir(REPO)
    exec(compile(example, "docs/architecture.md", "exec"), {"__name__": "__main__"})
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["acme {'table': 'akb-dev-audit'} True", "globex None False"]
    assert "prints `acme {'table': 'akb-dev-audit'} True` and `globex None False`" in section
