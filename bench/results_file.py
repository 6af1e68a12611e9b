"""Adding a benchmark's entry to bench/RESULTS.md at the end of its own section (newest last)."""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def append_result(heading: str, text: str, results: Path = RESULTS) -> None:
    """Puts `text` at the end of the section `heading` (the next `## ` line ends it); a section the file
    lacks is added at the end."""
    current = results.read_text().rstrip("\n") + "\n"
    start = current.find(f"\n{heading}\n")
    if start < 0:
        results.write_text(f"{current}\n{heading}\n\n{text.rstrip()}\n")
        return
    end = current.find("\n## ", start + len(heading) + 2)
    end = len(current) if end < 0 else end + 1
    section = current[:end].rstrip("\n")
    results.write_text(f"{section}\n\n{text.rstrip()}\n\n{current[end:]}".rstrip("\n") + "\n")
