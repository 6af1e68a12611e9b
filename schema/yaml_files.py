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

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from schema.common import NAME_PATTERN
from schema.config_errors import Problem, problems_from_validation

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


class _BoundedLoader(yaml.SafeLoader):
    """A SafeLoader that refuses anchors, aliases, explicit tags, deep nesting and duplicate keys."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        event = self.peek_event()
        reason = None
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            kind = "an alias (*" if isinstance(event, yaml.AliasEvent) else "an anchor (&"
            reason = f"{kind}{event.anchor}) is not allowed in config files: write the value out in full"
        elif getattr(event, "tag", None) is not None:
            reason = (
                f"an explicit tag ({_written(event.tag)}) is not allowed in config files: write the plain "
                "value (a string, number, boolean, list or mapping)"
            )
        elif self._depth >= MAX_NESTING:
            reason = f"the value nests deeper than {MAX_NESTING} levels; no config value needs that"
        if reason is not None:
            raise yaml.composer.ComposerError(None, None, reason, event.start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(None, None, f"duplicate key '{key}'", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


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
        data = yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        reason = getattr(error, "problem", None) or str(error)
        return None, [Problem(str(path), "", f"is not valid YAML{where}: {reason}")]
    if not isinstance(data, dict):
        return None, [Problem(str(path), "", "must be a YAML mapping of fields (key: value)")]
    return data, []


def parse_file(path: Path, model: type[BaseModel]) -> tuple[Any, list[Problem]]:
    data, problems = read_yaml(path)
    if problems:
        return None, problems
    try:
        return model.model_validate(data), []
    except ValidationError as error:
        return None, problems_from_validation(path, error)


def available(directory: Path) -> list[str]:
    return sorted(path.stem for path in directory.glob("*.yaml")) if directory.is_dir() else []


def named_tenants(env_file: Path) -> list[str] | None:
    """The `tenants:` list of an environment file read leniently (the file may fail validation), each
    name once; None when it is not a list of names. Checks that span environments read other
    environments' files this way."""
    data, _ = read_yaml(env_file)
    named = data.get("tenants") if isinstance(data, dict) else None
    if isinstance(named, list) and all(isinstance(name, str) and NAME_PATTERN.fullmatch(name) for name in named):
        return list(dict.fromkeys(named))
    return None


def environment_tenants(config_dir: Path) -> dict[str, list[str]]:
    """Every environment file of the config (by name) with the tenants it lists, read leniently."""
    directory = config_dir / "environments"
    return {
        name: named_tenants(directory / f"{name}.yaml") or []
        for name in available(directory)
        if NAME_PATTERN.fullmatch(name)
    }
