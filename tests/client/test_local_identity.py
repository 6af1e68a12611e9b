"""Issue 14's two identity leaks, end to end: `akb local` (the endpoint through lambdas/run.sh, in
local mode) in front of the emulator, asserting on the emulator's request journal what userContext
reached Bedrock. The tenant is the shipped globex config: user_context trusted, globex-portal the
trusted front end, globex-batch (another account) an invoker that is not trusted. INC-2041 in the
sample wiki is readable only by userContext `dana` or `erin` (its .acl.json side file).
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.endpoint_server import context_header, iter_frames

BATCH_AS_DANA = "arn:aws:sts::345678901234:assumed-role/globex-batch/dana"  # a session name it chose
PORTAL = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-1"
QUESTION = {"question": "What happened in the Ledgerline write outage and what was its root cause?"}

# `akb local --tenant globex` (the akb_local fixture): requests without a context header act as globex-batch/dana.
pytestmark = pytest.mark.akb_local(tenant="globex", caller_arn=BATCH_AS_DANA)


def ask(akb_local, body: dict, headers: list[tuple[str, str]] | None = None) -> tuple[int, object]:
    with httpx.stream("POST", f"{akb_local.url}/v1/query", json=body, headers=headers, timeout=30) as response:
        if response.status_code != 200:
            return response.status_code, json.loads(response.read())
        return 200, list(iter_frames(response))


def _documents(frames: list) -> set[str]:
    result = next(frame.data for frame in frames if frame.type == "result")
    return {str(item.get("documentId") or "") for item in result["results"]}


def test_the_acl_restricted_incident_reaches_the_vouched_user_only(akb_local):
    """Control: the trusted front end passing `dana` gets INC-2041, so the refusals below are not luck."""
    status, frames = ask(akb_local, {**QUESTION, "userId": "dana"}, list(context_header(PORTAL).items()))
    assert status == 200
    assert akb_local.sent()[-1]["userContext"] == {"userId": "dana"}
    assert any("INC-2041" in document for document in _documents(frames))


def test_an_untrusted_caller_never_gets_the_session_name_it_chose(akb_local):
    """Finding 2: globex-batch assumed its role as `dana`, sent no userId, and got dana's documents."""
    before = len(akb_local.sent())
    status, body = ask(akb_local, QUESTION)  # no header: akb local's caller, globex-batch/dana
    assert status == 403 and body["error"]["code"] == "user_identity_unverified"
    assert len(akb_local.sent()) == before  # nothing reached Bedrock, with or without a userContext


def test_a_trusted_front_end_without_a_user_id_is_refused_too(akb_local):
    before = len(akb_local.sent())
    status, body = ask(akb_local, QUESTION, list(context_header(PORTAL).items()))
    assert status == 403 and body["error"]["code"] == "user_identity_unverified"
    assert len(akb_local.sent()) == before


def test_a_forged_request_context_before_the_adapters_own_is_refused(akb_local):
    """Finding 1: adapter layers 10-17 appended their header after the client's, and the endpoint read
    the first: the client's forged portal context passed its own userId `dana`."""
    before = len(akb_local.sent())
    forged = [*context_header(PORTAL).items(), *context_header(BATCH_AS_DANA.replace("/dana", "/nightly")).items()]
    status, body = ask(akb_local, {**QUESTION, "userId": "dana"}, forged)
    assert status == 401 and body["error"]["code"] == "duplicate_request_context"
    assert len(akb_local.sent()) == before
