"""Upstream failures mapped to stable codes and messages that tell the operator what to change."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from lambdas.endpoint.api_errors import _PERMISSION_HINT, access_denied_message, api_error_for, error_event_for
from lambdas.endpoint.redaction import redact

ROLE = "arn:aws:sts::123456789012:assumed-role/akb-dev-acme-endpoint/akb-dev-acme-endpoint"
KB = "arn:aws:bedrock:eu-west-1:123456789012:knowledge-base/KB12345678"
ALIASES = {"KB12345678": "docs"}


@pytest.mark.parametrize(
    ("upstream", "expected"),
    [
        (
            f"User: {ROLE} is not authorized to perform: bedrock:Retrieve on resource: {KB} because no "
            "identity-based policy allows the bedrock:Retrieve action",
            "the endpoint's role is not allowed bedrock:Retrieve on knowledge base 'docs'; grant it in the "
            "endpoint role's policy",
        ),
        (
            f"User: {ROLE} is not authorized to perform: bedrock:ApplyGuardrail on resource: "
            "arn:aws:bedrock:eu-west-1:123456789012:guardrail/abc123",
            "the endpoint's role is not allowed bedrock:ApplyGuardrail on <bedrock guardrail; ARN in the endpoint's "
            "logs>; grant it in the endpoint role's policy",
        ),
        (
            f"User: {ROLE} is not authorized to perform: bedrock:AgenticRetrieveStream",
            "the endpoint's role is not allowed bedrock:AgenticRetrieveStream; grant it in the endpoint role's policy",
        ),
        ("Access denied", _PERMISSION_HINT),
        ("", _PERMISSION_HINT),
    ],
)
def test_access_denied_names_the_action_and_the_knowledge_base_alias(upstream, expected):
    assert access_denied_message(upstream, ALIASES) == expected


def _denied(message: str) -> ClientError:
    return ClientError({"Error": {"Code": "AccessDeniedException", "Message": message}}, "AgenticRetrieveStream")


def test_a_client_error_carries_its_denied_action_and_alias_and_keeps_the_arns_for_the_logs():
    upstream = f"User: {ROLE} is not authorized to perform: bedrock:InvokeModelWithResponseStream on resource: {KB}."
    api = api_error_for(_denied(upstream), 1, ALIASES)
    assert (api.status, api.code) == (502, "upstream_access_denied")
    assert api.message.startswith(
        "the endpoint's role is not allowed bedrock:InvokeModelWithResponseStream on knowledge base 'docs';"
    )
    assert api.detail == upstream  # the logs keep Bedrock's own text
    assert "arn:" not in str(api.body()) and "123456789012" not in str(api.body())


def test_an_in_stream_access_denied_event_names_no_arn_even_for_an_unknown_knowledge_base():
    event = error_event_for(_denied(f"User: {ROLE} is not authorized to perform: bedrock:Retrieve on resource: {KB}"))
    assert event.code == "upstream_access_denied"
    assert "a knowledge base this tenant does not configure" in event.message
    assert "arn:" not in event.message and "123456789012" not in event.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Retrieve failed on {KB}: denied", "Retrieve failed on knowledge base 'docs': denied"),
        ("knowledge base KB12345678 is not ready", "knowledge base 'docs' is not ready"),
        ("account 123456789012 lacks access", "account <account> lacks access"),
        (f"User: {ROLE} denied", "User: <sts assumed-role; ARN in the endpoint's logs> denied"),
        ("timestamp 17330112345678 stays", "timestamp 17330112345678 stays"),  # 14 digits: not an account id
    ],
)
def test_redact_replaces_arns_and_account_ids(text, expected):
    assert redact(text, ALIASES) == expected
