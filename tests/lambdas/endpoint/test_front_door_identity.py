"""The API Gateway front door's identity path (issue 19): the REST request context names the caller, with the
same rules and the same duplicate-header refusal as the function URL's; each function reads only its own
front doors' context shapes; the local stand-in for API Gateway feeds that shape through the real app."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from lambdas.endpoint import identity
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.asgi_app import create_app
from lambdas.endpoint.local_front_door import LocalApiGateway, api_gateway_context
from tests.endpoint_server import build_service, context_header, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

VOUCHED_SESSION = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
OTHER_SESSION = "arn:aws:sts::123456789012:assumed-role/acme-app/mallory"
QUESTION = {"question": "How do I rotate an API key?", "maxAgentIteration": 0}
API = (identity.API_GATEWAY,)


def api_header(arn: str, request_id: str = "apigw-req-1") -> dict[str, str]:
    """The x-amzn-request-context the adapter sends for a REST API AWS_IAM call (lambda_http's serialisation)."""
    context = api_gateway_context(arn, "POST", "/v1/query", "203.0.113.9")
    context["requestId"] = request_id
    return {identity.CONTEXT_HEADER: json.dumps(context)}


def test_an_api_gateway_context_names_the_caller_from_identity_user_arn():
    raw = [(k.encode(), v.encode()) for k, v in api_header(VOUCHED_SESSION, "r-7").items()]
    caller = identity.caller_from_raw_headers(raw, False, None, API)
    assert (caller.principal, caller.name, caller.request_id) == (
        "arn:aws:iam::123456789012:role/acme-app",
        "alice",
        "r-7",
    )


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        (context_header(VOUCHED_SESSION), API),  # a function URL's context at an API-only function
        (api_header(VOUCHED_SESSION), identity.DEFAULT_REQUEST_CONTEXTS),  # an API's context at a URL-only function
    ],
)
def test_a_context_of_another_front_door_names_nobody(header, accepted):
    raw = [(k.encode(), v.encode()) for k, v in header.items()]
    with pytest.raises(ApiError) as raised:
        identity.caller_from_raw_headers(raw, False, None, accepted)
    assert (raised.value.status, raised.value.code) == (401, "unauthenticated")


def test_during_a_migration_both_shapes_name_their_caller():
    both = (identity.FUNCTION_URL, identity.API_GATEWAY)
    for header in (context_header(VOUCHED_SESSION), api_header(VOUCHED_SESSION)):
        raw = [(k.encode(), v.encode()) for k, v in header.items()]
        assert identity.caller_from_raw_headers(raw, False, None, both).name == "alice"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({}, ("function_url",)),
        ({"AKB_REQUEST_CONTEXTS": "api_gateway"}, ("api_gateway",)),
        ({"AKB_REQUEST_CONTEXTS": "function_url, api_gateway"}, ("function_url", "api_gateway")),
    ],
)
def test_the_accepted_shapes_come_from_the_environment(value, expected):
    assert identity.request_contexts_from(value) == expected


def test_an_unknown_shape_stops_the_function_at_start():
    with pytest.raises(RuntimeError, match="AKB_REQUEST_CONTEXTS names cognito"):
        identity.request_contexts_from({"AKB_REQUEST_CONTEXTS": "cognito"})


def test_the_api_path_applies_the_user_id_rules_and_reaches_bedrock_with_the_callers_name(app_client, emulator):
    client = app_client(tenant_settings(user_context="caller"), local_mode=False, request_contexts=API)
    response = client.post("/v1/query", json=QUESTION, headers=api_header(VOUCHED_SESSION))
    assert response.status_code == 200, response.text
    assert sent_bodies(emulator)[-1]["userContext"] == {"userId": "alice"}
    refused = client.post("/v1/query", json={**QUESTION, "userId": "bob"}, headers=api_header(VOUCHED_SESSION))
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "user_id_not_allowed")


def test_a_client_sent_context_behind_the_local_api_gateway_is_refused_as_a_duplicate(emulator):
    service = build_service(emulator, tenant_settings(user_context="caller"), local_mode=True, request_contexts=API)
    with TestClient(LocalApiGateway(create_app(service), VOUCHED_SESSION)) as client:
        ok = client.post("/v1/query", json=QUESTION)
        forged = client.post("/v1/query", json=QUESTION, headers=api_header(OTHER_SESSION))
    assert ok.status_code == 200
    assert (forged.status_code, forged.json()["error"]["code"]) == (401, "duplicate_request_context")
    assert [body["userContext"] for body in sent_bodies(emulator)] == [{"userId": "alice"}]


def test_the_local_api_gateway_refuses_a_caller_that_is_not_an_iam_principal():
    with pytest.raises(ApiError):
        LocalApiGateway(create_app, "not-an-arn")  # type: ignore[arg-type]
