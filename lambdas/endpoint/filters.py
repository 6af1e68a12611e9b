"""The `filter` field: Bedrock's RetrievalFilter, checked here so a bad filter is a 400 naming the spot.

The operators and shapes are botocore's `RetrievalFilter` (one operator per object; attribute
operators take `{key, value}`; `andAll`/`orAll` take at least two filters). Value types follow
the metadata-filtering guide (numbers for the range operators, lists for `in`/`notIn`, strings for
`startsWith`/`stringContains`). The filter is passed on unchanged once it passes.
"""

from __future__ import annotations

import math
from typing import Any

ATTRIBUTE_OPERATORS = frozenset(
    {
        "equals",
        "notEquals",
        "greaterThan",
        "greaterThanOrEquals",
        "lessThan",
        "lessThanOrEquals",
        "in",
        "notIn",
        "startsWith",
        "listContains",
        "stringContains",
    }
)
LIST_OPERATORS = frozenset({"andAll", "orAll"})
OPERATORS = ATTRIBUTE_OPERATORS | LIST_OPERATORS
MAX_KEY_CHARS = 100  # botocore FilterKey max length
MAX_DEPTH = 5  # nesting of andAll/orAll; deeper filters are rejected, never recursed into
MAX_CONDITIONS = 50

_RANGE = frozenset({"greaterThan", "greaterThanOrEquals", "lessThan", "lessThanOrEquals"})
_LISTS = frozenset({"in", "notIn"})
_STRINGS = frozenset({"startsWith", "stringContains"})


class FilterError(ValueError):
    """A filter that Bedrock would reject; the message names the path (`filter.andAll[1].equals`)."""


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int | bool) or (isinstance(value, float) and math.isfinite(value))


def _is_number(value: Any) -> bool:
    """A finite number: NaN and infinities (`1e999` parses as inf) have no place in a filter."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _check_value(operator: str, value: Any, path: str) -> None:
    if operator in _RANGE and not _is_number(value):
        raise FilterError(f"{path}.value must be a finite number for {operator}")
    if operator in _LISTS:
        if not isinstance(value, list) or not value or not all(_is_scalar(item) for item in value):
            raise FilterError(f"{path}.value must be a non-empty list of strings or numbers for {operator}")
    elif operator in _STRINGS:
        if not isinstance(value, str):
            raise FilterError(f"{path}.value must be a string for {operator}")
    elif not _is_scalar(value):
        raise FilterError(f"{path}.value must be a string, finite number or boolean for {operator}")


def _check(node: Any, path: str, depth: int, budget: list[int]) -> None:
    if not isinstance(node, dict) or len(node) != 1:
        raise FilterError(f"{path} must be an object with exactly one operator, one of: {', '.join(sorted(OPERATORS))}")
    ((operator, argument),) = node.items()
    if operator not in OPERATORS:
        raise FilterError(f"{path}: unknown operator '{operator}'; allowed: {', '.join(sorted(OPERATORS))}")
    here = f"{path}.{operator}"
    budget[0] -= 1
    if budget[0] < 0:
        raise FilterError(f"filter has more than {MAX_CONDITIONS} conditions")
    if operator in LIST_OPERATORS:
        if depth >= MAX_DEPTH:
            raise FilterError(f"{here}: filters nest at most {MAX_DEPTH} levels deep")
        if not isinstance(argument, list) or len(argument) < 2:
            raise FilterError(f"{here} must be a list of at least two filters")
        for index, child in enumerate(argument):
            _check(child, f"{here}[{index}]", depth + 1, budget)
        return
    if not isinstance(argument, dict) or set(argument) != {"key", "value"}:
        raise FilterError(f"{here} must be an object with exactly `key` and `value`")
    key = argument["key"]
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_CHARS:
        raise FilterError(f"{here}.key must be a string of 1 to {MAX_KEY_CHARS} characters")
    _check_value(operator, argument["value"], here)


def validate_filter(value: Any, path: str = "filter") -> dict[str, Any]:
    """Returns the filter unchanged if Bedrock would accept its structure; raises FilterError if not."""
    _check(value, path, 0, [MAX_CONDITIONS])
    return value
