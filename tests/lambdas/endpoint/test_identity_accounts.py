"""Issue 26 Low items on identity: an ARN is matched whole, and a name is an identity only with its account.

- The caller ARN pattern is matched with `fullmatch`: Python's `$` also matches before a final
  newline, so `...:user/alice\\n` used to name `alice`.
- An IAM user `alice` (or a vouched session name `alice`) of another account is not the tenant's
  `alice`: its user id is `<account id>:alice` (`:` appears in no IAM user or session name), so its
  userContext, cache scope and memory actor differ. The endpoint knows its own account from the
  verified request context (`requestContext.accountId`, the function owner, set by Lambda); a
  context without one cannot tell, and a name-derived user id is then refused (fail closed).
"""

from __future__ import annotations

import json

import pytest

from contract.settings import MemorySettings
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.conversation import actor_id_for
from lambdas.endpoint.identity import caller_from_arn, caller_from_headers, normalize_principal, resolve_user_id
from tests.endpoint_server import context_header, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

OWN = "123456789012"  # the account the endpoint function runs in (tests/endpoint_server.py)
OTHER = "444455556666"
VOUCHED_ROLE = f"arn:aws:iam::{OWN}:role/acme-app"
OTHER_VOUCHED_ROLE = f"arn:aws:iam::{OTHER}:role/partner-app"
QUESTION = {"question": "Who owns the billing service?", "maxAgentIteration": 0}


@pytest.mark.parametrize(
    "arn",
    [
        f"arn:aws:iam::{OWN}:user/alice\n",
        f"arn:aws:sts::{OWN}:assumed-role/acme-app/alice\n",
        f"arn:aws:iam::{OWN}:role/acme-app\n",
    ],
)
def test_an_arn_with_a_trailing_newline_names_nobody(arn):
    with pytest.raises(ApiError) as raised:
        caller_from_arn(arn)
    assert (raised.value.status, raised.value.code) == (401, "unauthenticated")
    assert normalize_principal(arn) == arn  # not turned into a role ARN either
    with pytest.raises(ApiError):
        caller_from_headers(context_header(arn), local_mode=False)


def user_id(arn: str, owner: str | None = OWN, mode: str = "caller") -> str | None:
    headers = context_header(arn, owner_account=owner)
    caller = caller_from_headers(headers, local_mode=False)
    return resolve_user_id(mode, caller, None, (), [VOUCHED_ROLE, OTHER_VOUCHED_ROLE])


@pytest.mark.parametrize(
    ("arn", "expected"),
    [
        (f"arn:aws:iam::{OWN}:user/alice", "alice"),
        (f"arn:aws:iam::{OTHER}:user/alice", f"{OTHER}:alice"),
        (f"arn:aws:iam::{OTHER}:user/ops/alice", f"{OTHER}:alice"),
        (f"arn:aws:sts::{OWN}:assumed-role/acme-app/alice", "alice"),
        (f"arn:aws:sts::{OTHER}:assumed-role/partner-app/alice", f"{OTHER}:alice"),
    ],
)
def test_a_name_from_another_account_carries_its_account(arn, expected):
    assert user_id(arn) == expected


def test_a_context_that_names_no_owner_account_gives_no_name_derived_user_id():
    with pytest.raises(ApiError) as raised:
        user_id(f"arn:aws:iam::{OWN}:user/alice", owner=None)
    assert (raised.value.status, raised.value.code) == (403, "user_identity_unverified")
    assert "account" in raised.value.message and OWN not in raised.value.message


def test_a_malformed_owner_account_is_no_owner_account():
    context = json.loads(context_header(f"arn:aws:iam::{OWN}:user/alice")["x-amzn-request-context"])
    for bad in ("12345678901", f"{OWN}\n", 123456789012, "abcdefghijkl"):
        headers = {"x-amzn-request-context": json.dumps({**context, "accountId": bad})}
        caller = caller_from_headers(headers, local_mode=False)
        with pytest.raises(ApiError):
            resolve_user_id("caller", caller, None, ())


def test_a_trusted_front_ends_user_id_is_taken_as_sent_whatever_the_account():
    front_end = f"arn:aws:sts::{OTHER}:assumed-role/portal/p-1"
    caller = caller_from_headers(context_header(front_end), local_mode=False)
    assert resolve_user_id("trusted", caller, "alice", [f"arn:aws:iam::{OTHER}:role/portal"]) == "alice"


def test_local_mode_without_a_context_treats_its_caller_as_the_functions_own_account():
    caller = caller_from_headers({}, local_mode=True, local_caller_arn=f"arn:aws:iam::{OTHER}:user/alice")
    assert resolve_user_id("caller", caller, None, ()) == "alice"


def test_alice_of_another_account_gets_her_own_user_context_and_memory_actor(app_client, emulator):
    memory = MemorySettings(memory_id="akb_test_memory-abcdefghij")
    settings = tenant_settings(user_context="caller", memory=memory)
    client = app_client(settings, local_mode=False)
    sent = []
    for account in (OWN, OTHER):
        headers = context_header(f"arn:aws:iam::{account}:user/alice", owner_account=OWN)
        response = client.post("/v1/query", json={**QUESTION, "sessionId": "s-1"}, headers=headers)
        assert response.status_code == 200, response.text
        sent.append(sent_bodies(emulator)[-1])
    assert [body["userContext"]["userId"] for body in sent] == ["alice", f"{OTHER}:alice"]
    actors = [body["memoryConfiguration"]["sessionBinding"]["actorId"] for body in sent]
    assert actors == [actor_id_for("alice"), actor_id_for(f"{OTHER}:alice")] and actors[0] != actors[1]


def test_a_tenant_without_acls_still_keeps_the_two_alices_sessions_apart(app_client, emulator):
    memory = MemorySettings(memory_id="akb_test_memory-abcdefghij")
    client = app_client(tenant_settings(user_context="none", memory=memory), local_mode=False)
    actors = []
    for account in (OWN, OTHER):
        headers = context_header(f"arn:aws:iam::{account}:user/alice", owner_account=OWN)
        assert client.post("/v1/query", json={**QUESTION, "sessionId": "s-1"}, headers=headers).status_code == 200
        actors.append(sent_bodies(emulator)[-1]["memoryConfiguration"]["sessionBinding"]["actorId"])
    assert actors[0] != actors[1]
