from __future__ import annotations

import pytest

from local.emulator.filter_match import matches, validate_filter
from local.emulator.service_errors import ServiceError

META = {"product": "skyledger", "year": 2024, "tags": ["export", "billing"], "title": "BulkExport guide"}


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"equals": {"key": "product", "value": "skyledger"}}, True),
        ({"equals": {"key": "product", "value": "pipedream"}}, False),
        ({"notEquals": {"key": "product", "value": "pipedream"}}, True),
        ({"notEquals": {"key": "missing", "value": "x"}}, True),
        ({"greaterThan": {"key": "year", "value": 2023}}, True),
        ({"greaterThan": {"key": "year", "value": 2024}}, False),
        ({"greaterThanOrEquals": {"key": "year", "value": 2024}}, True),
        ({"lessThan": {"key": "year", "value": 2024}}, False),
        ({"lessThanOrEquals": {"key": "year", "value": 2024}}, True),
        ({"greaterThan": {"key": "product", "value": 1}}, False),
        ({"in": {"key": "product", "value": ["skyledger", "signalbox"]}}, True),
        ({"notIn": {"key": "product", "value": ["skyledger"]}}, False),
        ({"startsWith": {"key": "product", "value": "sky"}}, True),
        ({"listContains": {"key": "tags", "value": "export"}}, True),
        ({"listContains": {"key": "tags", "value": "tax"}}, False),
        ({"stringContains": {"key": "title", "value": "Export"}}, True),
        ({"stringContains": {"key": "tags", "value": "bill"}}, True),
        ({"equals": {"key": "missing", "value": "x"}}, False),
        (
            {
                "andAll": [
                    {"equals": {"key": "product", "value": "skyledger"}},
                    {"lessThan": {"key": "year", "value": 2020}},
                ]
            },
            False,
        ),
        (
            {
                "orAll": [
                    {"equals": {"key": "product", "value": "nope"}},
                    {"greaterThan": {"key": "year", "value": 2020}},
                ]
            },
            True,
        ),
    ],
)
def test_operator_semantics(node, expected):
    validate_filter(node, "filter")
    assert matches(node, META) is expected


@pytest.mark.parametrize(
    "node",
    [
        {"in": {"key": "product", "value": "skyledger"}},
        {"greaterThan": {"key": "year", "value": "2020"}},
        {"andAll": [{"equals": {"key": "a", "value": 1}}]},
        {"equals": {"key": "a", "value": 1}, "notEquals": {"key": "a", "value": 2}},
        {"sortOf": {"key": "a", "value": 1}},
    ],
)
def test_malformed_filters_are_validation_errors(node):
    with pytest.raises(ServiceError) as error:
        validate_filter(node, "filter")
    assert error.value.code == "ValidationException"
