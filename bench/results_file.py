"""Appending a benchmark's entry to bench/RESULTS.md under its section heading (newest last)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def append_result(heading: str, text: str, results: Path = RESULTS) -> None:
    """Adds `heading` at the end if the file lacks it, then `text` after everything already there."""
    current = results.read_text()
    if heading not in current:
        current = current.rstrip("\n") + f"\n\n{heading}\n"
    results.write_text(current.rstrip("\n") + "\n\n" + text)
