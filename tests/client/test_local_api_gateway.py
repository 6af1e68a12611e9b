"""`akb local --front-door api_gateway`: the identity path of the API Gateway front door, end to end.

The real `akb local` process (emulator + the endpoint through lambdas/run.sh) with every request given an
API Gateway REST request context naming --caller-arn (lambdas/endpoint/local_front_door.py), read by the
endpoint's identity code with only that shape accepted. Tenant: the shipped globex config (user_context
trusted, globex-portal the trusted front end). Asserted on the emulator's request journal.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.endpoint_server import context_header, iter_frames

PORTAL = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-1"
QUESTION = {"question": "What happened in the Ledgerline write outage?", "maxAgentIteration": 0}

# `akb local --tenant globex --front-door api_gateway` as globex-portal (the akb_local fixture).
pytestmark = pytest.mark.akb_local(tenant="globex", front_door="api_gateway", caller_arn=PORTAL)


def test_the_banner_names_the_api_gateway_front_door(akb_local):
    assert "Front door        api_gateway" in akb_local.banner


def test_the_trusted_front_end_reaches_bedrock_with_the_end_users_id_through_the_api_context(akb_local):
    before = len(akb_local.sent())
    as_dana = {**QUESTION, "userId": "dana"}
    with httpx.stream("POST", f"{akb_local.url}/v1/query", json=as_dana, timeout=30) as response:
        assert response.status_code == 200
        frames = list(iter_frames(response))
    assert frames[-1].type == "done"
    sent = akb_local.sent()[before:]
    assert [body["userContext"] for body in sent] == [{"userId": "dana"}]


@pytest.mark.parametrize(
    "forged",
    [context_header(PORTAL), {"x-amzn-request-context": json.dumps({"identity": {"userArn": PORTAL}})}],
    ids=["function-url-shape", "api-gateway-shape"],
)
def test_a_client_sent_request_context_is_refused_as_a_duplicate_and_nothing_reaches_bedrock(akb_local, forged):
    before = len(akb_local.sent())
    as_erin = {**QUESTION, "userId": "erin"}
    response = httpx.post(f"{akb_local.url}/v1/query", json=as_erin, headers=forged, timeout=30)
    assert (response.status_code, response.json()["error"]["code"]) == (401, "duplicate_request_context")
    assert len(akb_local.sent()) == before


def test_the_health_route_answers_behind_the_local_api_gateway(akb_local):
    assert httpx.get(f"{akb_local.url}/healthz", timeout=5).json() == {"status": "ok", "tenant": "globex"}
