"""The layers' import rules (docs/architecture.md, "Layers"), read from every import statement.

contract <- schema <- policies <- features <- cdk_constructs / monitoring <- stacks; lambdas/ and local/
import only the contract; client/ imports anything but the CDK layers. Two readings:
- what a module imports when it is imported: module-level statements outside `if TYPE_CHECKING:`
  (features/ may import the CDK layers lazily, inside its build and observability hooks);
- every statement, lazy ones included, for the pairs that must never meet (cdk_constructs and
  monitoring; client and the CDK layers).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

PROJECT = {"contract", "schema", "policies", "features", "cdk_constructs", "monitoring", "stacks", "lambdas", "local"}
PROJECT |= {"client", "security"}
# layer -> the project packages its modules may import when imported (module level)
AT_IMPORT = {
    "schema": {"contract", "schema"},
    "policies": {"contract", "schema", "policies"},
    "features": {"contract", "schema", "policies", "features"},
    "local": {"contract", "local"},
}
# layer -> project packages none of its statements may name, lazy or not
NEVER = {
    "cdk_constructs": {"monitoring", "stacks", "client"},
    "monitoring": {"cdk_constructs", "stacks", "client"},
    "client": {"cdk_constructs", "monitoring", "stacks"},
    "features": {"stacks", "client"},
    "policies": {"features", "cdk_constructs", "monitoring", "stacks", "client", "lambdas", "local"},
}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _names(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return {node.module.split(".")[0]}
    return set()


def imports(path: Path, *, at_import_only: bool) -> set[str]:
    """Project packages `path` imports: all statements, or only those that run when it is imported."""
    tree = ast.parse(path.read_text(), filename=str(path))
    if not at_import_only:
        return {name for node in ast.walk(tree) if isinstance(node, ast.stmt) for name in _names(node)} & PROJECT
    found: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        found |= _names(node)
        if isinstance(node, ast.If) and not _is_type_checking(node):
            pending.extend([*node.body, *node.orelse])
        elif isinstance(node, ast.Try):
            pending.extend([*node.body, *node.orelse, *node.finalbody])
    return found & PROJECT


def _modules(layer: str) -> list[Path]:
    return sorted((REPO / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(AT_IMPORT))
def test_a_layer_imports_only_the_layers_below_it_when_imported(layer: str):
    problems = {
        str(path.relative_to(REPO)): sorted(imports(path, at_import_only=True) - AT_IMPORT[layer])
        for path in _modules(layer)
    }
    assert not {name: found for name, found in problems.items() if found}


@pytest.mark.parametrize("layer", sorted(NEVER))
def test_a_layer_never_names_the_layers_it_must_not_meet(layer: str):
    problems = {
        str(path.relative_to(REPO)): sorted(imports(path, at_import_only=False) & NEVER[layer])
        for path in _modules(layer)
    }
    assert not {name: found for name, found in problems.items() if found}


def test_the_reader_tells_import_time_from_lazy_and_type_checking_imports(tmp_path: Path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from typing import TYPE_CHECKING\nimport contract\nif TYPE_CHECKING:\n    import stacks\n"
        "def f():\n    from cdk_constructs import x\n"
    )
    assert imports(sample, at_import_only=True) == {"contract"}
    assert imports(sample, at_import_only=False) == {"contract", "stacks", "cdk_constructs"}


@pytest.mark.slow
def test_akb_policy_and_the_registry_run_without_the_cdk():
    """`akb policy` (every tenant of dev, its features' review hooks included) and importing every
    feature module leave aws_cdk, constructs and jsii unimported."""
    script = (
        "import sys, importlib, pkgutil, features\n"
        "from client.commands.policy import review\n"
        "from schema import load_project\n"
        "for info in pkgutil.iter_modules(features.__path__):\n"
        "    importlib.import_module(f'features.{info.name}')\n"
        "project = load_project('config', 'dev')\n"
        "for tenant in project.tenants:\n"
        "    review(project, tenant)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'aws_cdk', 'constructs', 'jsii'}))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
