"""The contract imports nothing of the project's other layers, nor the CDK, the web framework or the AWS SDK.

Every layer imports `contract`; were `contract` to import one of them back, the Lambda bundle would
need the CDK, or the CDK app the runtime. The check reads every import statement (module-level and
inside functions) of every module under contract/.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

CONTRACT = Path(__file__).resolve().parents[2] / "contract"
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core"}
FORBIDDEN = {"aws_cdk", "constructs", "starlette", "uvicorn", "boto3", "botocore", "httpx"}
PROJECT = {"lambdas", "cdk_constructs", "monitoring", "policies", "client", "local", "stacks", "schema", "features"}


def _imported_packages(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


MODULES = sorted(CONTRACT.glob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: path.name)
def test_a_contract_module_imports_only_the_contract_the_standard_library_and_pydantic(module: Path):
    imported = _imported_packages(module)
    assert not imported & FORBIDDEN, f"{module.name} imports {sorted(imported & FORBIDDEN)}"
    assert not imported & PROJECT, f"{module.name} imports project layers {sorted(imported & PROJECT)}"
    unknown = imported - set(sys.stdlib_module_names) - ALLOWED_THIRD_PARTY - {"contract", "__future__"}
    assert unknown == set(), f"{module.name} imports {sorted(unknown)}"


def test_the_check_sees_a_forbidden_import(tmp_path: Path):
    """The walker finds imports inside functions too (a lazy import is still a dependency)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from aws_cdk import aws_lambda\n    import boto3\n")
    assert _imported_packages(sample) == {"aws_cdk", "boto3"}


def test_every_layer_reads_its_names_from_the_contract():
    """The names moved here live only here: no module elsewhere defines them again."""
    repo = CONTRACT.parent
    spellings = ('"AKB_TENANT_SETTINGS"', '"AKB_CACHE_TABLE"', '"AKB_LOCAL_MODE"', '"AKB_REQUEST_CONTEXTS"')
    offenders = [
        f"{path.relative_to(repo)}: {spelling}"
        for folder in ("lambdas", "cdk_constructs", "monitoring", "policies", "client", "local", "stacks", "features")
        for path in (repo / folder).rglob("*.py")
        for spelling in spellings
        if spelling in path.read_text()
    ]
    assert offenders == []
