"""Config errors a platform engineer can act on: file, field path, what is allowed.

Pydantic's own error dump is precise but unreadable in a `cdk synth` log; this module turns it
into one line per problem, each naming the file and the field path (`knowledge_bases[2].alias`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError


@dataclass(frozen=True)
class Problem:
    """One thing wrong in one file."""

    file: str
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.message}"


class ConfigError(Exception):
    """Raised for any invalid configuration; `str()` is the text shown to the user."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        count = len(self.problems)
        head = "Invalid configuration" + (f" ({count} problems)" if count > 1 else "") + ":"
        return "\n".join([head, *(f"  {problem}" for problem in self.problems)])


def field_path(location: Iterable[str | int]) -> str:
    """`("knowledge_bases", 2, "description")` -> `knowledge_bases[2].description`."""
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        elif str(part).startswith(("function-", "tagged-union[")):
            continue  # pydantic's names for validator/union layers, not fields the user wrote
        else:
            path += f".{part}" if path else str(part)
    return path


def problems_from_validation(file: Path | str, error: ValidationError) -> list[Problem]:
    return problems_from_errors(file, error.errors(include_url=False))


def problems_from_errors(file: Path | str, errors: Sequence[Any]) -> list[Problem]:
    """One Problem per pydantic error (`ValidationError.errors()` items), each naming file and field."""
    problems = []
    for item in errors:
        location = [part for part in item["loc"] if not _is_union_member_name(part)]
        message = item["msg"]
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        if item["type"] == "missing":
            message = "is required"
        elif item["type"] == "union_tag_invalid":
            context = item.get("ctx", {})
            message = f"unknown type '{context.get('tag')}'; allowed: {context.get('expected_tags')}"
        problems.append(Problem(str(file), field_path(location), message))
    return problems


def _is_union_member_name(part: str | int) -> bool:
    # Discriminated unions add the tag value (e.g. "s3") to the location; keep it out of paths.
    return isinstance(part, str) and part in _UNION_TAGS


_UNION_TAGS: set[str] = set()


def register_union_tags(tags: Iterable[str]) -> None:
    """Discriminated unions call this so their tags are not mistaken for field names."""
    _UNION_TAGS.update(tags)
