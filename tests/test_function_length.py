"""No function of the product code is over 60 lines: each reads in one screen (tests and bench/ aside)."""

from __future__ import annotations

import ast

from tests.conftest import REPO

LIMIT = 60
PRODUCT = ("schema", "stacks", "cdk_constructs", "monitoring", "policies", "lambdas", "local", "client", "security")


def test_no_product_function_is_over_60_lines():
    too_long = []
    paths = [REPO / "app.py", *(path for package in PRODUCT for path in (REPO / package).rglob("*.py"))]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > LIMIT:
                    too_long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({length} lines)")
    assert not too_long, "split these into named steps: " + "; ".join(too_long)
