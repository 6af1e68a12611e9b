"""Bad input never reaches Bedrock, never crashes, and always says which field is wrong."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.request_body import MAX_TEXT_CHARS
from tests.endpoint_server import tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

JSON = {"content-type": "application/json"}
OK = {"question": "How do I rotate an API key?"}
LIMIT = 16384  # max_body_bytes of the app under test

# (id, raw body or JSON object, headers, status, code, a word the message must contain)
BAD_INPUTS = [
    ("not-json", b"{nope", JSON, 400, "invalid_json", "JSON"),
    ("json-array", [1, 2], JSON, 400, "invalid_json", "object"),
    ("json-string", "question", JSON, 400, "invalid_json", "object"),
    ("empty-body", b"", JSON, 400, "invalid_json", "JSON"),
    ("deeply-nested-json", b"[" * 1500 + b"]" * 1500, JSON, 400, "invalid_json", "JSON"),
    ("no-question-nor-messages", {}, JSON, 400, "invalid_request", "question"),
    # RFC 8259 where json.loads is lenient (issue 15):
    (
        "nan-in-filter",
        b'{"question": "q", "filter": {"equals": {"key": "a", "value": NaN}}}',
        JSON,
        400,
        "invalid_json",
        "NaN",
    ),
    (
        "infinity-in-filter",
        b'{"question": "q", "filter": {"lessThan": {"key": "a", "value": -Infinity}}}',
        JSON,
        400,
        "invalid_json",
        "Infinity",
    ),
    (
        "overflowing-number-in-filter",
        b'{"question": "q", "filter": {"greaterThan": {"key": "a", "value": 1e999}}}',
        JSON,
        400,
        "invalid_request",
        "finite",
    ),
    ("utf-16-body", json.dumps({"question": "q"}).encode("utf-16"), JSON, 400, "invalid_encoding", "UTF-8"),
    (
        "utf-16-body-without-bom",
        json.dumps({"question": "q"}).encode("utf-16-le"),
        JSON,
        400,
        "invalid_encoding",
        "UTF-8",
    ),
    ("duplicate-key", b'{"question": "a", "question": "b"}', JSON, 400, "duplicate_key", "'question'"),
    (
        "duplicate-key-inside-filter",
        b'{"question": "q", "filter": {"equals": {"key": "a", "key": "b", "value": 1}}}',
        JSON,
        400,
        "duplicate_key",
        "'key'",
    ),
    ("empty-mode", {"question": "q", "mode": ""}, JSON, 400, "invalid_request", "mode"),
    ("zero-width-question", {"question": "\u200b\u200d\ufeff\u2060"}, JSON, 400, "invalid_request", "blank"),
    (
        "zero-width-last-message",
        {"messages": [{"role": "user", "content": "\u200b \u200c"}]},
        JSON,
        400,
        "invalid_request",
        "blank",
    ),
    (
        "both-question-and-messages",
        {**OK, "messages": [{"role": "user", "content": "hi"}]},
        JSON,
        400,
        "invalid_request",
        "exactly one",
    ),
    ("empty-question", {"question": ""}, JSON, 400, "invalid_request", "question"),
    ("blank-question", {"question": "   "}, JSON, 400, "invalid_request", "question"),
    ("question-too-long", {"question": "a" * (MAX_TEXT_CHARS + 1)}, JSON, 400, "invalid_request", "question"),
    ("question-not-string", {"question": 42}, JSON, 400, "invalid_request", "question"),
    ("messages-empty", {"messages": []}, JSON, 400, "invalid_request", "messages"),
    (
        "messages-not-alternating",
        {"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]},
        JSON,
        400,
        "invalid_request",
        "alternate",
    ),
    (
        "messages-last-from-assistant",
        {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]},
        JSON,
        400,
        "invalid_request",
        "last message",
    ),
    (
        "message-bad-role",
        {"messages": [{"role": "system", "content": "a"}]},
        JSON,
        400,
        "invalid_request",
        "messages.0.role",
    ),
    (
        "message-content-not-string",
        {"messages": [{"role": "user", "content": {"text": "a"}}]},
        JSON,
        400,
        "invalid_request",
        "messages.0.content",
    ),
    ("unknown-field", {**OK, "topK": 3}, JSON, 400, "invalid_request", "topK"),
    (
        "knowledge-base-outside-tenant",
        {**OK, "knowledgeBases": ["wiki"]},
        JSON,
        403,
        "knowledge_base_not_allowed",
        "wiki",
    ),
    ("knowledge-bases-empty", {**OK, "knowledgeBases": []}, JSON, 400, "invalid_request", "knowledgeBases"),
    (
        "knowledge-bases-repeated",
        {**OK, "knowledgeBases": ["docs", "docs"]},
        JSON,
        400,
        "invalid_request",
        "repeat",
    ),
    (
        "knowledge-base-raw-id",
        {**OK, "knowledgeBases": ["464J7MR415"]},
        JSON,
        403,
        "knowledge_base_not_allowed",
        "464J7MR415",
    ),
    ("iterations-above-cap", {**OK, "maxAgentIteration": 4}, JSON, 400, "limit_exceeded", "cap of 3"),
    (
        "iterations-negative",
        {**OK, "maxAgentIteration": -1},
        JSON,
        400,
        "invalid_request",
        "maxAgentIteration",
    ),
    (
        "iterations-string",
        {**OK, "maxAgentIteration": "2"},
        JSON,
        400,
        "invalid_request",
        "maxAgentIteration",
    ),
    ("iterations-bool", {**OK, "maxAgentIteration": True}, JSON, 400, "invalid_request", "maxAgentIteration"),
    ("results-above-cap", {**OK, "maxResults": 11}, JSON, 400, "limit_exceeded", "cap of 10"),
    ("results-zero", {**OK, "maxResults": 0}, JSON, 400, "invalid_request", "maxResults"),
    (
        "generate-response-string",
        {**OK, "generateResponse": "yes"},
        JSON,
        400,
        "invalid_request",
        "generateResponse",
    ),
    ("mode-unknown", {**OK, "mode": "magic"}, JSON, 400, "invalid_request", "agentic"),
    (
        "filter-unknown-operator",
        {**OK, "filter": {"like": {"key": "a", "value": "b"}}},
        JSON,
        400,
        "invalid_request",
        "like",
    ),
    (
        "filter-two-operators",
        {**OK, "filter": {"equals": {"key": "a", "value": 1}, "in": {"key": "b", "value": [1]}}},
        JSON,
        400,
        "invalid_request",
        "exactly one",
    ),
    (
        "filter-andall-single",
        {**OK, "filter": {"andAll": [{"equals": {"key": "a", "value": 1}}]}},
        JSON,
        400,
        "invalid_request",
        "at least two",
    ),
    (
        "filter-missing-value",
        {**OK, "filter": {"equals": {"key": "a"}}},
        JSON,
        400,
        "invalid_request",
        "filter.equals",
    ),
    (
        "filter-in-not-list",
        {**OK, "filter": {"in": {"key": "a", "value": "x"}}},
        JSON,
        400,
        "invalid_request",
        "list",
    ),
    (
        "filter-range-not-number",
        {**OK, "filter": {"greaterThan": {"key": "a", "value": "5"}}},
        JSON,
        400,
        "invalid_request",
        "number",
    ),
    (
        "filter-key-too-long",
        {**OK, "filter": {"equals": {"key": "k" * 101, "value": 1}}},
        JSON,
        400,
        "invalid_request",
        "key",
    ),
    ("user-id-empty", {**OK, "userId": ""}, JSON, 400, "invalid_request", "userId"),
    ("user-id-from-untrusted-caller", {**OK, "userId": "bob"}, JSON, 403, "user_id_not_allowed", "userId"),
    (
        "spoofed-caller-field",
        {**OK, "caller": "arn:aws:iam::123456789012:role/admin"},
        JSON,
        400,
        "invalid_request",
        "caller",
    ),
    (
        "spoofed-request-context-field",
        {**OK, "x-amzn-request-context": {"authorizer": {}}},
        JSON,
        400,
        "invalid_request",
        "x-amzn-request-context",
    ),
    (
        "text-plain",
        json.dumps(OK).encode(),
        {"content-type": "text/plain"},
        415,
        "unsupported_media_type",
        "JSON",
    ),
    ("no-content-type", json.dumps(OK).encode(), {}, 415, "unsupported_media_type", "JSON"),
    (
        "form-encoded",
        b"question=hi",
        {"content-type": "application/x-www-form-urlencoded"},
        415,
        "unsupported_media_type",
        "JSON",
    ),
    ("body-too-large", {"question": "a" * 20000}, JSON, 413, "body_too_large", "16384"),
]


@pytest.fixture
def client(app_client):
    return app_client(tenant_settings(max_body_bytes=LIMIT, user_context="caller"))


def post(client, body, headers):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/v1/query", content=raw, headers=headers)


@pytest.mark.parametrize(
    ("body", "headers", "status", "code", "word"),
    [case[1:] for case in BAD_INPUTS],
    ids=[case[0] for case in BAD_INPUTS],
)
def test_bad_input_is_rejected_with_status_code_and_field(client, emulator, body, headers, status, code, word):
    response = post(client, body, headers)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert word.lower() in error["message"].lower()
    assert sent_bodies(emulator) == []  # nothing reached Bedrock


def test_the_table_is_at_least_25_cases():
    assert len(BAD_INPUTS) >= 25


def test_a_good_request_passes_the_same_app(client, emulator):
    response = post(client, {**OK, "knowledgeBases": ["docs"], "maxAgentIteration": 1}, JSON)
    assert response.status_code == 200
    assert len(sent_bodies(emulator)) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
field_names = st.sampled_from(
    [
        "question",
        "messages",
        "knowledgeBases",
        "generateResponse",
        "maxAgentIteration",
        "maxResults",
        "filter",
        "mode",
        "userId",
        "caller",
    ]
)
plausible = st.fixed_dictionaries(
    {"question": st.text(min_size=0, max_size=40)},
    optional={
        "knowledgeBases": st.lists(st.sampled_from(["docs", "tickets", "wiki", ""]), max_size=3),
        "maxAgentIteration": st.integers(-2, 5) | json_values,
        "maxResults": st.integers(-1, 12) | json_values,
        "generateResponse": st.booleans() | json_values,
        "filter": json_values,
        "mode": st.sampled_from(["agentic", "retrieve", ""]),
        "messages": json_values,
    },
)
bodies = (
    st.binary(max_size=200)
    | json_values.map(lambda value: json.dumps(value).encode())
    | st.dictionaries(field_names, json_values, max_size=5).map(lambda value: json.dumps(value).encode())
    | plausible.map(lambda value: json.dumps(value).encode())
)


@pytest.fixture(scope="module")
def fuzz_client(emulator):
    """One in-process app for every example (hypothesis calls the test body many times)."""
    from lambdas.endpoint.asgi_app import create_app
    from tests.endpoint_server import build_service
    from tests.lambdas.endpoint.conftest import TestClient

    settings_ = tenant_settings(max_agent_iteration=1, max_body_bytes=LIMIT)
    with TestClient(create_app(build_service(emulator, settings_, write_metrics=lambda line: None))) as client:
        yield client


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies)
def test_the_parser_never_answers_5xx(fuzz_client, body):
    response = fuzz_client.post("/v1/query", content=body, headers=JSON)
    assert response.status_code < 500, response.text
    if response.status_code != 200:
        error = response.json()["error"]
        assert error["code"] and error["message"]
        assert "Traceback" not in response.text
