"""The action-group handler on the documented function-details event and response shapes.

Bedrock's AgenticRetrieveStream is answered by botocore's Stubber on a real client for the
refusals (no call must happen), and by the local emulator for a real stream.
"""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from contract.settings import Retriever, TenantSettings
from lambdas.agent_action.action_contract import requested_knowledge_bases
from lambdas.agent_action.action_handler import handle
from lambdas.agent_action.search_report import SearchReport, Source, parse, render


def _settings(user_context: str = "none") -> TenantSettings:
    return TenantSettings(
        tenant="acme",
        environment="dev",
        retrievers=[Retriever("docs", "KBDOCS0001", "Product docs"), Retriever("tickets", "KBTICKETS1", "Tickets")],
        user_context=user_context,
    )


def _event(function: str = "search_knowledge", parameters=None, session=None, prompt=None) -> dict:
    return {
        "messageVersion": "1.0",
        "agent": {"name": "acme-agent", "id": "AGENT12345", "alias": "ALIAS12345", "version": "1"},
        "inputText": "How do I rotate a key?",
        "sessionId": "s-1",
        "actionGroup": "knowledge",
        "function": function,
        "parameters": parameters if parameters is not None else [{"name": "question", "type": "string", "value": "q"}],
        "sessionAttributes": session or {},
        "promptSessionAttributes": prompt or {},
    }


@pytest.fixture
def stubbed_client():
    client = boto3.client(
        "bedrock-agent-runtime", region_name="us-west-2", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stubber:
        yield client
        stubber.assert_no_pending_responses()


def _function_response(response: dict) -> dict:
    assert response["messageVersion"] == "1.0"
    assert response["response"]["actionGroup"] == "knowledge"
    return response["response"]["functionResponse"]


def test_missing_question_is_a_reprompt_and_calls_nothing(stubbed_client):
    result = _function_response(handle(_event(parameters=[]), _settings(), stubbed_client))
    assert result["responseState"] == "REPROMPT"
    assert "question" in result["responseBody"]["TEXT"]["body"]


def test_unknown_function_fails_and_names_the_one_there_is(stubbed_client):
    response = handle(_event(function="delete_everything"), _settings(), stubbed_client)
    result = _function_response(response)
    assert response["response"]["function"] == "delete_everything"
    assert result["responseState"] == "FAILURE"
    assert "search_knowledge" in result["responseBody"]["TEXT"]["body"]


def test_knowledge_base_outside_the_tenant_is_a_reprompt(stubbed_client):
    parameters = [
        {"name": "question", "type": "string", "value": "q"},
        {"name": "knowledge_bases", "type": "string", "value": "docs, payroll"},
    ]
    result = _function_response(handle(_event(parameters=parameters), _settings(), stubbed_client))
    assert result["responseState"] == "REPROMPT"
    assert "payroll" in result["responseBody"]["TEXT"]["body"]


def test_trusted_tenant_without_session_user_id_fails_closed(stubbed_client):
    result = _function_response(handle(_event(), _settings("trusted"), stubbed_client))
    assert result["responseState"] == "FAILURE"
    assert "user_id_unavailable" in result["responseBody"]["TEXT"]["body"]


def test_user_id_in_a_parameter_is_never_used_as_identity(stubbed_client):
    parameters = [
        {"name": "question", "type": "string", "value": "q"},
        {"name": "userId", "type": "string", "value": "alice"},
    ]
    result = _function_response(handle(_event(parameters=parameters), _settings("trusted"), stubbed_client))
    assert result["responseState"] == "FAILURE"


def test_turn_user_id_on_a_tenant_without_acls_is_refused(stubbed_client):
    result = _function_response(handle(_event(prompt={"userId": "alice"}), _settings("none"), stubbed_client))
    assert result["responseState"] == "FAILURE"
    assert "user_id_not_allowed" in result["responseBody"]["TEXT"]["body"]


@pytest.mark.parametrize("key", ["userId", "userid", "USERID"])
def test_a_user_id_session_attribute_is_refused_even_beside_this_turns_user(stubbed_client, key):
    """Issue 26 item 4: a session attribute outlives its turn, so it never names the end user."""
    event = _event(session={key: "dana"}, prompt={"userId": "dana"})
    result = _function_response(handle(event, _settings("trusted"), stubbed_client))
    assert result["responseState"] == "FAILURE"
    body = result["responseBody"]["TEXT"]["body"]
    assert (
        body.startswith(f"user_id_not_allowed: sessionAttributes.{key} persists") and "promptSessionAttributes" in body
    )


@pytest.mark.parametrize(
    ("user_id", "words"), [("u" * 257, "1 to 256 characters"), ("dana\n", "U+000A"), ("da\u200bna", "U+200B")]
)
def test_the_turns_user_id_follows_the_endpoints_rule(stubbed_client, user_id, words):
    result = _function_response(handle(_event(prompt={"userId": user_id}), _settings("trusted"), stubbed_client))
    assert result["responseState"] == "FAILURE"
    assert (
        result["responseBody"]["TEXT"]["body"].startswith("invalid_user_id:")
        and words in result["responseBody"]["TEXT"]["body"]
    )


def test_not_a_function_event_fails_without_raising(stubbed_client):
    response = handle({"apiPath": "/x"}, _settings(), stubbed_client)
    assert response["response"]["functionResponse"]["responseState"] == "FAILURE"


def test_upstream_access_denied_fails_without_arn_or_account():
    client = boto3.client(
        "bedrock-agent-runtime", region_name="us-west-2", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(client) as stubber:
        stubber.add_client_error(
            "agentic_retrieve_stream",
            "AccessDeniedException",
            "User: arn:aws:sts::123456789012:assumed-role/r/s is not authorized to perform: bedrock:Retrieve "
            "on resource: arn:aws:bedrock:us-west-2:123456789012:knowledge-base/KBDOCS0001",
            403,
        )
        result = _function_response(handle(_event(), _settings(), client))
    body = result["responseBody"]["TEXT"]["body"]
    assert result["responseState"] == "FAILURE"
    assert "123456789012" not in body and "arn:" not in body


def test_report_over_the_limit_is_cut_and_says_so():
    report = SearchReport(answer="A" * 3000, sources=[Source("docs", f"d{i}.md", "x" * 500) for i in range(40)])
    text = render(report, 4000)
    assert len(text.encode()) <= 4000
    parsed = parse(text)
    assert parsed.truncated is not None and not parsed.complete
    assert text.splitlines()[0] == "status: complete" and text.splitlines()[1].startswith("truncated:")


def test_partial_report_never_reads_as_complete():
    text = render(SearchReport(answer="a", sources=[Source("docs", "a.md")], partial_reason="iteration_limit"), 20_000)
    assert text.startswith("status: partial (iteration_limit)")
    assert parse(text).partial_reason == "iteration_limit"


def test_answer_alone_over_the_limit_is_cut_within_bytes():
    text = render(SearchReport(answer="é" * 5000, sources=[]), 2000)
    assert len(text.encode()) <= 2000 and "answer cut" in text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, None), ("", None), ("docs", ["docs"]), ("docs, tickets", ["docs", "tickets"]), ('["docs"]', ["docs"])],
)
def test_knowledge_bases_parameter_forms(raw, expected):
    assert requested_knowledge_bases(raw) == expected


def test_lambda_handler_reads_its_settings_and_fails_past_its_deadline(monkeypatch, emulator):
    import time

    from lambdas.agent_action import action_handler
    from lambdas.endpoint import upstream

    settings = TenantSettings(
        tenant="sample", environment="local", retrievers=[Retriever("docs", emulator.knowledge_bases["docs"], "Docs")]
    )
    monkeypatch.setenv("AKB_TENANT_SETTINGS", settings.to_json())
    monkeypatch.setattr(action_handler, "_settings", None)
    monkeypatch.setattr(upstream, "shared_client", emulator.client)

    class Context:
        def __init__(self, seconds: float) -> None:
            self.end = time.monotonic() + seconds

        def get_remaining_time_in_millis(self) -> int:
            return int((self.end - time.monotonic()) * 1000)

    answered = action_handler.lambda_handler(_event(), Context(60))["response"]["functionResponse"]
    assert "responseState" not in answered and answered["responseBody"]["TEXT"]["body"].startswith("status: complete")
    late = action_handler.lambda_handler(_event(), Context(1))["response"]["functionResponse"]
    assert late["responseState"] == "FAILURE" and late["responseBody"]["TEXT"]["body"].startswith("deadline")
