"""The shell commands README.md and docs/ show: every ```bash block, split into commands as bash reads them.

A command is one line, or several joined by a trailing backslash or held together by a compound
statement (`for ... done`, `$(...)` across lines). Its last line's comment says how the docs test
treats it: `# needs AWS` (not run: it needs an account) or `# CI runs this` (not run inside the tests:
.ci/run runs it as written). Every other command is run as written.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

NEEDS_AWS = re.compile(r"#\s*needs AWS\b")
CI_RUNS = re.compile(r"#\s*CI runs this\b")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<language>[\w-]*)\s*$")
# Lines that look like a shell command; outside a ```bash block they would escape the test.
# (`akb doctor: ...` is output: a command's name followed by a colon.)
LOOKS_LIKE_A_COMMAND = re.compile(
    r"^\s*(\$ |akb [a-z-]+(?![a-z:-])|make [a-z]|npx |curl |\.venv/|PYTHONPATH=|python3? -m |source )"
)


@dataclass(frozen=True)
class Command:
    file: str
    line: int  # of its first line in the file
    text: str

    @property
    def last_line(self) -> str:
        return self.text.rstrip().splitlines()[-1]

    @property
    def needs_aws(self) -> bool:
        return bool(NEEDS_AWS.search(self.last_line))

    @property
    def ci_runs(self) -> bool:
        return bool(CI_RUNS.search(self.last_line))

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.text.strip()}"


@dataclass(frozen=True)
class Block:
    file: str
    line: int  # of its opening fence
    language: str
    lines: tuple[str, ...]


def fenced_blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of a Markdown file, its lines dedented by the fence's indentation."""
    blocks: list[Block] = []
    opened: tuple[int, str, str] | None = None
    body: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        fence = FENCE.match(line)
        if opened is None and fence:
            opened, body = (number, fence["indent"], fence["language"]), []
        elif opened is not None and fence and fence["indent"] == opened[1] and not fence["language"]:
            blocks.append(Block(str(path.relative_to(root)), opened[0], opened[2], tuple(body)))
            opened = None
        elif opened is not None:
            body.append(line.removeprefix(opened[1]))
    return blocks


def complete(text: str) -> bool:
    """Whether bash reads `text` as whole commands (no open quote, compound statement or continuation)."""
    if text.rstrip().endswith("\\"):
        return False
    checked = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, timeout=10)
    return checked.returncode == 0


def commands(block: Block) -> list[Command]:
    """The block's commands in order; comment-only and blank lines are not commands."""
    found: list[Command] = []
    pending: list[str] = []
    start = 0
    for offset, line in enumerate(block.lines, start=1):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = block.line + offset
        pending.append(line)
        text = "\n".join(pending)
        if complete(text):
            found.append(Command(block.file, start, text))
            pending = []
    assert not pending, f"{block.file}:{start}: an unfinished command: {pending}"
    return found


def documents(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]
