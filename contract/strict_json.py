"""Strict JSON -> nested frozen dataclasses, without pydantic: the endpoint's settings on a cold start.

Pydantic built a validator for the settings' dataclasses on every cold start (tens of milliseconds of
schema building before the first request: bench/RESULTS.md); the settings are a document the stack
renders from these same dataclasses, so a small walk over their type hints checks them as strictly:
every field of the declared JSON type (a bool is not an int, an int is a float, no `"3"` for 3), a
Literal one of its values, nested dataclasses and lists of them checked in turn, required fields
present, and every unknown key refused. Errors name the path (`retrievers.0.knowledge_base_id`).

The client reads the endpoint's stream events the same way, with one difference: unknown keys are
ignored at every level (`unknown="ignore"`), since a newer endpoint may add fields an older client
does not know. It used pydantic for that, whose import and validators were about 40 % of an
`akb ask --local`'s CPU (bench/RESULTS.md).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")
_SCALARS: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), float: (int, float), bool: (bool,)}


class StrictJsonError(ValueError):
    """A document that does not match its dataclass; the message names every problem with its path."""


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


class _Walk:
    """One load: the problems found so far and what an unknown key is."""

    def __init__(self, ignore_unknown: bool) -> None:
        self.problems: list[str] = []
        self.ignore_unknown = ignore_unknown


def _check(value: Any, hint: Any, path: str, walk: _Walk) -> Any:
    problems = walk.problems
    origin = get_origin(hint)
    if hint is Any:
        return value
    if origin is Union or origin is types.UnionType:
        options = get_args(hint)
        if value is None and type(None) in options:
            return None
        (inner,) = [option for option in options if option is not type(None)]  # X | None only
        return _check(value, inner, path, walk)
    if origin is Literal:
        if value not in get_args(hint):
            problems.append(f"{path}: must be one of {list(get_args(hint))}, not {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            problems.append(f"{path}: must be a list")
            return value
        (item,) = get_args(hint)
        return [_check(entry, item, f"{path}.{index}", walk) for index, entry in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            problems.append(f"{path}: must be an object")
        return value
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, path, walk)  # type: ignore[arg-type]
    allowed = _SCALARS.get(hint)
    if allowed is None:
        raise TypeError(f"{path}: strict_json does not handle {hint!r}")
    if not isinstance(value, allowed) or (hint is not bool and isinstance(value, bool)):
        problems.append(f"{path}: must be {hint.__name__}, not {type(value).__name__}")
    return value


def _build(cls: type[T], data: Any, path: str, walk: _Walk) -> T:
    where, problems = f"{path}." if path else "", walk.problems
    if not isinstance(data, dict):
        problems.append(f"{path or 'the document'}: must be an object")
        return None  # type: ignore[return-value]
    hints = _hints(cls)  # type: ignore[arg-type]  # a class is hashable
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if not walk.ignore_unknown:
        problems.extend(f"{where}{key}: unknown field" for key in data if key not in fields)
    values = {}
    for name, spec in fields.items():
        if name in data:
            values[name] = _check(data[name], hints[name], f"{where}{name}", walk)
        elif spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING:
            problems.append(f"{where}{name}: required")
    if problems:
        return None  # type: ignore[return-value]
    return cls(**values)


def load(cls: type[T], data: Any, unknown: Literal["refuse", "ignore"] = "refuse") -> T:
    """`data` (parsed JSON) as a `cls` instance; StrictJsonError listing every problem otherwise.

    `unknown`: "refuse" makes a key no dataclass declares a problem; "ignore" leaves it out."""
    walk = _Walk(ignore_unknown=unknown == "ignore")
    built = _build(cls, data, "", walk)
    if walk.problems:
        raise StrictJsonError(f"{cls.__name__}: " + "; ".join(walk.problems))
    return built
