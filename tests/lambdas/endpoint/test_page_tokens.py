"""`nextToken` continues the request it came from, for the caller it was given to (issue 26 Low item).

`done.nextToken` is Bedrock's token sealed by the endpoint with an HMAC over the token and a digest
of what the page continues: tenant, caller, user id, question (with its history), knowledge bases and
filter. Sent back with anything else changed, or by anyone else, it is 400 `invalid_next_token` and
nothing reaches Bedrock; unchanged, Bedrock gets its own token back.
"""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from contract.request_body import MAX_NEXT_TOKEN_CHARS
from lambdas.endpoint.api_errors import ApiError
from lambdas.endpoint.page_tokens import PageTokens, page_tokens_from_environment
from tests.endpoint_server import context_header, iter_frames, start_endpoint, tenant_settings
from tests.lambdas.endpoint.conftest import sent_bodies

PAGED = {"question": "Summarize BulkExport and list all its limits", "maxResults": 1}
ALICE = "arn:aws:sts::123456789012:assumed-role/acme-app/alice"
BOB = "arn:aws:sts::123456789012:assumed-role/acme-app/bob"


def ask(endpoint, body, caller=ALICE):
    headers = context_header(caller, request_id=str(uuid.uuid4()))
    with httpx.stream("POST", f"{endpoint.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        if response.status_code != 200:
            return response.status_code, json.loads(response.read())
        return 200, list(iter_frames(response))


def first_page(endpoint, body=PAGED, caller=ALICE) -> str:
    status, frames = ask(endpoint, body, caller)
    assert status == 200
    token = frames[-1].data.get("nextToken")
    assert token, "the question must have a second page"
    return token


@pytest.fixture(params=["none", "caller"])
def paged(request, emulator):
    with start_endpoint(emulator, tenant_settings(user_context=request.param)) as endpoint:
        yield endpoint


CHANGES = [
    ("another question", {"question": "What are the Pro plan's rate limits?"}),
    ("another knowledge base set", {"knowledgeBases": ["docs"]}),
    ("a filter", {"filter": {"equals": {"key": "product", "value": "skyledger"}}}),
    ("a history", {"question": None, "messages": [{"role": "user", "content": PAGED["question"] + " "}]}),
]


@pytest.mark.parametrize(("case", "change"), CHANGES, ids=[case for case, _ in CHANGES])
def test_a_token_sent_with_another_request_is_refused_before_bedrock(paged, emulator, case, change):
    token = first_page(paged)
    calls = len(sent_bodies(emulator))
    body = {key: value for key, value in {**PAGED, **change, "nextToken": token}.items() if value is not None}
    status, error = ask(paged, body)
    assert (status, error["error"]["code"]) == (400, "invalid_next_token"), case
    assert len(sent_bodies(emulator)) == calls


def test_a_token_sent_by_another_caller_is_refused_before_bedrock(paged, emulator):
    token = first_page(paged)
    calls = len(sent_bodies(emulator))
    status, error = ask(paged, {**PAGED, "nextToken": token}, caller=BOB)
    assert (status, error["error"]["code"]) == (400, "invalid_next_token")
    assert len(sent_bodies(emulator)) == calls


def test_the_same_request_gets_the_next_page_and_bedrock_its_own_token(paged, emulator):
    token = first_page(paged)
    upstream_token = token.rsplit(".", 1)[0]
    status, frames = ask(paged, {**PAGED, "nextToken": token})
    assert status == 200 and frames[-1].data["stopReason"] == "complete"
    assert sent_bodies(emulator)[-1]["nextToken"] == upstream_token


@pytest.mark.parametrize("forge", ["bedrock's own token", "one character changed", "another key's seal"])
def test_a_token_the_endpoint_did_not_seal_is_refused(paged, emulator, forge):
    token = first_page(paged)
    upstream, mac = token.rsplit(".", 1)
    forged = {
        "bedrock's own token": upstream,
        "one character changed": upstream[:-1] + ("A" if upstream[-1] != "A" else "B") + "." + mac,
        "another key's seal": PageTokens(b"k" * 32).seal(upstream, b"anything"),
    }[forge]
    calls = len(sent_bodies(emulator))
    status, error = ask(paged, {**PAGED, "nextToken": forged})
    assert (status, error["error"]["code"]) == (400, "invalid_next_token")
    assert len(sent_bodies(emulator)) == calls


def test_a_sealed_token_of_bedrocks_longest_fits_the_request_field():
    tokens = PageTokens(b"k" * 32)
    sealed = tokens.seal("t" * 2048, b"binding")
    assert len(sealed) <= MAX_NEXT_TOKEN_CHARS
    assert tokens.open(sealed, b"binding") == "t" * 2048
    with pytest.raises(ApiError):
        tokens.open(sealed, b"another binding")


def test_outside_local_mode_the_endpoint_needs_its_key():
    with pytest.raises(RuntimeError, match="AKB_PAGE_TOKEN_KEY"):
        page_tokens_from_environment({}, local_mode=False)
    with pytest.raises(RuntimeError, match="AKB_PAGE_TOKEN_KEY"):
        page_tokens_from_environment({"AKB_PAGE_TOKEN_KEY": "short"}, local_mode=False)
    one = page_tokens_from_environment({"AKB_PAGE_TOKEN_KEY": "8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6"}, False)
    two = page_tokens_from_environment({"AKB_PAGE_TOKEN_KEY": "8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6"}, False)
    assert one.seal("t", b"b") == two.seal("t", b"b")  # every container of the function agrees
    assert page_tokens_from_environment({}, local_mode=True).seal("t", b"b")  # local: a key per process
