"""Every regular expression of the service (lambdas/, contract/) has a shape that matches in linear time.

Python's `re` backtracks, so some shapes cost O(n^2) or worse on a long input (issue 26: the cache
key's `[\\s?!.。]+$` took 0.7 s on 10,000 `?`). This test reads each pattern's syntax tree
(`re._parser`, the parser `re.compile` itself uses) and refuses the shapes that backtrack:

1. nested unbounded repeats (`(a+)+`, `(\\w+\\s?)*`): exponential or polynomial;
2. in a pattern not anchored at its start (`search`, `sub`, `finditer` try every position), an
   unbounded repeat with something after it that can fail, unless the character right before the
   repeat can never be one of the repeat's characters (`"[^"]*"` is fine: a run of non-quotes
   starts after one quote only; `“[^”]*”` is not: every `“` of a run of `“` starts a scan to the
   end). A repeat at the very end (`[\\w.-]*`) always succeeds where it stops, so it is fine.
   Bounded repeats (`{1,80}`) cost at most their bound per position.
3. two unbounded repeats that can match the same character next to each other (`\\d+\\d+x`).

Where the third rule is not enough to tell (a repeat right after a literal word), a pattern may be
listed in REVIEWED with the reason it is linear; the list is checked to name only live patterns.
The shapes are judged over a sample alphabet (ASCII and the Unicode classes requests use), by the
regex engine itself, so `\\s`, `\\w`, classes and IGNORECASE mean what they mean at run time.
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("lambdas", "contract")
_CALLS = frozenset({"compile", "match", "search", "fullmatch", "sub", "subn", "split", "findall", "finditer"})
ALPHABET = frozenset(
    [chr(code) for code in range(128)]
    + list(
        "\u00a0\u00e9\u00df\u00b2\u00bd\u03a9\u044f\u4e2d\u3002\uff1f\u0663\u200b\u2019\u201c\u201d\u300c\u300d\u3000"
    )
)
# Patterns the rules flag but that are linear for the reason given (the literal before the repeat
# holds a space, which the repeat cannot match, so a new attempt never starts inside its run).
REVIEWED = {
    r"not authorized to perform:?\s*(?P<action>[A-Za-z0-9-]+:[A-Za-z0-9*]+)(?:\s+on resource:?\s*"
    r"(?P<resource>[^\s,;]+))?": "the repeats follow the literal 'not authorized to perform', which holds spaces",
}

_p = re._parser  # type: ignore[attr-defined]
_c = re._constants  # type: ignore[attr-defined]
_TERMINALS = {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN}
_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT}
_ZERO_WIDTH = {_c.AT, _c.ASSERT, _c.ASSERT_NOT}


@dataclass(frozen=True)
class Found:
    where: str
    source: str
    flags: int


def _folded(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _folded(node.left), _folded(node.right)
        return None if left is None or right is None else left + right
    return None


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _root_name(node: ast.AST) -> str | None:
    """The variable an expression starts from (`pattern` of `pattern.removeprefix("^")`), if any."""
    while isinstance(node, ast.Call | ast.Attribute):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _inline_patterns(path: Path) -> Iterator[Found | str]:
    """Patterns passed to `re.<call>(...)` in the file's source; a non-literal pattern is reported as a str."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.func.attr in _CALLS):
            continue
        source = _folded(node.args[0])
        where = f"{path.relative_to(ROOT)}:{node.lineno}"
        if source is None:
            if _root_name(node.args[0]) is None:  # a parameter's pattern is checked where it is defined
                yield f"{where}: a pattern built at run time cannot be checked"
            continue
        yield Found(where, source, 0)


def product_patterns() -> tuple[list[Found], list[str]]:
    """Every pattern of the service: compiled module globals, `*_PATTERN` strings, inline literals."""
    found: dict[str, Found] = {}
    problems: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            module = importlib.import_module(_module_name(path))
            for name, value in vars(module).items():
                if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                    found.setdefault(value.pattern, Found(f"{path.name}:{name}", value.pattern, value.flags))
                elif name.endswith("_PATTERN") and isinstance(value, str):
                    found.setdefault(value, Found(f"{path.name}:{name}", value, 0))
            for item in _inline_patterns(path):
                if isinstance(item, str):
                    problems.append(item)
                else:
                    found.setdefault(item.source, item)
    return list(found.values()), problems


class Shape:
    """Sets of first/last characters, nullability and fallibility of parsed pattern nodes."""

    def __init__(self, parsed: _p.SubPattern) -> None:
        self.state = parsed.state

    def _chars(self, node: tuple) -> frozenset[str]:
        single = re._compiler.compile(_p.SubPattern(self.state, [node]), self.state.flags)  # type: ignore[attr-defined]
        return frozenset(char for char in ALPHABET if single.fullmatch(char))

    def ends(self, nodes: list, last: bool = False) -> tuple[frozenset[str], bool]:
        """(characters a match can start with (or end with, `last`), whether it can match empty)."""
        chars: set[str] = set()
        for node in reversed(nodes) if last else nodes:
            node_chars, nullable = self.node_ends(node, last)
            chars |= node_chars
            if not nullable:
                return frozenset(chars), False
        return frozenset(chars), True

    def node_ends(self, node: tuple, last: bool) -> tuple[frozenset[str], bool]:
        op, av = node
        if op in _TERMINALS:
            return self._chars(node), False
        if op in _ZERO_WIDTH:
            return frozenset(), True
        if op == _c.SUBPATTERN:
            return self.ends(list(av[3]), last)
        if op == _c.ATOMIC_GROUP:
            return self.ends(list(av), last)
        if op == _c.BRANCH:
            parts = [self.ends(list(branch), last) for branch in av[1]]
            return frozenset().union(*(chars for chars, _ in parts)), any(nullable for _, nullable in parts)
        if op in _REPEATS or op == _c.POSSESSIVE_REPEAT:
            chars, nullable = self.ends(list(av[2]), last)
            return chars, nullable or av[0] == 0
        return ALPHABET, True  # group references and the like: anything

    def can_fail(self, nodes: list) -> bool:
        return any(self._node_can_fail(node) for node in nodes)

    def _node_can_fail(self, node: tuple) -> bool:
        op, av = node
        if op in _REPEATS or op == _c.POSSESSIVE_REPEAT:
            return av[0] > 0 and self.can_fail(list(av[2]))
        if op == _c.SUBPATTERN:
            return self.can_fail(list(av[3]))
        if op == _c.BRANCH:
            return all(self.can_fail(list(branch)) for branch in av[1])
        return True


def _unbounded(node: tuple) -> bool:
    return node[0] in _REPEATS and node[1][1] == _c.MAXREPEAT


def _contains_unbounded(nodes: list) -> bool:
    for op, av in nodes:
        children = _children((op, av))
        if _unbounded((op, av)) or any(_contains_unbounded(child) for child in children):
            return True
    return False


def _children(node: tuple) -> list[list]:
    op, av = node
    if op == _c.SUBPATTERN:
        return [list(av[3])]
    if op == _c.BRANCH:
        return [list(branch) for branch in av[1]]
    if op in _REPEATS or op == _c.POSSESSIVE_REPEAT:
        return [list(av[2])]
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [list(av[1])]
    if op == _c.ATOMIC_GROUP:
        return [list(av)]
    return []


def _anchored(nodes: list) -> bool:
    if not nodes:
        return False
    op, av = nodes[0]
    if op == _c.AT:
        return av in (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING)
    if op == _c.BRANCH:
        return all(_anchored(list(branch)) for branch in av[1])
    if op == _c.SUBPATTERN:
        return _anchored(list(av[3]))
    return False


@dataclass(frozen=True)
class Context:
    """What surrounds a sequence: can something after it fail; which characters can end what precedes
    it (None: it may start the pattern); is the whole pattern anchored at its start."""

    after_can_fail: bool
    before: frozenset[str] | None
    anchored: bool


def _before(shape: Shape, nodes: list, context: Context) -> frozenset[str] | None:
    chars, nullable = shape.ends(nodes, last=True)
    if not nullable:
        return chars
    return None if context.before is None else chars | context.before


def _sequence_problems(shape: Shape, nodes: list, context: Context) -> Iterator[str]:
    for index, node in enumerate(nodes):
        later_can_fail = context.after_can_fail or shape.can_fail(nodes[index + 1 :])
        before = _before(shape, nodes[:index], context)
        if _unbounded(node):
            body = list(node[1][2])
            if _contains_unbounded(body):
                yield "nested unbounded repeats"
            chars, _ = shape.ends(body)
            if later_can_fail and not context.anchored and (before is None or before & chars):
                yield "an unbounded repeat that can start anywhere in its own run, with a fallible tail"
            elif index and _previous_unbounded_overlaps(shape, nodes[:index], chars):
                yield "adjacent unbounded repeats over the same characters"
        inner_before = before
        if node[0] in _REPEATS or node[0] == _c.POSSESSIVE_REPEAT:  # an iteration follows the one before
            own_last, _ = shape.ends(list(node[1][2]), last=True)
            inner_before = own_last if before is None else before | own_last
        inner = Context(later_can_fail or node[0] in _REPEATS, inner_before, context.anchored)
        for child in _children(node):
            yield from _sequence_problems(shape, child, inner)


def _previous_unbounded_overlaps(shape: Shape, before: list, chars: frozenset[str]) -> bool:
    for node in reversed(before):
        if _unbounded(node):
            last, _ = shape.ends(list(node[1][2]), last=True)
            return bool(last & chars)
        if not shape.ends([node])[1]:
            return False
    return False


def problems_of(source: str, flags: int = 0) -> list[str]:
    parsed = _p.parse(source, flags)
    nodes = list(parsed)
    return sorted(set(_sequence_problems(Shape(parsed), nodes, Context(False, None, _anchored(nodes)))))


@pytest.mark.parametrize(
    "source",
    [
        r"[\s?!.。]+$",  # the cache key's old trailing-punctuation pattern (issue 26)
        r'"[^"]*"|“[^”]*”|「[^」]*」',  # its old quoted-span pattern: `“` runs
        r"\bbetween\s+[^,;?]+?\s+and\s+",  # the router's old range pattern
        r"\s+and\s+",
        r"(a+)+$",
        r"^(\w+\s?)*$",
        r"^\d+\d+x",
    ],
)
def test_the_rules_refuse_the_shapes_that_backtrack(source):
    assert problems_of(source)


@pytest.mark.parametrize(
    "source",
    [r'"[^"]*"', r"[\w][\w'.-]*", r"^\S+$", r"\bbetween [^,;?]{1,80}? and ", r"(?<!\d)\d{12}(?!\d)", r"-{2,}"],
)
def test_the_rules_accept_linear_shapes(source):
    assert problems_of(source) == []


def test_every_service_pattern_matches_in_linear_time():
    patterns, unreadable = product_patterns()
    assert len(patterns) >= 10  # the collector finds the service's patterns at all
    flagged = {
        f"{found.where}: {found.source!r}: {', '.join(problems)}"
        for found in patterns
        if (problems := problems_of(found.source, found.flags)) and found.source not in REVIEWED
    }
    assert not unreadable
    assert not flagged, "\n".join(sorted(flagged))
    assert set(REVIEWED) <= {found.source for found in patterns}, "REVIEWED names a pattern that is gone"
    assert all(problems_of(source) for source in REVIEWED), "REVIEWED names a pattern the rules accept"
