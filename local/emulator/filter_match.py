"""The Retrieve API's metadata `filter` (RetrievalFilter), evaluated against a chunk's metadata.

Semantics follow the Bedrock user guide's description of each operator. Where it is silent the
choice made here is the forgiving one and is listed in docs/emulator.md: a missing attribute
satisfies `notEquals`/`notIn` and nothing else; numeric comparisons ignore non-numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from local.emulator.service_errors import ServiceError

Metadata = Mapping[str, Any]
_MISSING = object()


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _compare(check: Callable[[float, float], bool]) -> Callable[[Any, Any], bool]:
    def compare(actual: Any, expected: Any) -> bool:
        a, b = _number(actual), _number(expected)
        return a is not None and b is not None and check(a, b)

    return compare


def _string_contains(actual: Any, expected: Any) -> bool:
    if isinstance(actual, str):
        return expected in actual
    return isinstance(actual, list) and any(isinstance(v, str) and expected in v for v in actual)


_PRESENT: dict[str, Callable[[Any, Any], bool]] = {
    "equals": lambda a, e: a == e,
    "notEquals": lambda a, e: a != e,
    "greaterThan": _compare(lambda a, b: a > b),
    "greaterThanOrEquals": _compare(lambda a, b: a >= b),
    "lessThan": _compare(lambda a, b: a < b),
    "lessThanOrEquals": _compare(lambda a, b: a <= b),
    "in": lambda a, e: a in e,
    "notIn": lambda a, e: a not in e,
    "startsWith": lambda a, e: isinstance(a, str) and a.startswith(e),
    "listContains": lambda a, e: isinstance(a, list) and e in a,
    "stringContains": _string_contains,
}
_TRUE_WHEN_MISSING = frozenset({"notEquals", "notIn"})
_VALUE_KINDS: dict[str, tuple[type, ...]] = {
    "greaterThan": (int, float),
    "greaterThanOrEquals": (int, float),
    "lessThan": (int, float),
    "lessThanOrEquals": (int, float),
    "in": (list,),
    "notIn": (list,),
    "startsWith": (str,),
    "stringContains": (str,),
}
OPERATORS = frozenset(_PRESENT) | {"andAll", "orAll"}


def validate_filter(node: Any, path: str) -> None:
    """Checks what the shape alone cannot: the value's type for each operator."""
    if not isinstance(node, dict) or len(node) != 1:
        raise ServiceError("ValidationException", f"{path} must set exactly one operator")
    ((operator, argument),) = node.items()
    if operator in ("andAll", "orAll"):
        if not isinstance(argument, list) or len(argument) < 2:
            raise ServiceError("ValidationException", f"{path}.{operator} must list at least 2 filters")
        for n, child in enumerate(argument):
            validate_filter(child, f"{path}.{operator}[{n}]")
        return
    if operator not in _PRESENT:
        raise ServiceError("ValidationException", f"{path}: unknown filter operator {operator!r}")
    if not isinstance(argument, dict) or not isinstance(argument.get("key"), str) or "value" not in argument:
        raise ServiceError("ValidationException", f"{path}.{operator} needs a string key and a value")
    kinds = _VALUE_KINDS.get(operator)
    value = argument["value"]
    if kinds and (isinstance(value, bool) or not isinstance(value, kinds)):
        expected = " or ".join(k.__name__ for k in kinds)
        raise ServiceError("ValidationException", f"{path}.{operator}.value must be a {expected}")


def matches(node: Mapping[str, Any], metadata: Metadata) -> bool:
    """True if `metadata` passes the (already validated) filter."""
    ((operator, argument),) = node.items()
    if operator == "andAll":
        return all(matches(child, metadata) for child in argument)
    if operator == "orAll":
        return any(matches(child, metadata) for child in argument)
    actual = metadata.get(argument["key"], _MISSING)
    if actual is _MISSING:
        return operator in _TRUE_WHEN_MISSING
    return _PRESENT[operator](actual, argument["value"])
