"""The repository stands alone: no tracked file cites a file outside it.

Facts the project relies on live in docs/facts-and-decisions.md with their AWS source; a note kept
elsewhere on one machine (a facts file, a shared folder, a seed document, an absolute path of a
workstation) is not a source a reader of the repository can open.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

# Each pattern names a kind of path outside the repository.
OUTSIDE_PATHS = {
    "a facts file kept outside the repository": re.compile(r"\bFACTS\.md\b"),
    "a design or style note kept outside the repository": re.compile(r"(?<![\w/.-])(?:DESIGN|STYLE)\.md\b"),
    "a shared folder beside the repository": re.compile(r"\.\./shared\b|(?<![\w.-])shared/(?:seeds|hooks)\b"),
    "an absolute path of a workstation": re.compile(r"(?<![\w.-])/work/|(?<![\w.-])/(?:home|Users)/[\w.-]+/"),
    "a seed document": re.compile(r"(?<![\w.-])seeds/|\bseed[ _-]?\d{3}\b", re.IGNORECASE),
}
# Only this file may spell the patterns out.
ALLOWED = {"tests/test_repository.py"}
SKIPPED_DIRS = {".git", ".venv", "node_modules", "cdk.out", "__pycache__", ".pytest_cache", ".ruff_cache"}


def tracked_files(root: Path) -> list[str]:
    """Files git tracks (what a clone holds); outside a git checkout, every file but build output."""
    try:
        listing = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True, timeout=30
        ).stdout.decode()
        return [name for name in listing.split("\0") if name]
    except (OSError, subprocess.SubprocessError):
        return sorted(
            str(path.relative_to(root))
            for path in root.rglob("*")
            if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(root).parts)
        )


def outside_citations(name: str, text: str) -> list[str]:
    """`file:line: what (the match)` for every citation of a path outside the repository."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in OUTSIDE_PATHS.items():
            match = pattern.search(line)
            if match:
                found.append(f"{name}:{number}: {what} ({match.group(0)!r})")
    return found


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data:
        return None  # binary
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_cites_a_path_outside_the_repository():
    problems: list[str] = []
    for name in tracked_files(REPO):
        path = REPO / name
        if name in ALLOWED or not path.is_file():
            continue
        text = _text(path)
        if text is not None:
            problems.extend(outside_citations(name, text))
    assert not problems, (
        "cite docs/facts-and-decisions.md (a ledger row with the AWS source) instead of a file outside "
        "the repository:\n  " + "\n  ".join(problems)
    )


@pytest.mark.parametrize(
    "line",
    [
        "MAX_RETRIEVERS = 5  # FACTS.md: up to 5 retrievers",
        "see ../shared/notes.txt",
        "Command: `/work/main/.venv/bin/python bench/x.py`",
        "open /home/alice/notes.txt",
        "the example in seeds/004_notes.txt",
        "Label documents, not chunks (seed 004).",
        "as DESIGN.md says",
    ],
)
def test_each_kind_of_outside_path_is_caught(line):
    assert outside_citations("x.md", line)


@pytest.mark.parametrize(
    "line",
    [
        "MAX_RETRIEVERS = 5  # up to 5 retrievers (docs/facts-and-decisions.md)",
        "connectionConfiguration {seedUrls (1-10)}",
        "the tenant's document bucket prefix docs/seeds-of-change/",
        "uvicorn --factory lambdas.endpoint.asgi_app:create_app",
        "aws-samples/amazon-bedrock-samples rag/managed-knowledge-bases/utils/kb_pricing.yaml",
    ],
)
def test_repository_paths_and_aws_sources_pass(line):
    assert outside_citations("x.md", line) == []


def test_no_tracked_symlink_points_outside_the_repository():
    """A committed link to a local path (a helper's .venv-checkov -> /work/...) breaks every fresh clone."""
    import subprocess

    listed = subprocess.run(["git", "ls-files", "-s"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    links = [line.split("\t", 1)[1] for line in listed.splitlines() if line.startswith("120000 ")]
    outside = [link for link in links if not (REPO / link).resolve().is_relative_to(REPO.resolve())]
    assert not outside, f"tracked symlinks leaving the repository: {outside}"


# Package markers share their name by design; tests and benchmarks mirror or measure product modules.
SHARED_NAMES = {"__init__.py", "__main__.py"}
NOT_PRODUCT = ("tests/", "bench/")


def duplicate_module_names(names: list[str]) -> dict[str, list[str]]:
    """file name -> the product modules that have it, for names held by more than one."""
    by_name: dict[str, list[str]] = {}
    for name in names:
        if name.endswith(".py") and not name.startswith(NOT_PRODUCT) and Path(name).name not in SHARED_NAMES:
            by_name.setdefault(Path(name).name, []).append(name)
    return {name: paths for name, paths in by_name.items() if len(paths) > 1}


def test_no_two_product_modules_share_a_file_name():
    """A reader who knows the AWS service finds its module by name, and only one (issue 12)."""
    assert duplicate_module_names(tracked_files(REPO)) == {}


def test_the_duplicate_check_sees_two_modules_of_one_name():
    names = ["policies/cache_table.py", "cdk_constructs/cache_table.py", "tests/x/cache_table.py", "a/__init__.py"]
    assert duplicate_module_names([*names, "b/__init__.py"]) == {
        "cache_table.py": ["policies/cache_table.py", "cdk_constructs/cache_table.py"]
    }
