"""The config loader is bounded: no YAML anchors/aliases (billion laughs), no oversized files.

Issue 14, item 6: an alias bomb in a connector's parameters passed validate, then synth grew past 3 GB.
"""

from __future__ import annotations

import tracemalloc

import pytest

from schema import ConfigError, load_project
from schema.loader import MAX_FILE_BYTES

# Nine levels of ten aliases: 10**9 strings once expanded, a few hundred bytes as text.
BOMB_LEVELS = 9


def _bomb() -> str:
    lines = ['          l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, BOMB_LEVELS + 1):
        previous = f"*l{level - 1}"
        lines.append(f"          l{level}: &l{level} [{', '.join([previous] * 10)}]")
    return "\n".join(lines)


def _globex_with_bomb(config_copy) -> str:
    path = config_copy.path("tenants", "globex")
    text = path.read_text()
    anchor = "        parameters:\n"
    assert anchor in text
    path.write_text(
        text.replace(anchor, anchor + "          bomb:\n" + _bomb().replace("          ", "            ") + "\n", 1)
    )
    return str(path)


def _problems(config_copy) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_project(config_copy.root, "dev")
    return [str(problem) for problem in caught.value.problems]


def test_a_billion_laughs_in_connector_parameters_fails_fast_naming_the_file(config_copy):
    path = _globex_with_bomb(config_copy)
    tracemalloc.start()
    try:
        problems = _problems(config_copy)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    (problem,) = [p for p in problems if p.startswith(path)]
    assert "an anchor (&l0) is not allowed" in problem and "line" in problem
    # Refused while composing: the loader never holds more than the text and a few nodes.
    assert peak < 20 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB"


def test_an_alias_or_merge_key_is_refused_with_its_line(config_copy):
    path = config_copy.path("tenants", "acme")
    path.write_text(path.read_text() + "reserved_concurrency: *ten\n")
    (problem,) = _problems(config_copy)
    assert problem.startswith(str(path)) and "an alias (*ten) is not allowed" in problem and "line" in problem


def test_a_file_over_the_size_cap_is_refused_before_parsing(config_copy):
    path = config_copy.path("tenants", "acme")
    path.write_text(path.read_text() + ("# padding\n" * (MAX_FILE_BYTES // 10 + 1)))
    (problem,) = _problems(config_copy)
    assert problem.startswith(str(path)) and f"larger than {MAX_FILE_BYTES // 1024} KiB" in problem


def test_a_file_that_is_not_utf8_is_refused_with_the_byte(config_copy):
    path = config_copy.path("tenants", "acme")
    path.write_bytes(b"description: caf\xe9\n")
    (problem,) = _problems(config_copy)
    assert problem.startswith(str(path)) and "not UTF-8" in problem
