"""The cache key's text normalization before and after issue 26: time on worst-case inputs vs a plain question.

Before: NFKC, case folding and two regular expressions (`[\\s?!.。]+$` for the trailing punctuation,
an alternation of quoted spans), kept here verbatim as the baseline (the product no longer has it).
After: lambdas/endpoint/cache/normalize.py (one pass, no regular expression). Each input is 10,000
characters (the query-text limit); each time is the best of `--rounds` runs; the ratio column is the
input's time over the plain question's time in the same column, so machines and load cancel out.

    PYTHONPATH=. .venv/bin/python bench/normalize_text.py [--rounds 5] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import re
import sys
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import append_result  # noqa: E402
from lambdas.endpoint.cache.normalize import normalize_text  # noqa: E402
from tests.worst_case_text import PLAIN_TEXT, WORST_TEXTS  # noqa: E402

LENGTH = len(PLAIN_TEXT)

# ---- the baseline: normalize.py as it was before issue 26 ----------------------------------------
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|「[^」]*」|`[^`]*`|(?<!\w)\'[^\']+\'(?!\w)')
_TRAILING = re.compile(r"[\s?!.。]+$")


def _old_word(token: str) -> str:
    if any(c.isdigit() for c in token):
        return token
    letters = [c for c in token if c.isalpha()]
    if len(letters) >= 2 and all(c.isupper() for c in letters):
        return token
    return token.casefold()


def _old_plain(text: str) -> str:
    return " ".join(_old_word(token) for token in text.split())


def old_normalize_text(text: str) -> str:
    text = _TRAILING.sub("", unicodedata.normalize("NFKC", text).strip())
    parts: list[str] = []
    position = 0
    for match in _QUOTED.finditer(text):
        parts.append(_old_plain(text[position : match.start()]))
        parts.append(match.group(0))
        position = match.end()
    parts.append(_old_plain(text[position:]))
    return " ".join(part for part in parts if part)


# ---- inputs (the ones tests/lambdas/endpoint/cache/test_normalize.py times) ---------------------------

INPUTS = {"plain question (baseline)": PLAIN_TEXT, **WORST_TEXTS}


def best_ms(function: Callable[[str], str], text: str, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        function(text)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def measure(rounds: int) -> list[tuple[str, float, float]]:
    return [
        (name, best_ms(old_normalize_text, text, rounds), best_ms(normalize_text, text, rounds))
        for name, text in INPUTS.items()
    ]


def report(rows: list[tuple[str, float, float]], rounds: int) -> str:
    _, old_plain, new_plain = rows[0]
    lines = [
        f"### {dt.date.today().isoformat()}: nproc 2 (shared), {platform.machine()}, "
        f"Python {platform.python_version()}",
        "",
        f"Each input {LENGTH:,} characters; best of {rounds} runs; ratio = time / the plain question's time in the "
        "same column.",
        "",
        "| input | before (regex, NFKC) ms | before ratio | after (one pass) ms | after ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, old, new in rows:
        lines.append(f"| {name} | {old:.2f} | {old / old_plain:.1f}x | {new:.2f} | {new / new_plain:.1f}x |")
    worst_old = max(old / old_plain for _, old, _ in rows)
    worst_new = max(new / new_plain for _, _, new in rows)
    lines += [
        "",
        f"Worst input vs the plain question: **{worst_old:.0f}x before, {worst_new:.1f}x after**.",
        "",
        f"Command: `PYTHONPATH=. .venv/bin/python bench/normalize_text.py --rounds {rounds}`",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to bench/RESULTS.md")
    args = parser.parse_args()
    text = report(measure(args.rounds), args.rounds)
    print(text)
    if not args.no_record:
        append_result("## Cache-key normalization on worst-case inputs (bench/normalize_text.py)", text)


if __name__ == "__main__":
    main()
