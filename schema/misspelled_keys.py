"""Validation that reports what a misspelled key hides: every problem of a file in one run.

An unknown key stops its object's validation (schema/common.py, StrictModel), so before this a typo'd
top-level key (`retreival:`) hid every error below it, and each fix revealed the next. Here the file
is validated; each unknown key is reported, then renamed to the field it is probably meant to be
(the one difflib suggests, when the object does not already have it) or dropped, and the data is
validated again, a few rounds at most. The problems found under a renamed key keep the key as the
file spells it (`retreival.max_agent_iteration`), so the reader finds the line, and say which field
they were checked as.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from schema.common import UNKNOWN_FIELDS
from schema.config_errors import Problem, field_path, problems_from_errors

MAX_ROUNDS = 5  # each round renames every unknown key found; nesting five typos deep is not a config

Location = tuple[str | int, ...]


def validate_all(path: Path | str, model: type[BaseModel], data: Any) -> tuple[Any, list[Problem]]:
    """(the model, []) for valid data, else (None, every problem): the unknown keys first, then what
    their renamed values and the rest of the file hold."""
    current = copy.deepcopy(data)
    renamed: dict[tuple[Location, str], str] = {}  # (object's location, field it was read as) -> key as written
    unknown_problems: list[Problem] = []
    for _ in range(MAX_ROUNDS):
        try:
            validated = model.model_validate(current)
        except ValidationError as error:
            errors = error.errors(include_url=False)
        else:
            return (validated, []) if not unknown_problems else (None, unknown_problems)
        unknown = [item for item in errors if item["type"] == UNKNOWN_FIELDS]
        if not unknown:
            break
        for item in unknown:
            location = _written(tuple(item["loc"]), renamed)
            unknown_problems.extend(problems_from_errors(path, [{**item, "loc": location}]))
            _rename(current, tuple(item["loc"]), item.get("ctx", {}), renamed)
    rest = [item for item in errors if item["type"] != UNKNOWN_FIELDS]
    return None, unknown_problems + [_checked_as(path, item, renamed) for item in rest]


def _node(data: Any, location: Location) -> Any:
    """The object at a pydantic location; parts that are not keys (union tags, validator names) are skipped."""
    node = data
    for part in location:
        child: Any = None
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            child = node[part]
        elif isinstance(node, dict):
            child = node.get(part)
        node = node if child is None else child
    return node


def _rename(data: Any, location: Location, context: dict[str, Any], renamed: dict[tuple[Location, str], str]) -> None:
    node = _node(data, location)
    if not isinstance(node, dict):
        return
    meant: dict[str, str] = context.get("meant", {})
    for key in context.get("keys", ()):
        if key not in node:
            continue
        value = node.pop(key)
        field = meant.get(key)
        if field is not None and field not in node:
            node[field] = value
            renamed[(location, field)] = key


def _written(location: Location, renamed: dict[tuple[Location, str], str]) -> Location:
    """The location with each renamed field spelled as in the file."""
    return tuple(
        renamed.get((location[:index], part), part) if isinstance(part, str) else part
        for index, part in enumerate(location)
    )


def _checked_as(path: Path | str, item: Any, renamed: dict[tuple[Location, str], str]) -> Problem:
    location = tuple(item["loc"])
    written = _written(location, renamed)
    [problem] = problems_from_errors(path, [{**item, "loc": written}])
    if written == location:
        return problem
    return Problem(problem.file, problem.field, f"{problem.message} (checked as {field_path(location)})")
