"""Issue 14 item 4: no response names a knowledge-base ARN or the account id; the logs keep them.

Every error path is driven through the real endpoint (uvicorn) and the emulator, whose injected
errors carry the text Bedrock's AccessDenied carries ("User: <role ARN> is not authorized to perform:
<action> on resource: <knowledge-base ARN>"). Each whole response — status line headers, body,
every streamed event — is scanned for `arn:` and 12-digit account ids.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import httpx
import pytest

from lambdas.endpoint.translate import Translator
from local.emulator import kb_id_for
from tests.endpoint_server import context_header, start_endpoint, tenant_settings

ACCOUNT = "123456789012"
KB_ARN = f"arn:aws:bedrock:us-west-2:{ACCOUNT}:knowledge-base/{kb_id_for('docs')}"
LEAKY = (
    f"User: arn:aws:sts::{ACCOUNT}:assumed-role/akb-dev-acme-endpoint/fn is not authorized to perform: "
    f"bedrock:Retrieve on resource: {KB_ARN} because no identity-based policy allows the action "
    f"(account {ACCOUNT})"
)
ERROR_TYPES = [
    "AccessDeniedException",
    "BadGatewayException",
    "ConflictException",
    "DependencyFailedException",
    "InternalServerException",
    "ResourceNotFoundException",
    "ServiceQuotaExceededException",
    "ThrottlingException",
    "ValidationException",
]
FRONT_END = "arn:aws:iam::123456789012:role/globex-portal"
FRONT_END_SESSION = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-1"
UNTRUSTED = "arn:aws:sts::345678901234:assumed-role/globex-batch/dana"
_ACCOUNT_ID = re.compile(rb"(?<!\d)\d{12}(?!\d)")


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def assert_names_no_account_resource(response: httpx.Response, body: bytes) -> None:
    # A generated correlation id is a UUID whose last group can be 12 decimal digits by chance (about 1 in
    # 280): it names no account, so it is checked for ARNs only.
    generated = {"x-request-id"} if _UUID.fullmatch(response.headers.get("x-request-id", "")) else set()
    headers = "\n".join(f"{key}: {value}" for key, value in response.headers.items() if key not in generated).encode()
    assert b"arn:" not in response.headers.get("x-request-id", "").encode()
    for part in (headers, body):
        assert b"arn:" not in part, part.decode()
        assert _ACCOUNT_ID.search(part) is None, part.decode()


@pytest.fixture(scope="module")
def server(emulator) -> Iterator:
    """Not in local mode: every request brings a verified context (request ids without 12 digits)."""
    settings = tenant_settings(user_context="trusted", trusted_callers=[FRONT_END], upstream_max_attempts=1)
    with start_endpoint(emulator, settings, local_mode=False) as handle:
        yield handle


def post(server, body: dict, headers: list[tuple[str, str]] | None = None) -> tuple[httpx.Response, bytes]:
    if headers is None:
        headers = list(context_header(FRONT_END_SESSION, "scan-1").items())
    with httpx.stream("POST", f"{server.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        return response, response.read()


QUESTION = {"question": "How do I rotate an API key?", "userId": "alice", "maxAgentIteration": 1}


@pytest.mark.parametrize("mode", ["agentic", "retrieve"])
@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_errors_before_the_stream_name_no_arn_or_account(server, emulator, caplog, mode, error_type):
    emulator.set_faults(error_before=10, error_before_type=error_type, error_message=LEAKY)
    with caplog.at_level(logging.INFO, logger="akb-endpoint"):
        response, body = post(server, {**QUESTION, "mode": mode})
    assert response.status_code >= 400
    assert_names_no_account_resource(response, body)
    if error_type == "AccessDeniedException":
        assert b"bedrock:Retrieve on knowledge base 'docs'" in body
        assert any(KB_ARN in str(getattr(record, "detail", "")) for record in caplog.records)  # logs keep it


@pytest.mark.parametrize("error_type", ERROR_TYPES)
def test_in_stream_error_events_name_no_arn_or_account(server, emulator, caplog, error_type):
    emulator.set_faults(error_after_events=2, error_type=error_type, error_message=LEAKY)
    with caplog.at_level(logging.INFO, logger="akb-endpoint"):
        response, body = post(server, QUESTION)
    assert response.status_code == 200 and b"event: error" in body
    assert_names_no_account_resource(response, body)
    assert any(KB_ARN in str(getattr(record, "detail", "")) for record in caplog.records)


def test_a_failed_retrieve_in_retrieve_mode_is_a_trace_failure_naming_the_alias_only(server, emulator):
    emulator.set_faults(error_before=1, error_before_type="AccessDeniedException", error_message=LEAKY)
    response, body = post(server, {**QUESTION, "mode": "retrieve"})
    assert response.status_code == 200 and b"upstream_access_denied" in body
    assert_names_no_account_resource(response, body)


@pytest.mark.parametrize(
    ("headers", "body", "status"),
    [
        ([], QUESTION, 401),  # no verified caller
        ([*context_header(UNTRUSTED).items(), *context_header(UNTRUSTED).items()], QUESTION, 401),  # repeated
        (list(context_header(UNTRUSTED, "scan-2").items()), QUESTION, 403),  # userId from an untrusted caller
        (list(context_header(UNTRUSTED, "scan-3").items()), {"question": "x"}, 403),  # no vouched identity
        (list(context_header(f"arn:aws:iam::{ACCOUNT}:root", "scan-4").items()), {"question": "x"}, 403),
        (list(context_header(UNTRUSTED, "scan-5").items()), {"question": ""}, 400),
    ],
)
def test_identity_and_request_errors_name_no_arn_or_account(server, headers, body, status):
    response, raw = post(server, body, headers)
    assert response.status_code == status
    assert_names_no_account_resource(response, raw)


def test_bedrock_trace_failures_and_messages_are_redacted_for_callers():
    """Agentic trace events relay Bedrock's failure texts: callers get them without ARNs."""
    translator = Translator({kb_id_for("docs"): "docs"})
    trace = {
        "traceEvent": {
            "attributes": {
                "step": "Retrieval",
                "status": "FAILED",
                "message": f"denied on {KB_ARN}",
                "failures": [{"message": LEAKY}],
            }
        }
    }
    (event,) = translator.translate(trace)
    assert event.failures == [
        "User: <sts assumed-role; ARN in the endpoint's logs> is not authorized to perform: bedrock:Retrieve on "
        "resource: knowledge base 'docs' because no identity-based policy allows the action (account <account>)"
    ]
    assert event.message == "denied on knowledge base 'docs'"
