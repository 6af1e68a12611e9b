"""Reading one config file: bounded YAML in, plain data (or a pydantic model) out, problems named.

Config files are reviewed like code and hold plain data, so the reader refuses what plain data
never needs and what makes a few bytes expensive:
- anchors and aliases (`&name`, `*name`, and `<<` merges, which need one): a few hundred bytes of
  aliases expand into billions of nodes once anything copies them ("billion laughs");
- explicit tags (`!!binary`, `!!set`, `!!python/...`, `!local`): they turn a value into bytes, a
  set or worse, which the schema would then coerce without saying so;
- nesting deeper than MAX_NESTING: PyYAML composes recursively, so 60,000 `[` raised an uncaught
  RecursionError; the limit is met long before the interpreter's and reported at its line;
- duplicate keys (PyYAML keeps the last: a silently dropped setting is worse than an error);
- files over MAX_FILE_BYTES and text that is not UTF-8.
Each refusal is a Problem naming the file (and line), never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from schema.common import NAME_PATTERN
from schema.config_errors import Problem

# The example files are under 3 KB; 256 KiB leaves room for any real tenant and bounds what one
# file can make the loader (and synth) do.
MAX_FILE_BYTES = 256 * 1024
# The deepest example value (a connector's parameters) is 5 levels down; 50 leaves room for any
# passed-through parameter and stays far below Python's recursion limit.
MAX_NESTING = 50
_CORE_TAG = "tag:yaml.org,2002:"


def _written(tag: str) -> str:
    """`tag:yaml.org,2002:binary` -> `!!binary`: the tag as the file spells it."""
    return "!!" + tag[len(_CORE_TAG) :] if tag.startswith(_CORE_TAG) else tag


def _refusal(event: yaml.Event, depth: int) -> str | None:
    """Why this event has no place in a config file (None: it has)."""
    if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
        kind = "an alias (*" if isinstance(event, yaml.AliasEvent) else "an anchor (&"
        return f"{kind}{event.anchor}) is not allowed in config files: write the value out in full"
    if getattr(event, "tag", None) is not None:
        return (
            f"an explicit tag ({_written(event.tag)}) is not allowed in config files: write the plain "
            "value (a string, number, boolean, list or mapping)"
        )
    if depth > MAX_NESTING:
        return f"the value nests deeper than {MAX_NESTING} levels; no config value needs that"
    return None


def _check_events(text: str, loader: type[Any]) -> None:
    """One pass over the parser's events (no node is built): anchors, aliases, explicit tags and nesting
    are refused at their line before anything composes the document (a composer recurses per level)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            opens = isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent))
            depth += opens
            reason = _refusal(event, depth if opens else depth + 1)
            if reason is not None:
                raise yaml.composer.ComposerError(None, None, reason, event.start_mark)
            depth -= isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent))
    except yaml.MarkedYAMLError as error:
        # libyaml's scanner stops absurd nesting itself (at 1,000 levels) before any event: the same refusal.
        if "maximum nesting depth" not in str(error.problem):
            raise
        reason = f"the value nests deeper than {MAX_NESTING} levels; no config value needs that"
        raise yaml.composer.ComposerError(None, None, reason, error.problem_mark) from None


class _UniqueKeys:
    """A mapping constructor that refuses a key written twice (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)  # type: ignore[attr-defined]
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)  # type: ignore[misc]


# libyaml's C parser when PyYAML was built with it (the wheels are): the same YAML, several times
# faster than the pure-Python scanner, which dominated every config load.
_PARSER: type[Any] = yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader


class _BoundedLoader(_UniqueKeys, _PARSER):
    """A safe loader that refuses duplicate keys; `_check_events` refused the rest before it runs."""


def _text(path: Path) -> tuple[str | None, list[Problem]]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return None, [Problem(str(path), "", f"cannot be read: {error.strerror}")]
    if len(raw) > MAX_FILE_BYTES:
        message = f"is larger than {MAX_FILE_BYTES // 1024} KiB; a config file this big is not a config"
        return None, [Problem(str(path), "", message)]
    try:
        return raw.decode("utf-8"), []
    except UnicodeDecodeError as error:
        return None, [Problem(str(path), "", f"is not UTF-8 text (byte {error.start})")]


def read_yaml(path: Path) -> tuple[Any, list[Problem]]:
    text, problems = _text(path)
    if text is None:
        return None, problems
    try:
        _check_events(text, _PARSER)
        data = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(error, "problem", None) or str(error)
        return None, [Problem(str(path), "", f"is not valid YAML{where}: {reason}")]
    if not isinstance(data, dict):
        return None, [Problem(str(path), "", "must be a YAML mapping of fields (key: value)")]
    return data, []


def parse_file(path: Path, model: type[BaseModel]) -> tuple[Any, list[Problem]]:
    """The file as `model`, or None and every problem it has (also those under a misspelled key)."""
    from schema.misspelled_keys import validate_all

    data, problems = read_yaml(path)
    if problems:
        return None, problems
    return validate_all(path, model, data)


def available(directory: Path) -> list[str]:
    return sorted(path.stem for path in directory.glob("*.yaml")) if directory.is_dir() else []


def named_tenants(env_file: Path) -> list[str] | None:
    """The `tenants:` list of an environment file read leniently (the file may fail validation), each
    name once; None when it is not a list of names."""
    data, _ = read_yaml(env_file)
    return _tenant_names(data)


def _tenant_names(data: Any) -> list[str] | None:
    named = data.get("tenants") if isinstance(data, dict) else None
    if isinstance(named, list) and all(isinstance(name, str) and NAME_PATTERN.fullmatch(name) for name in named):
        return list(dict.fromkeys(named))
    return None


@dataclass(frozen=True)
class EnvironmentSketch:
    """What checks spanning environments need of another environment's file, read leniently (it may fail
    validation): the tenants it lists, and its `account` and `region` (None where the file omits one, so
    an environment-agnostic synth that may be deployed anywhere, or holds something that is not text)."""

    tenants: list[str]
    account: str | None
    region: str | None


def environment_sketches(config_dir: Path) -> dict[str, EnvironmentSketch]:
    """Every environment file of the config, by name, each read once."""
    directory = config_dir / "environments"
    sketches = {}
    for name in available(directory):
        if NAME_PATTERN.fullmatch(name):
            data, _ = read_yaml(directory / f"{name}.yaml")
            fields = data if isinstance(data, dict) else {}
            account, region = fields.get("account"), fields.get("region")
            sketches[name] = EnvironmentSketch(
                _tenant_names(data) or [],
                account if isinstance(account, str) else None,
                region if isinstance(region, str) else None,
            )
    return sketches
