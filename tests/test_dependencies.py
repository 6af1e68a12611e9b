"""pyproject.toml declares the product's dependencies; requirements.lock is what gets installed.

The two must agree: every declared dependency is pinned in the lock at a version its range admits,
and every product import of a third-party package is declared.
"""

from __future__ import annotations

import ast
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

PRODUCT = (
    "contract",
    "features",
    "schema",
    "stacks",
    "cdk_constructs",
    "monitoring",
    "policies",
    "lambdas",
    "local",
    "client",
)
# Import name -> distribution name, where they differ.
DISTRIBUTION = {
    "yaml": "PyYAML",
    "aws_cdk": "aws-cdk-lib",
    "cdk_nag": "cdk-nag",
}
# Packages a declared one requires and whose API it exposes (botocore's exceptions, jsii's runtime).
BUNDLED = {"botocore": "boto3", "urllib3": "boto3", "pydantic_core": "pydantic", "jsii": "aws-cdk-lib"}


def _declared(extra: str | None = None) -> dict[str, Requirement]:
    """The product's dependencies, or those of one optional-dependencies list (`dev`: the test tools)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] if extra is None else project["optional-dependencies"][extra]
    return {canonicalize_name(r.name): r for r in map(Requirement, listed)}


def _locked() -> dict[str, str]:
    pins = {}
    for line in (REPO / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.startswith((" ", "#")):
            name, _, version = line.partition("==")
            pins[canonicalize_name(name)] = version.strip()
    return pins


@pytest.mark.parametrize("extra", [None, "dev"], ids=["product", "dev"])
def test_every_declared_dependency_is_locked_at_a_version_its_range_admits(extra):
    locked = _locked()
    for name, requirement in _declared(extra).items():
        assert name in locked, f"{requirement} is declared in pyproject.toml but not pinned in requirements.lock"
        assert requirement.specifier.contains(locked[name]), (
            f"requirements.lock pins {name}=={locked[name]}, outside {requirement}"
        )


def test_every_third_party_package_the_product_imports_is_declared():
    declared = set(_declared())
    local = set(PRODUCT) | {"app"}
    missing = set()
    for package in PRODUCT:
        for path in (REPO / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in local or top in sys.stdlib_module_names or top == "constructs":
                        continue
                    distribution = canonicalize_name(DISTRIBUTION.get(top, BUNDLED.get(top, top)))
                    if distribution not in declared:
                        missing.add(f"{top} ({path.relative_to(REPO)})")
    assert not missing, f"imported but not in pyproject.toml [project] dependencies: {sorted(missing)}"
