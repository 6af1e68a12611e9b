"""Issue 26 item 6: one credential header, a bounded trusted user id, and Retrieve arguments checked.

A second `Authorization` header that differs only in case could carry an unverified token naming a
trusted client; the interceptor refuses the request instead of picking one. The user id a trusted
front end passes follows the endpoint's own rule (contract/request_body.py), and the Retrieve tool's
query and filter are held to the shapes the endpoint enforces (lambdas/endpoint/filters.py).
"""

from __future__ import annotations

import pytest

from contract.request_body import MAX_TEXT_CHARS, MAX_USER_ID_CHARS
from lambdas.endpoint.filters import MAX_DEPTH
from lambdas.gateway_interceptor import mcp_payloads as mcp
from tests.lambdas.gateway_interceptor.gateway_events import (
    RETRIEVE_TOOL,
    TRUSTED_CALLER,
    UNTRUSTED_CALLER,
    event,
    forwarded_arguments,
    question,
    refusal,
    run,
)

VERIFIED = UNTRUSTED_CALLER
FORGED_TRUSTED = TRUSTED_CALLER


@pytest.mark.parametrize("second", ["authorization", "AUTHORIZATION", "AuThOrIzAtIoN"])
def test_two_authorization_headers_differing_in_case_are_refused(second):
    evt = event(
        arguments=question(userContext={"userId": "ceo"}),
        authorization=FORGED_TRUSTED,
        headers={second: VERIFIED},
    )
    error = refusal(run(evt))
    assert error["code"] == mcp.UNAUTHENTICATED
    assert error["message"].startswith("duplicate_credentials:") and "2 times" in error["message"]


def test_duplicate_credentials_are_refused_for_every_method():
    evt = event(method="tools/list", params={}, authorization=VERIFIED, headers={"authorization": VERIFIED})
    assert refusal(run(evt))["code"] == mcp.UNAUTHENTICATED


def test_a_credential_header_that_is_not_one_string_is_refused():
    evt = event(headers={"Authorization": [FORGED_TRUSTED, VERIFIED]})
    assert refusal(run(evt))["message"].startswith("duplicate_credentials:")


def _trusted_naming(user_id: str) -> dict:
    return run(event(arguments=question(userContext={"userId": user_id}), authorization=FORGED_TRUSTED))


def test_a_trusted_user_id_at_the_endpoints_limit_passes():
    longest = "u" * MAX_USER_ID_CHARS
    assert forwarded_arguments(_trusted_naming(longest))["userContext"] == {"userId": longest}


@pytest.mark.parametrize(
    ("user_id", "words"),
    [
        ("u" * (MAX_USER_ID_CHARS + 1), f"1 to {MAX_USER_ID_CHARS} characters"),
        ("bob\x00", "control or invisible character U+0000"),
        ("bob\nadmin", "control or invisible character U+000A"),
        ("bo\u200bb", "control or invisible character U+200B"),
        ("\u202eboB", "control or invisible character U+202E"),
    ],
)
def test_a_trusted_user_id_is_held_to_the_endpoints_rule(user_id, words):
    error = refusal(_trusted_naming(user_id))
    assert error["code"] == mcp.INVALID_PARAMS and words in error["message"]


def _search(**arguments) -> dict:
    return run(event(tool=RETRIEVE_TOOL, arguments=arguments, authorization=VERIFIED))


def _configuration(filter_: object) -> dict:
    return {"managedSearchConfiguration": {"filter": filter_}}


def test_a_well_formed_filter_passes_unchanged():
    good = {
        "andAll": [{"equals": {"key": "team", "value": "billing"}}, {"greaterThan": {"key": "year", "value": 2024}}]
    }
    arguments = forwarded_arguments(
        _search(retrievalQuery={"text": "on-call"}, retrievalConfiguration=_configuration(good))
    )
    assert arguments["retrievalConfiguration"]["managedSearchConfiguration"]["filter"] == good


def _nested(depth: int) -> dict:
    node: dict = {"equals": {"key": "k", "value": "v"}}
    for _ in range(depth):
        node = {"orAll": [node, {"equals": {"key": "k", "value": "w"}}]}
    return node


@pytest.mark.parametrize(
    ("filter_", "words"),
    [
        ({"equals": {"key": "team"}}, "filter.equals must be an object with exactly `key` and `value`"),
        ({"like": {"key": "team", "value": "b%"}}, "unknown operator 'like'"),
        ({"greaterThan": {"key": "year", "value": "2024"}}, "must be a finite number"),
        (_nested(MAX_DEPTH + 1), f"at most {MAX_DEPTH} levels deep"),
        ("team = billing", "must be an object with exactly one operator"),
    ],
)
def test_a_malformed_filter_is_refused_naming_the_spot(filter_, words):
    error = refusal(_search(retrievalQuery={"text": "on-call"}, retrievalConfiguration=_configuration(filter_)))
    assert error["code"] == mcp.INVALID_PARAMS and words in error["message"]
    assert "retrievalConfiguration.managedSearchConfiguration.filter" in error["message"]


@pytest.mark.parametrize(
    "query",
    [
        None,
        "on-call",
        {},
        {"text": ""},
        {"text": "  \u200b "},
        {"text": "q", "type": "IMAGE"},
        {"text": 3},
        {"text": "q" * (MAX_TEXT_CHARS + 1)},
        {"text": "on-call \ud800"},  # a lone surrogate: not text, as the endpoint says
    ],
)
def test_the_retrieve_query_must_be_one_visible_text(query):
    arguments = {} if query is None else {"retrievalQuery": query}
    error = refusal(_search(**arguments))
    assert error["code"] == mcp.INVALID_PARAMS and "retrievalQuery" in error["message"]


@pytest.mark.parametrize("tool", ["docs___retrieve", "DOCS___Retrieve", "payroll___Retrieve"])
def test_a_retrieve_tool_outside_the_tenants_knowledge_bases_is_refused(tool):
    evt = event(tool=tool, arguments={"retrievalQuery": {"text": "q"}}, authorization=VERIFIED)
    assert refusal(run(evt))["message"].startswith(f"invalid_arguments: unknown tool '{tool}'")
