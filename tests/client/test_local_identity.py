"""Issue 14's two identity leaks, end to end: `akb local` (the endpoint through lambdas/run.sh, in
local mode) in front of the emulator, asserting on the emulator's request journal what userContext
reached Bedrock. The tenant is the shipped globex config: user_context trusted, globex-portal the
trusted front end, globex-batch (another account) an invoker that is not trusted. INC-2041 in the
sample wiki is readable only by userContext `dana` or `erin` (its .acl.json side file).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.client.test_local import free_port
from tests.endpoint_server import context_header, iter_frames

REPO = Path(__file__).resolve().parents[2]
BATCH_AS_DANA = "arn:aws:sts::345678901234:assumed-role/globex-batch/dana"  # a session name it chose
PORTAL = "arn:aws:sts::123456789012:assumed-role/globex-portal/portal-1"
QUESTION = {"question": "What happened in the Ledgerline write outage and what was its root cause?"}

pytestmark = pytest.mark.xdist_group("akb-local-globex")


@dataclass
class Local:
    url: str
    emulator_url: str

    def ask(self, body: dict, headers: list[tuple[str, str]] | None = None) -> tuple[int, object]:
        with httpx.stream("POST", f"{self.url}/v1/query", json=body, headers=headers, timeout=30) as response:
            if response.status_code != 200:
                return response.status_code, json.loads(response.read())
            return 200, list(iter_frames(response))

    def sent(self) -> list[dict]:
        """AgenticRetrieveStream bodies the emulator received (its request journal), oldest first."""
        journal = httpx.get(f"{self.emulator_url}/_emulator/requests", timeout=5).json()
        return [entry["body"] for entry in journal if entry["path"] == "/agenticRetrieveStream"]


@pytest.fixture(scope="module")
def globex() -> Iterator[Local]:
    """`akb local --tenant globex`, whose requests without a context header act as globex-batch/dana."""
    port, emulator_port = free_port(), free_port()
    command = [sys.executable, "-m", "client", "local", "--tenant", "globex", "--delay-ms", "0"]
    command += ["--port", str(port), "--emulator-port", str(emulator_port), "--caller-arn", BATCH_AS_DANA]
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
        deadline = time.monotonic() + 90  # startup only: imports are slow on a loaded CI machine
        while not any("Ctrl-C" in line for line in lines):
            line = child.stdout.readline()
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        # Keep reading the child's output (the endpoint logs every event): a full pipe would block it.
        threading.Thread(target=child.stdout.read, daemon=True).start()
        yield Local(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{emulator_port}")
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=15)


def _documents(frames: list) -> set[str]:
    result = next(frame.data for frame in frames if frame.type == "result")
    return {str(item.get("documentId") or "") for item in result["results"]}


def test_the_acl_restricted_incident_reaches_the_vouched_user_only(globex):
    """Control: the trusted front end passing `dana` gets INC-2041, so the refusals below are not luck."""
    status, frames = globex.ask({**QUESTION, "userId": "dana"}, list(context_header(PORTAL).items()))
    assert status == 200
    assert globex.sent()[-1]["userContext"] == {"userId": "dana"}
    assert any("INC-2041" in document for document in _documents(frames))


def test_an_untrusted_caller_never_gets_the_session_name_it_chose(globex):
    """Finding 2: globex-batch assumed its role as `dana`, sent no userId, and got dana's documents."""
    before = len(globex.sent())
    status, body = globex.ask(QUESTION)  # no header: akb local's caller, globex-batch/dana
    assert status == 403 and body["error"]["code"] == "user_identity_unverified"
    assert len(globex.sent()) == before  # nothing reached Bedrock, with or without a userContext


def test_a_trusted_front_end_without_a_user_id_is_refused_too(globex):
    before = len(globex.sent())
    status, body = globex.ask(QUESTION, list(context_header(PORTAL).items()))
    assert status == 403 and body["error"]["code"] == "user_identity_unverified"
    assert len(globex.sent()) == before


def test_a_forged_request_context_before_the_adapters_own_is_refused(globex):
    """Finding 1: adapter layers 10-17 appended their header after the client's, and the endpoint read
    the first: the client's forged portal context passed its own userId `dana`."""
    before = len(globex.sent())
    forged = [*context_header(PORTAL).items(), *context_header(BATCH_AS_DANA.replace("/dana", "/nightly")).items()]
    status, body = globex.ask({**QUESTION, "userId": "dana"}, forged)
    assert status == 401 and body["error"]["code"] == "duplicate_request_context"
    assert len(globex.sent()) == before
