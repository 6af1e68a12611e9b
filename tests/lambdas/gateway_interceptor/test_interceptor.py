"""The gateway's REQUEST interceptor against the documented event shapes (interceptor contract 1.0)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from lambdas.gateway_interceptor import interceptor
from lambdas.gateway_interceptor.gateway_settings import ENV_VAR
from tests.lambdas.gateway_interceptor.gateway_events import (
    AGENTIC_TOOL,
    PORTAL,
    RETRIEVE_TOOL,
    SETTINGS,
    event,
    forwarded_arguments,
    question,
    refusal,
    run,
    token,
)


def test_a_users_token_sets_user_context_from_its_subject():
    output = run(event(authorization=token(sub="alice", client_id="batch-client")))
    assert forwarded_arguments(output) == question(userContext={"userId": "alice"})


def test_a_trusted_front_end_may_name_the_end_user():
    evt = event(arguments=question(userContext={"userId": "bob"}), authorization=token(sub="svc", client_id=PORTAL))
    assert forwarded_arguments(run(evt))["userContext"] == {"userId": "bob"}


def test_an_untrusted_client_forging_user_context_is_refused_with_a_clear_error():
    evt = event(arguments=question(userContext={"userId": "ceo"}), authorization=token(sub="mallory", client_id="x"))
    error = refusal(run(evt))
    assert error["code"] == -32003
    assert error["message"].startswith("user_id_not_allowed: this caller is not one of this tenant's trusted callers")


def test_a_caller_supplied_user_context_is_refused_where_the_tenant_uses_the_callers_identity():
    settings = replace(SETTINGS, user_context="caller", trusted_callers=[])
    evt = event(arguments=question(userContext={"userId": "ceo"}), authorization=token(sub="alice", client_id=PORTAL))
    assert "user_context: caller" in refusal(run(evt, settings))["message"]


def test_over_cap_iterations_are_refused_and_name_the_cap():
    arguments = question(agenticRetrieveConfiguration={"maxAgentIteration": 50})
    error = refusal(run(event(arguments=arguments, authorization=token(sub="alice", client_id=PORTAL))))
    assert error["code"] == -32602 and "fixed at 4 by tenant globex" in error["message"]


def test_fixed_settings_cannot_be_smuggled_in():
    for arguments in (
        question(retrievers=[{"configuration": {"knowledgeBase": {"knowledgeBaseId": "OTHER"}}}]),
        question(generateResponse=False),
        question(extra={"maxAgentIteration": 9}),
    ):
        error = refusal(run(event(arguments=arguments, authorization=token(sub="a", client_id=PORTAL))))
        assert error["code"] == -32602


def test_retrieve_results_are_capped_by_the_tenant():
    ok = {
        "retrievalQuery": {"text": "on-call"},
        "retrievalConfiguration": {"managedSearchConfiguration": {"numberOfResults": 8}},
    }
    auth = token(sub="alice", client_id=PORTAL)
    assert forwarded_arguments(run(event(tool=RETRIEVE_TOOL, arguments=ok, authorization=auth)))["userContext"]
    over = json.loads(json.dumps(ok))
    over["retrievalConfiguration"]["managedSearchConfiguration"]["numberOfResults"] = 9
    assert "from 1 to 8" in refusal(run(event(tool=RETRIEVE_TOOL, arguments=over, authorization=auth)))["message"]


def test_a_token_without_a_client_claim_or_no_token_is_unauthenticated():
    assert refusal(run(event(authorization=token(sub="alice"))))["code"] == -32001
    assert refusal(run(event()))["code"] == -32001


def test_an_iam_gateway_sends_no_user_context_for_a_tenant_without_acls_and_refuses_a_forged_one():
    settings = replace(SETTINGS, authorizer="AWS_IAM", user_context="none", trusted_callers=[])
    assert forwarded_arguments(run(event(), settings)) == question()
    error = refusal(run(event(arguments=question(userContext={"userId": "ceo"})), settings))
    assert error["message"].startswith("user_id_not_allowed: this tenant does not use document ACLs")


def test_an_iam_gateway_cannot_serve_an_acl_tenant_so_it_refuses_rather_than_guess():
    settings = replace(SETTINGS, authorizer="AWS_IAM", user_context="caller", trusted_callers=[])
    assert refusal(run(event(), settings))["message"].startswith("user_id_unavailable:")


def test_other_methods_pass_through_unchanged():
    evt = event(method="tools/list")
    assert run(evt)["transformedGatewayRequest"]["body"] == evt["mcp"]["gatewayRequest"]["body"]


def test_unknown_tools_and_bad_events_are_refused():
    assert (
        "unknown tool 'other___X'"
        in refusal(run(event(tool="other___X", authorization=token(sub="a", client_id=PORTAL))))["message"]
    )
    output = interceptor.intercept({"interceptorInputVersion": "2.0"}, SETTINGS, "req-2")
    assert output["mcp"]["transformedGatewayResponse"]["body"]["error"]["code"] == -32602


def test_decisions_are_logged_with_the_endpoints_fields_and_never_the_token(caplog):
    auth = token(sub="alice", client_id="batch-client")
    caplog.set_level("INFO")
    run(event(authorization=auth))
    run(event(arguments=question(userContext={"userId": "ceo"}), authorization=auth))
    allowed, refused = (record.__dict__ for record in caplog.records[-2:])
    assert allowed["event"] == "request" and allowed["caller"] == "batch-client" and allowed["tenant"] == "globex"
    assert allowed["tool"] == AGENTIC_TOOL and allowed["correlation_id"] == "req-1"
    assert refused["event"] == "error" and refused["error_code"] == "user_id_not_allowed"
    assert auth.split(" ")[1] not in repr([record.__dict__ for record in caplog.records])


def test_the_lambda_handler_reads_its_settings_from_the_environment(monkeypatch):
    monkeypatch.setenv(ENV_VAR, SETTINGS.to_json())
    monkeypatch.setattr(interceptor, "_settings", None)
    output = interceptor.handler(event(authorization=token(sub="alice", client_id=PORTAL)), None)
    assert output["mcp"]["transformedGatewayRequest"]["body"]["params"]["arguments"]["userContext"] == {
        "userId": "alice"
    }


def test_an_unexpected_failure_refuses_the_call(monkeypatch):
    def broken(*_: Any) -> None:
        raise KeyError("boom")

    monkeypatch.setattr(interceptor, "check_call", broken)
    error = refusal(run(event(authorization=token(sub="a", client_id=PORTAL))))
    assert error["message"].startswith("internal:") and "boom" not in error["message"]


@pytest.mark.parametrize("claims", [{"client_id": PORTAL}, {"client_id": PORTAL, "sub": ""}])
def test_a_token_without_a_user_cannot_read_acl_documents_unless_trusted_and_named(claims):
    assert refusal(run(event(authorization=token(**claims))))["message"].startswith("user_id_unavailable")
