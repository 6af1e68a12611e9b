"""The composition roots name no optional feature: they iterate the registry (features/registry.py).

A feature added as its own modules plus one registry line must not need an edit here, so these files
may not spell one (case-insensitive, comments aside): `stacks/tenant_stack.py` and `akb policy` as
the issue pins them, and the other hosts the registry feeds.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

FEATURE_WORDS = re.compile(r"\b(cache|memory|gateway|agent|quota|quality|playground)", re.IGNORECASE)
ROOTS = (
    "stacks/tenant_stack.py",
    "client/commands/policy.py",
    "stacks/platform_stack.py",
    "monitoring/tenant_observability.py",
    "cdk_constructs/knowledge_base_policy.py",
    "features/endpoint_plan.py",
)


def feature_mentions(text: str) -> list[str]:
    """`line: text` of every non-comment line that names an optional feature."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        code = line.split("#", 1)[0]
        if FEATURE_WORDS.search(code):
            found.append(f"{number}: {line.strip()}")
    return found


@pytest.mark.parametrize("root", ROOTS)
def test_a_composition_root_names_no_optional_feature(root: str):
    assert feature_mentions((REPO / root).read_text()) == []


def test_the_check_sees_a_feature_in_code_and_not_in_a_comment():
    assert feature_mentions("x = 1  # the cache's row\nself.gateway = None\n") == ["2: self.gateway = None"]
