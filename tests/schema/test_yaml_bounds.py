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


# --- issue 26 (Low): nesting and tags -------------------------------------------------------


@pytest.mark.parametrize("opening", ["[", "{a: "])
def test_absurd_nesting_is_a_config_error_naming_the_file_not_a_recursion_error(config_copy, opening):
    """60,000 nested `[` used to raise an uncaught RecursionError out of the YAML composer."""
    path = config_copy.path("tenants", "acme")
    text = path.read_text()
    path.write_text(text + "description: " + opening * 60_000 + "\n")
    (problem,) = [p for p in _problems(config_copy) if p.startswith(str(path))]
    assert "nests deeper than" in problem and f"line {len(text.splitlines()) + 1}," in problem


def test_nesting_a_real_config_needs_still_loads(config_copy):
    path = config_copy.path("tenants", "globex")
    deep = "[" * 20 + "1" + "]" * 20
    row = "            hostType: SAAS\n"
    assert row in path.read_text()
    path.write_text(path.read_text().replace(row, f"{row}            x: {deep}\n"))
    assert load_project(config_copy.root, "dev").tenants["globex"]


@pytest.mark.parametrize(
    ("line", "tag"),
    [
        ("description: !!binary aGVsbG8gd29ybGQ=", "!!binary"),
        ("description: !!str acme", "!!str"),
        ("cost_center: !!python/name:os.system", "!!python/name:os.system"),
        ("reserved_concurrency: !!int '10'", "!!int"),
        ("tags: !!set {a, b}", "!!set"),
        ("description: !custom x", "!custom"),
    ],
)
def test_explicit_yaml_tags_are_refused_with_their_line(config_copy, line, tag):
    path = config_copy.path("tenants", "acme")
    text = path.read_text()
    field = line.split(":", 1)[0]
    kept = "\n".join(row for row in text.splitlines() if not row.startswith(f"{field}:"))
    path.write_text(kept + "\n" + line + "\n")
    (problem,) = [p for p in _problems(config_copy) if p.startswith(str(path))]
    assert f"an explicit tag ({tag}) is not allowed" in problem and "line" in problem


def test_a_set_tag_in_the_environments_tenant_list_is_refused(config_copy):
    path = config_copy.path("environments", "dev")
    path.write_text(path.read_text().replace("tenants: [acme, globex]", "tenants: !!set {acme, globex}"))
    problems = _problems(config_copy)
    assert any(p.startswith(str(path)) and "an explicit tag (!!set)" in p for p in problems), problems
