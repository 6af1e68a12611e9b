"""No validator of the project lets a trailing newline through Python's `$` (issue 26).

In Python, `$` also matches just before a final newline, so `re.match(r"^\\d{12}$", "123456789012\\n")`
succeeds: a value checked that way may carry a newline into an ARN, a header or a log line. Every
place that checks a whole value calls `fullmatch` (or anchors with `\\Z`). This test reads the
source of every product package and fails on a `.match(...)`/`.search(...)` (or `re.match`/`re.search`)
whose pattern (a literal, or a module constant it resolves through imports) holds an unescaped `$`,
and on `re.match`/`re.search` with a pattern passed in (it cannot tell what that pattern holds).
Patterns handed to pydantic (`Field(pattern=...)`) are not Python's: pydantic-core's regex engine
reads `$` as the end of the text, so they are left alone.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("contract", "lambdas", "local", "client", "schema", "features", "policies", "stacks", "cdk_constructs")
_p, _c = re._parser, re._constants  # type: ignore[attr-defined]  # the parser re.compile itself uses


def _has_end_anchor(source: str) -> bool:
    """Whether the pattern holds `$` as an anchor (not `\\$`, not `$` inside a class), by its syntax tree."""
    try:
        pending = [list(_p.parse(source))]
    except re.error:
        return False
    while pending:
        for op, av in pending.pop():
            if op == _c.AT and av == _c.AT_END:
                return True
            if op == _c.SUBPATTERN:
                pending.append(list(av[3]))
            elif op == _c.BRANCH:
                pending.extend(list(branch) for branch in av[1])
            elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
                pending.append(list(av[2]))
            elif op in (_c.ASSERT, _c.ASSERT_NOT):
                pending.append(list(av[1]))
    return False


_CHECKS = frozenset({"match", "search"})


def _module_path(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


class Resolver:
    """Module-level pattern sources by name, followed through `from x import NAME`."""

    def __init__(self) -> None:
        self._tables: dict[Path, dict[str, ast.AST]] = {}
        self._imports: dict[Path, dict[str, tuple[str, str]]] = {}

    def _load(self, path: Path) -> None:
        if path in self._tables:
            return
        table: dict[str, ast.AST] = {}
        imports: dict[str, tuple[str, str]] = {}
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                table[node.targets[0].id] = node.value
        for node in ast.walk(tree):  # imports inside functions too (lazy imports)
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    imports[alias.asname or alias.name] = (node.module, alias.name)
        self._tables[path], self._imports[path] = table, imports

    def source(self, node: ast.AST, path: Path, depth: int = 0) -> str | None:
        """The regex source `node` stands for in the module at `path`, if it can be told statically."""
        if depth > 5:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.source(node.left, path, depth + 1), self.source(node.right, path, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.JoinedStr):  # f-strings of constants
            parts = [self.source(value, path, depth + 1) for value in node.values]
            return None if None in parts else "".join(part or "" for part in parts)
        if isinstance(node, ast.FormattedValue) and node.format_spec is None and node.conversion == -1:
            if _is_re_call(node.value) and node.value.func.attr == "escape":  # type: ignore[attr-defined]
                return "x"  # re.escape(...) is literal text: it can hold no anchor
            return self.source(node.value, path, depth + 1)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile":
            return self.source(node.args[0], path, depth + 1) if node.args else None
        if isinstance(node, ast.Name):
            self._load(path)
            if node.id in self._tables[path]:
                return self.source(self._tables[path][node.id], path, depth + 1)
            if node.id in self._imports[path]:
                module, name = self._imports[path][node.id]
                target = _module_path(module)
                return None if target is None else self.source(ast.Name(id=name), target, depth + 1)
        return None


def _checked_pattern(call: ast.Call) -> ast.AST | None:
    """The pattern node of `X.match(value)` / `re.search(P, value)`, else None."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _CHECKS:
        return None
    if isinstance(func.value, ast.Name) and func.value.id == "re":
        return call.args[0] if call.args else None
    return func.value


def _is_re_call(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else None
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re"


def newline_leaks() -> list[str]:
    resolver, found = Resolver(), []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                pattern = _checked_pattern(node) if isinstance(node, ast.Call) else None
                source = None if pattern is None else resolver.source(pattern, path)
                if source is not None and _has_end_anchor(source):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {source!r}")
                elif source is None and pattern is not None and _is_re_call(node):
                    # `re.search(pattern, value)` with a pattern passed in: whatever it holds, use fullmatch
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: a pattern passed in to re.match/re.search")
    return found


def test_no_product_validator_matches_with_a_dollar_that_admits_a_trailing_newline():
    assert newline_leaks() == []


def test_the_scan_sees_the_shapes_it_looks_for(tmp_path, monkeypatch):
    """The check can fail: a module that validates with `.match` and `$` is reported."""
    package = tmp_path / "contract"
    package.mkdir()
    (package / "bad.py").write_text(
        'import re\nNAME = re.compile(r"^[a-z]+$")\n\ndef ok(v):\n    return NAME.match(v) and re.search(r"^x$", v)\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGES", ("contract",))
    assert [line.split(": ")[0] for line in newline_leaks()] == ["contract/bad.py:5", "contract/bad.py:5"]
    assert not _has_end_anchor(r"[$\u20ac]\s*\d|\$LATEST") and _has_end_anchor(r"^(a|b$)")


@pytest.mark.parametrize(
    "check",
    [
        lambda: __import__("schema.common", fromlist=["_account"])._account("123456789012\n"),
        lambda: __import__("schema.common", fromlist=["_name"])._name("dev\n"),
        lambda: __import__("schema.common", fromlist=["_region"])._region("us-west-2\n"),
    ],
    ids=["account id", "environment or tenant name", "region"],
)
def test_config_values_with_a_trailing_newline_are_refused(check):
    with pytest.raises(ValueError):
        check()
