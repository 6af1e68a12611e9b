"""botocore's AgenticRetrieveStream model as member paths, and read-tracking for the code under test.

Paths look like `messages[].content.text` (request) and `stream.traceEvent.attributes.step`
(response; `[]` is any list item). Only leaves count: a scalar, a blob, a map, a document, or
a member listed in OPAQUE (handled whole: validated and passed through, never taken apart).
`Tracked` wraps a request or event so that every member the code reads (`[]`, `.get`, `in`,
`.items()`) is recorded under its path: handling is observed, never declared.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

OPERATION = "AgenticRetrieveStream"
# Members taken as a whole: the endpoint validates a filter with filters.py and sends it on; the
# emulator evaluates it with filter_match.py. Their recursive inside is those modules' tests' job.
OPAQUE = frozenset({"retrievers[].configuration.knowledgeBase.retrievalOverrides.filter"})


@functools.cache
def operation_model() -> Any:
    import botocore.session

    return botocore.session.get_session().get_service_model("bedrock-agent-runtime").operation_model(OPERATION)


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def leaf_paths(shape: Any, prefix: str = "", seen: tuple[str, ...] = ()) -> Iterator[str]:
    """Every leaf member path under `shape` (a shape met again on its own path is a leaf)."""
    if prefix in OPAQUE or shape.name in seen or shape.type_name not in ("structure", "list"):
        yield prefix
        return
    if shape.type_name == "list":
        yield from leaf_paths(shape.member, prefix + "[]", (*seen, shape.name))
        return
    for name, member in shape.members.items():
        yield from leaf_paths(member, _join(prefix, name), (*seen, shape.name))


def request_paths() -> set[str]:
    return set(leaf_paths(operation_model().input_shape))


def stream_paths() -> set[str]:
    """Leaf paths of every event the stream can carry, modelled exceptions included."""
    stream = operation_model().output_shape.members["stream"]
    return set(leaf_paths(stream, "stream"))


def exception_events() -> set[str]:
    stream = operation_model().output_shape.members["stream"]
    return {name for name, member in stream.members.items() if member.metadata.get("exception")}


# --- a value for every member, from the model (what the endpoint is fed in isolation) ------------

_SCALARS = {"string": "x1", "integer": 1, "long": 1, "float": 1.0, "double": 1.0, "boolean": True, "timestamp": 0}


def sample(shape: Any, seen: tuple[str, ...] = ()) -> Any:
    """A value with every member set (each member of a union list as its own item)."""
    if shape.name in seen:
        return None
    seen = (*seen, shape.name)
    if shape.type_name == "structure":
        if shape.metadata.get("document"):
            return {}
        return {name: value for name, m in shape.members.items() if (value := sample(m, seen)) is not None}
    if shape.type_name == "list":
        member = shape.member
        if member.type_name == "structure" and member.metadata.get("union"):
            return [{name: sample(m, seen)} for name, m in member.members.items()]
        return [sample(member, seen)]
    if shape.type_name == "map":
        return {"key": sample(shape.value, seen)}
    if shape.type_name == "blob":
        return b"\x89PNG"
    if getattr(shape, "enum", None):
        return shape.enum[0]
    return _SCALARS.get(shape.type_name, "x1")


def sample_event(name: str) -> dict[str, Any]:
    stream = operation_model().output_shape.members["stream"]
    return {name: sample(stream.members[name])}


# --- observing -------------------------------------------------------------------------------


def present_paths(value: Any, prefix: str = "") -> set[str]:
    """The leaf paths a concrete value carries (what the endpoint sent, what the emulator emitted);
    a map such as `metadata` is one leaf, whatever keys it holds."""
    if prefix in OPAQUE or prefix in _model_leaves():
        return {prefix}
    if isinstance(value, dict) and value:
        return {p for key, item in value.items() for p in present_paths(item, _join(prefix, key))}
    if isinstance(value, list) and value:
        return {p for item in value for p in present_paths(item, prefix + "[]")}
    return {prefix}


@functools.cache
def _model_leaves() -> frozenset[str]:
    return frozenset(request_paths() | stream_paths())


def track(value: Any, path: str, reads: set[str]) -> Any:
    if isinstance(value, dict) and not isinstance(value, Tracked):
        return Tracked(value, path, reads)
    if isinstance(value, list) and not isinstance(value, TrackedList):
        return TrackedList(value, path, reads)
    return value


class Tracked(dict):
    """A dict that records the path of every member read from it."""

    def __init__(self, data: dict[str, Any], path: str, reads: set[str]) -> None:
        super().__init__(data)
        self._path, self._reads = path, reads

    def _read(self, key: str, value: Any) -> Any:
        path = _join(self._path, key)
        self._reads.add(path)
        return track(value, path, self._reads)

    def __getitem__(self, key: str) -> Any:
        return self._read(key, super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        return self._read(key, super().__getitem__(key)) if dict.__contains__(self, key) else default

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str) and dict.__contains__(self, key):
            self._reads.add(_join(self._path, key))
        return dict.__contains__(self, key)

    def items(self) -> Any:
        return [(key, self._read(key, value)) for key, value in dict.items(self)]

    def values(self) -> Any:
        return [value for _, value in self.items()]


class TrackedList(list):
    def __init__(self, data: list[Any], path: str, reads: set[str]) -> None:
        super().__init__(data)
        self._path, self._reads = path + "[]", reads

    def __getitem__(self, index: Any) -> Any:
        item = list.__getitem__(self, index)
        if isinstance(index, slice):
            return [track(value, self._path, self._reads) for value in item]
        return track(item, self._path, self._reads)

    def __iter__(self) -> Iterator[Any]:
        for item in list.__iter__(self):
            yield track(item, self._path, self._reads)
