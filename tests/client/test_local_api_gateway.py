"""`akb local --front-door api_gateway`: the identity path of the API Gateway front door, end to end.

The real `akb local` process (emulator + the endpoint through lambdas/run.sh) with every request given an
API Gateway REST request context naming --caller-arn (lambdas/endpoint/local_front_door.py), read by the
endpoint's identity code with only that shape accepted. Tenant: the shipped globex config (user_context
trusted, globex-portal the trusted front end). Asserted on the emulator's request journal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.client.test_local import free_port
from tests.endpoint_server import context_header, iter_frames

REPO = Path(__file__).resolve().parents[2]
PORTAL = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-1"
QUESTION = {"question": "What happened in the Ledgerline write outage?", "maxAgentIteration": 0}

pytestmark = pytest.mark.xdist_group("akb-local-api-gateway")


@pytest.fixture(scope="module")
def portal() -> Iterator[tuple[str, str]]:
    """(endpoint url, emulator url) of `akb local --tenant globex --front-door api_gateway` as globex-portal."""
    port, emulator_port = free_port(), free_port()
    command = [sys.executable, "-m", "client", "local", "--tenant", "globex", "--delay-ms", "0", "--front-door"]
    command += ["api_gateway", "--port", str(port), "--emulator-port", str(emulator_port), "--caller-arn", PORTAL]
    child = subprocess.Popen(
        command,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while not any("Ctrl-C" in line for line in lines):
            line = child.stdout.readline()  # type: ignore[union-attr]
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        assert any("Front door        api_gateway" in line for line in lines), "".join(lines)
        yield f"http://127.0.0.1:{port}", f"http://127.0.0.1:{emulator_port}"
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=15)


def _sent(emulator_url: str) -> list[dict]:
    journal = httpx.get(f"{emulator_url}/_emulator/requests", timeout=5).json()
    return [entry["body"] for entry in journal if entry["path"] == "/agenticRetrieveStream"]


def test_the_trusted_front_end_reaches_bedrock_with_the_end_users_id_through_the_api_context(portal):
    url, emulator_url = portal
    before = len(_sent(emulator_url))
    with httpx.stream("POST", f"{url}/v1/query", json={**QUESTION, "userId": "dana"}, timeout=30) as response:
        assert response.status_code == 200
        frames = list(iter_frames(response))
    assert frames[-1].type == "done"
    sent = _sent(emulator_url)[before:]
    assert [body["userContext"] for body in sent] == [{"userId": "dana"}]


@pytest.mark.parametrize(
    "forged",
    [context_header(PORTAL), {"x-amzn-request-context": json.dumps({"identity": {"userArn": PORTAL}})}],
    ids=["function-url-shape", "api-gateway-shape"],
)
def test_a_client_sent_request_context_is_refused_as_a_duplicate_and_nothing_reaches_bedrock(portal, forged):
    url, emulator_url = portal
    before = len(_sent(emulator_url))
    response = httpx.post(f"{url}/v1/query", json={**QUESTION, "userId": "erin"}, headers=forged, timeout=30)
    assert (response.status_code, response.json()["error"]["code"]) == (401, "duplicate_request_context")
    assert len(_sent(emulator_url)) == before


def test_the_health_route_answers_behind_the_local_api_gateway(portal):
    url, _ = portal
    assert httpx.get(f"{url}/healthz", timeout=5).json() == {"status": "ok", "tenant": "globex"}
