"""RetrievalFilter validation: every operator accepted in its shape, malformed ones named by path."""

from __future__ import annotations

import pytest

from lambdas.endpoint.filters import ATTRIBUTE_OPERATORS, MAX_DEPTH, FilterError, validate_filter

VALUES = {
    "in": ["a", 1],
    "notIn": ["a"],
    "greaterThan": 1,
    "greaterThanOrEquals": 1.5,
    "lessThan": 2,
    "lessThanOrEquals": 2,
    "startsWith": "ab",
    "stringContains": "b",
    "listContains": "x",
    "equals": True,
    "notEquals": "z",
}


def test_the_operator_list_matches_botocore():
    import botocore.session

    shape = botocore.session.get_session().get_service_model("bedrock-agent-runtime").shape_for("RetrievalFilter")
    assert set(shape.members) == ATTRIBUTE_OPERATORS | {"andAll", "orAll"}


@pytest.mark.parametrize("operator", sorted(ATTRIBUTE_OPERATORS))
def test_each_attribute_operator_is_accepted(operator):
    node = {operator: {"key": "k", "value": VALUES[operator]}}
    assert validate_filter(node) is node


def test_nested_and_or_are_accepted():
    leaf = {"equals": {"key": "k", "value": 1}}
    assert validate_filter({"orAll": [leaf, {"andAll": [leaf, leaf]}]})


@pytest.mark.parametrize(
    ("node", "path"),
    [
        (
            {"orAll": [{"equals": {"key": "k", "value": 1}}, {"equals": {"key": "", "value": 1}}]},
            "filter.orAll[1].equals.key",
        ),
        ({"andAll": [{"equals": {"key": "k", "value": 1}}, {"nope": {}}]}, "filter.andAll[1]"),
        ({"equals": {"key": "k", "value": {"nested": 1}}}, "filter.equals.value"),
        ({"lessThan": {"key": "k", "value": True}}, "filter.lessThan.value"),
        ({"notIn": {"key": "k", "value": []}}, "filter.notIn.value"),
        ("equals", "filter"),
    ],
)
def test_malformed_filters_name_the_path(node, path):
    with pytest.raises(FilterError, match=path.replace("[", r"\[").replace("]", r"\]")):
        validate_filter(node)


def test_nesting_is_bounded():
    leaf = {"equals": {"key": "k", "value": 1}}
    node = leaf
    for _ in range(MAX_DEPTH + 1):
        node = {"andAll": [node, leaf]}
    with pytest.raises(FilterError, match="nest"):
        validate_filter(node)
