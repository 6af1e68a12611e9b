"""Resource names that Bedrock accepts: at most N characters, no doubled separators, still unique."""

from __future__ import annotations

import re

from contract.resource_names import bounded_name

BEDROCK_NAME = re.compile(r"^([0-9a-zA-Z][_-]?){1,100}$")


def test_short_names_are_kept():
    assert bounded_name("akb-dev-acme-docs", 100) == "akb-dev-acme-docs"


def test_doubled_hyphens_collapse_so_the_bedrock_pattern_matches():
    assert bounded_name("akb-dev--x-docs", 100) == "akb-dev-x-docs"
    assert BEDROCK_NAME.match(bounded_name("akb-a--b---c", 100))


def test_long_names_are_cut_with_a_hash_that_keeps_them_apart():
    first = bounded_name("akb-" + "e" * 32 + "-" + "t" * 32 + "-guardrail", 50)
    second = bounded_name("akb-" + "e" * 32 + "-" + "t" * 31 + "u-guardrail", 50)
    assert len(first) <= 50 and len(second) <= 50 and first != second
    assert BEDROCK_NAME.match(first) and BEDROCK_NAME.match(second)
