"""The `filter` field: Bedrock's RetrievalFilter, checked here so a bad filter is a 400 naming the spot.

The operators and shapes are botocore's `RetrievalFilter` (one operator per object; attribute
operators take `{key, value}`; `andAll`/`orAll` take at least two filters). Value types follow
the metadata-filtering guide (numbers for the range operators, lists for `in`/`notIn`, strings for
`startsWith`/`stringContains`). The filter is passed on unchanged once it passes.

Beyond the shapes: a key or string holding a lone surrogate is refused (it is not text: it could
neither be sent upstream nor key the cache), and numbers are bounded to +/-(2**53 - 1). botocore's
`FilterValue` is a document type with no bound, so without one a 4,000-digit integer went upstream;
2**53 - 1 is the largest integer a double holds exactly and the range I-JSON (RFC 7493 section 2.2)
calls interoperable, so a number inside it means the same to every JSON reader on the way
(docs/facts-and-decisions.md). The gateway interceptor applies this same check.
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
MAX_FILTER_NUMBER = 2**53 - 1  # the bound on a number's magnitude (module docstring)

_RANGE = frozenset({"greaterThan", "greaterThanOrEquals", "lessThan", "lessThanOrEquals"})
_LISTS = frozenset({"in", "notIn"})
_STRINGS = frozenset({"startsWith", "stringContains"})


class FilterError(ValueError):
    """A filter that Bedrock would reject; the message names the path (`filter.andAll[1].equals`)."""


def _is_number(value: Any) -> bool:
    """A finite number: NaN and infinities (`1e999` parses as inf) have no place in a filter."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | bool) or _is_number(value)


def _is_text(value: str) -> bool:
    """Whether `value` encodes as UTF-8: not, when it holds a lone surrogate (a `\\ud800` escape)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_scalar(value: Any, path: str) -> None:
    """The bounds every scalar of a filter keeps, whatever its operator."""
    if isinstance(value, str) and not _is_text(value):
        raise FilterError(f"{path} holds a lone UTF-16 surrogate; send whole characters")
    if _is_number(value) and abs(value) > MAX_FILTER_NUMBER:
        raise FilterError(f"{path} must be a number from -{MAX_FILTER_NUMBER} to {MAX_FILTER_NUMBER}")


def _check_value(operator: str, value: Any, path: str) -> None:
    if operator in _RANGE and not _is_number(value):
        raise FilterError(f"{path}.value must be a finite number for {operator}")
    if operator in _LISTS:
        if not isinstance(value, list) or not value or not all(_is_scalar(item) for item in value):
            raise FilterError(f"{path}.value must be a non-empty list of strings or numbers for {operator}")
        for index, item in enumerate(value):
            _check_scalar(item, f"{path}.value[{index}]")
        return
    if operator in _STRINGS:
        if not isinstance(value, str):
            raise FilterError(f"{path}.value must be a string for {operator}")
    elif not _is_scalar(value):
        raise FilterError(f"{path}.value must be a string, finite number or boolean for {operator}")
    _check_scalar(value, f"{path}.value")


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
    _check_scalar(key, f"{here}.key")
    _check_value(operator, argument["value"], here)


def validate_filter(value: Any, path: str = "filter") -> dict[str, Any]:
    """Returns the filter unchanged if Bedrock would accept its structure; raises FilterError if not."""
    _check(value, path, 0, [MAX_CONDITIONS])
    return value
