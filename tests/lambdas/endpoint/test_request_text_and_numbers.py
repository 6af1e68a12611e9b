"""Issue 26 Low items on the request body: lone surrogates, unbounded numbers, invisible questions.

Each is answered 400 with the field named, with the result cache on and off, and nothing reaches
Bedrock (the emulator's journal stays empty).
"""

from __future__ import annotations

import json

import pytest

from lambdas.endpoint import filters
from lambdas.endpoint.filters import FilterError, validate_filter
from tests.endpoint_server import tenant_settings
from tests.lambdas.endpoint.cache.conftest import cached_service
from tests.lambdas.endpoint.conftest import sent_bodies

JSON = {"content-type": "application/json"}


@pytest.fixture(params=["cache off", "cache on"])
def client(request, app_client, emulator):
    if request.param == "cache on":
        settings, cache = cached_service(emulator)
        return app_client(settings, cache=cache)
    return app_client(tenant_settings(user_context="caller"))


def post(client, raw: bytes):
    return client.post("/v1/query", content=raw, headers=JSON)


# Raw JSON text: `\ud800` is an escape json.dumps would never write for a str without a surrogate.
SURROGATES = [
    ("filter key", b'{"question": "q", "filter": {"equals": {"key": "a\\ud800", "value": "x"}}}', "filter"),
    ("filter value", b'{"question": "q", "filter": {"equals": {"key": "a", "value": "x\\udfff"}}}', "filter"),
    ("filter list item", b'{"question": "q", "filter": {"in": {"key": "a", "value": ["ok", "\\ud83d"]}}}', "filter"),
    (
        "nested filter",
        b'{"question": "q", "filter": {"andAll": [{"equals": {"key": "a", "value": 1}}, '
        b'{"startsWith": {"key": "b", "value": "\\udc00x"}}]}}',
        "filter",
    ),
    ("question", b'{"question": "hi \\ud800 there"}', "question"),
    ("message", b'{"messages": [{"role": "user", "content": "\\udbff"}]}', "messages"),
    ("unknown field name", b'{"question": "q", "\\ud800": 1}', "body"),
]


@pytest.mark.parametrize(("where", "raw", "named"), SURROGATES, ids=[case[0] for case in SURROGATES])
def test_a_lone_surrogate_anywhere_is_a_400_naming_its_place(client, emulator, where, raw, named):
    response = post(client, raw)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_encoding"
    assert named in error["message"] and "surrogate" in error["message"]
    assert sent_bodies(emulator) == []


def test_a_valid_surrogate_pair_is_an_ordinary_character(client, emulator):
    raw = (
        b'{"question": "What does \\ud83d\\ude00 mean?", '
        b'"filter": {"equals": {"key": "mood", "value": "\\ud83d\\ude00"}}}'
    )
    assert post(client, raw).status_code == 200
    assert sent_bodies(emulator)[0]["retrievers"][0]["configuration"]["knowledgeBase"]["retrievalOverrides"][
        "filter"
    ] == {"equals": {"key": "mood", "value": "\U0001f600"}}


BIG = "9" * 4000
NUMBERS = [
    ("4,000 digits in equals", f'{{"equals": {{"key": "n", "value": {BIG}}}}}'),
    ("4,000 digits in greaterThan", f'{{"greaterThan": {{"key": "n", "value": -{BIG}}}}}'),
    ("4,000 digits in a list", f'{{"in": {{"key": "n", "value": [1, {BIG}]}}}}'),
    ("just past 2^53", f'{{"lessThan": {{"key": "n", "value": {2**53}}}}}'),
    ("a float past 2^53", '{"lessThanOrEquals": {"key": "n", "value": 1e300}}'),
]


@pytest.mark.parametrize(("case", "filter_json"), NUMBERS, ids=[case[0] for case in NUMBERS])
def test_a_number_outside_the_bound_is_a_400_naming_the_bound(client, emulator, case, filter_json):
    response = post(client, f'{{"question": "q", "filter": {filter_json}}}'.encode())
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert "filter." in error["message"] and "9007199254740991" in error["message"]
    assert len(response.text) < 1000  # the 4,000 digits are not echoed back
    assert sent_bodies(emulator) == []


@pytest.mark.parametrize("value", [2**53 - 1, -(2**53) + 1, 2025, 0.5, -1e15])
def test_numbers_within_the_bound_pass(value):
    assert filters.MAX_FILTER_NUMBER == 2**53 - 1
    assert validate_filter({"greaterThan": {"key": "year", "value": value}})


def test_the_filter_check_itself_refuses_surrogates_and_big_numbers():
    """The gateway interceptor runs the same check on the Retrieve tool's filter (no JSON parse of ours)."""
    for bad in (
        {"equals": {"key": "a\ud800", "value": 1}},
        {"equals": {"key": "a", "value": "\udfff"}},
        {"in": {"key": "a", "value": [1, 10**4000]}},
    ):
        with pytest.raises(FilterError):
            validate_filter(bad)


INVISIBLE = [
    ("hangul filler", "\u3164"),
    ("halfwidth hangul filler", "\uffa0\uffa0"),
    ("hangul choseong and jungseong fillers", "\u115f\u1160"),
    ("braille blank", "\u2800\u2800\u2800"),
    ("combining marks only", "\u0301\u0308\u20dd"),
    ("variation selectors", "\ufe0f\U000e0100"),
    ("combining grapheme joiner and tags", "\u034f\U000e0041\U000e007f"),
    ("mixed with spaces and zero-width", " \u3164\u200b\u2800 \u0301\u00ad "),
    ("private use", "\ue000\uf8ff"),
]


@pytest.mark.parametrize(("case", "text"), INVISIBLE, ids=[case[0] for case in INVISIBLE])
def test_a_question_of_invisible_characters_is_blank(client, emulator, case, text):
    for body in ({"question": text}, {"messages": [{"role": "user", "content": text}]}):
        response = post(client, json.dumps(body).encode())
        assert response.status_code == 400, response.text
        assert "blank" in response.json()["error"]["message"]
    assert sent_bodies(emulator) == []


@pytest.mark.parametrize("text", ["\u00e9", "\u1100\u1161", "\u2801", "\u4e2d", "e\u0301", "\U0001f600", "?"])
def test_a_question_with_one_visible_character_passes(text):
    from contract.request_body import visible

    assert visible(text)
