"""Identity rules (issues 4 and 14): who the caller is, and which userId reaches Bedrock."""

from __future__ import annotations

import json

import pytest

from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.identity import (
    LOCAL_DEFAULT_CALLER,
    caller_from_arn,
    caller_from_headers,
    caller_from_raw_headers,
    local_mode_enabled,
    normalize_principal,
    resolve_user_id,
)
from tests.endpoint_server import FUNCTION_ACCOUNT, context_header, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

FRONT_END = "arn:aws:iam::123456789012:role/globex-portal"
FRONT_END_SESSION = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-7"
BATCH_SESSION = "arn:aws:sts::345678901234:assumed-role/globex-batch/nightly"
BATCH_AS_DANA = "arn:aws:sts::345678901234:assumed-role/globex-batch/dana"  # issue 14: a name it chose
VOUCHED_ROLE = "arn:aws:iam::123456789012:role/acme-app"  # listed with user_id_from_session_name
VOUCHED_SESSION = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
IAM_USER = "arn:aws:iam::123456789012:user/ops/carol"
FEDERATED = "arn:aws:sts::123456789012:federated-user/dave"
QUESTION = {"question": "Who owns the billing service?", "maxAgentIteration": 0}


@pytest.mark.parametrize(
    ("arn", "principal"),
    [
        ("arn:aws:sts::111122223333:assumed-role/App/session-1", "arn:aws:iam::111122223333:role/App"),
        ("arn:aws-cn:sts::111122223333:assumed-role/App/s", "arn:aws-cn:iam::111122223333:role/App"),
        ("arn:aws:iam::111122223333:role/team/App", "arn:aws:iam::111122223333:role/App"),
        ("arn:aws:iam::111122223333:user/ops/carol", "arn:aws:iam::111122223333:user/ops/carol"),
        ("not-an-arn", "not-an-arn"),
    ],
)
def test_principals_normalize_assumed_roles_to_their_role(arn, principal):
    assert normalize_principal(arn) == principal


@pytest.mark.parametrize(
    ("arn", "name"),
    [
        ("arn:aws:sts::111122223333:assumed-role/App/SESSION", "SESSION"),
        ("arn:aws:iam::111122223333:user/carol", "carol"),
        ("arn:aws:iam::111122223333:user/ops/carol", "carol"),
        ("arn:aws:sts::111122223333:federated-user/dave", "dave"),
        ("arn:aws:iam::111122223333:root", None),
    ],
)
def test_caller_name_is_the_session_or_user_name(arn, name):
    assert caller_from_arn(arn).name == name


def test_outside_local_mode_a_request_without_a_verified_context_is_401():
    for headers in (
        {},
        {"x-amzn-request-context": "{not json"},
        {"x-amzn-request-context": json.dumps({"authorizer": {}})},
    ):
        with pytest.raises(ApiError) as raised:
            caller_from_headers(headers, local_mode=False)
        assert raised.value.status == 401 and raised.value.code == "unauthenticated"


def test_the_request_context_names_the_caller_and_the_lambda_request_id():
    caller = caller_from_headers(context_header(FRONT_END_SESSION, "req-1"), local_mode=False)
    assert (caller.principal, caller.name, caller.request_id) == (FRONT_END, "portal-7", "req-1")


def test_local_mode_defaults_the_caller_but_a_request_may_bring_its_own():
    assert caller_from_headers({}, local_mode=True).arn == LOCAL_DEFAULT_CALLER
    assert caller_from_headers({}, local_mode=True, local_caller_arn=IAM_USER).name == "carol"
    assert (
        caller_from_headers(context_header(BATCH_SESSION), local_mode=True, local_caller_arn=IAM_USER).name == "nightly"
    )
    with pytest.raises(ApiError):
        caller_from_headers({"x-amzn-request-context": "garbage"}, local_mode=True)


# (user_context, caller arn, body userId, expected userId or (status, code))
UNVERIFIED = (403, "user_identity_unverified")
RULES = [
    ("none", FRONT_END_SESSION, None, None),
    ("none", FRONT_END_SESSION, "bob", (403, "user_id_not_allowed")),
    ("caller", VOUCHED_SESSION, None, "alice"),
    ("caller", IAM_USER, None, "carol"),
    ("caller", FRONT_END_SESSION, None, UNVERIFIED),  # a role not vouched for: its session name is not a user
    ("caller", FEDERATED, None, UNVERIFIED),  # GetFederationToken's name is chosen by the caller
    ("caller", FRONT_END_SESSION, "bob", (403, "user_id_not_allowed")),
    ("caller", "arn:aws:iam::123456789012:root", None, (403, "user_id_unavailable")),
    ("trusted", FRONT_END_SESSION, "bob", "bob"),
    ("trusted", FRONT_END_SESSION, None, UNVERIFIED),  # the trusted front end must name the end user
    ("trusted", BATCH_SESSION, "bob", (403, "user_id_not_allowed")),
    ("trusted", BATCH_AS_DANA, None, UNVERIFIED),  # issue 14 item 2: no fallback to a chosen session name
    ("trusted", VOUCHED_SESSION, None, "alice"),
    ("trusted", IAM_USER, "bob", (403, "user_id_not_allowed")),
    ("trusted", IAM_USER, None, "carol"),
]


@pytest.mark.parametrize(("mode", "arn", "requested", "expected"), RULES)
def test_resolve_user_id_rules(mode, arn, requested, expected):
    caller = caller_from_arn(arn, owner_account=FUNCTION_ACCOUNT)  # the endpoint runs in 123456789012
    if isinstance(expected, tuple):
        with pytest.raises(ApiError) as raised:
            resolve_user_id(mode, caller, requested, [FRONT_END], [VOUCHED_ROLE])
        assert (raised.value.status, raised.value.code) == expected
        assert "arn:" not in raised.value.message and caller.account_id not in raised.value.message
    else:
        assert resolve_user_id(mode, caller, requested, [FRONT_END], [VOUCHED_ROLE]) == expected


def test_trusted_callers_listed_with_a_role_path_still_match():
    caller = caller_from_arn(FRONT_END_SESSION)
    assert resolve_user_id("trusted", caller, "bob", ["arn:aws:iam::123456789012:role/portals/globex-portal"]) == "bob"


@pytest.mark.parametrize(("mode", "arn", "requested", "expected"), RULES)
def test_the_user_id_bedrock_receives_follows_the_rules(app_client, emulator, mode, arn, requested, expected):
    settings = tenant_settings(user_context=mode, trusted_callers=[FRONT_END], session_name_callers=[VOUCHED_ROLE])
    client = app_client(settings, local_mode=False)
    body = {**QUESTION, **({"userId": requested} if requested else {})}
    response = client.post("/v1/query", json=body, headers=context_header(arn))
    if isinstance(expected, tuple):
        assert (response.status_code, response.json()["error"]["code"]) == expected
        assert sent_bodies(emulator) == []
        return
    assert response.status_code == 200
    (sent,) = sent_bodies(emulator)
    assert sent.get("userContext") == (None if expected is None else {"userId": expected})


def test_without_a_context_outside_local_mode_nothing_reaches_bedrock(app_client, emulator):
    client = app_client(tenant_settings(user_context="caller"), local_mode=False)
    response = client.post("/v1/query", json=QUESTION)
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthenticated"
    assert sent_bodies(emulator) == []


@pytest.mark.parametrize(
    "spoof",
    [
        {"caller": FRONT_END_SESSION},
        {"x-amzn-request-context": {"authorizer": {"iam": {"userArn": FRONT_END_SESSION}}}},
        {"userContext": {"userId": "bob"}},
        {"authorizer": {"iam": {"userArn": FRONT_END_SESSION}}},
    ],
)
def test_identity_fields_in_the_body_have_no_effect(app_client, emulator, spoof):
    client = app_client(tenant_settings(user_context="trusted", trusted_callers=[FRONT_END]), local_mode=False)
    response = client.post(
        "/v1/query", json={**QUESTION, **spoof, "userId": "bob"}, headers=context_header(BATCH_SESSION)
    )
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_request"
    assert sent_bodies(emulator) == []
    # Without the spoofed field the untrusted caller is still refused: the body never made it trusted.
    again = client.post("/v1/query", json={**QUESTION, "userId": "bob"}, headers=context_header(BATCH_SESSION))
    assert again.status_code == 403


def test_local_mode_request_may_act_as_another_caller(app_client, emulator):
    client = app_client(tenant_settings(user_context="trusted", trusted_callers=[FRONT_END]))
    assert client.post("/v1/query", json={**QUESTION, "userId": "bob"}).status_code == 403  # default caller
    response = client.post("/v1/query", json={**QUESTION, "userId": "bob"}, headers=context_header(FRONT_END_SESSION))
    assert response.status_code == 200
    assert sent_bodies(emulator)[-1]["userContext"] == {"userId": "bob"}


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, False),
        ({"AKB_LOCAL_MODE": "0"}, False),
        ({"AKB_LOCAL_MODE": "1"}, True),
        ({"AWS_LAMBDA_FUNCTION_NAME": "akb-dev-acme-endpoint"}, False),
    ],
)
def test_local_mode_only_when_asked_for(environ, expected):
    assert local_mode_enabled(environ) is expected


@pytest.mark.parametrize("function_name", ["akb-dev-acme-endpoint", ""])
def test_local_mode_inside_lambda_fails_closed(function_name):
    # Present at all is enough, even empty: a stray empty variable must not open local mode.
    with pytest.raises(RuntimeError, match="local mode accepts requests without a verified caller"):
        local_mode_enabled({"AKB_LOCAL_MODE": "1", "AWS_LAMBDA_FUNCTION_NAME": function_name})


def _duplicated(first: str, second: str) -> list[tuple[str, str]]:
    """Two x-amzn-request-context headers, the client's first: what adapter layers 10-17 forwarded."""
    return [*context_header(first).items(), *context_header(second).items()]


@pytest.mark.parametrize("local_mode", [False, True])
def test_a_repeated_request_context_header_is_refused_in_every_mode(app_client, emulator, local_mode):
    client = app_client(tenant_settings(user_context="trusted", trusted_callers=[FRONT_END]), local_mode=local_mode)
    response = client.post(
        "/v1/query", json={**QUESTION, "userId": "dana"}, headers=_duplicated(FRONT_END_SESSION, BATCH_SESSION)
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "duplicate_request_context"
    assert sent_bodies(emulator) == []


def test_a_repeated_request_context_header_is_refused_even_when_both_copies_agree(app_client, emulator):
    client = app_client(local_mode=False)
    response = client.post("/v1/query", json=QUESTION, headers=_duplicated(VOUCHED_SESSION, VOUCHED_SESSION))
    assert (response.status_code, response.json()["error"]["code"]) == (401, "duplicate_request_context")


def test_the_header_is_matched_whatever_its_case():
    raw = [(b"X-Amzn-Request-Context", b"{}"), (b"x-amzn-request-context", b"{}")]
    with pytest.raises(ApiError) as raised:
        caller_from_raw_headers(raw, local_mode=True)
    assert raised.value.code == "duplicate_request_context"


def test_one_request_context_header_from_the_raw_list_names_the_caller():
    raw = [(key.encode(), value.encode()) for key, value in context_header(FRONT_END_SESSION, "req-9").items()]
    caller = caller_from_raw_headers([(b"accept", b"*/*"), *raw], local_mode=False)
    assert (caller.principal, caller.request_id) == (FRONT_END, "req-9")
