"""`akb local` for acme (user_context caller, conversations on) with its DEFAULT caller, end to end:

- the curl command the banner prints is answered (the default caller is one acme vouches for:
  acme-app assumed with session name `developer`), where it used to get 403 user_identity_unverified;
- a two-turn conversation through the real `akb ask` client: `--new-session` prints a fresh id,
  `--session ID` continues it, and "And on Enterprise?" is answered about Enterprise rate limits
  from the restored session; the live view shows the session load.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.test_local import free_port

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.xdist_group("akb-local-acme-conversation")


@pytest.fixture(scope="module")
def acme(tmp_path_factory) -> Iterator[tuple[str, str]]:
    """(endpoint URL, banner) of `akb local --tenant acme` without --caller-arn."""
    port, emulator_port = free_port(), free_port()
    command = [sys.executable, "-m", "client", "local", "--tenant", "acme", "--delay-ms", "0"]
    command += ["--port", str(port), "--emulator-port", str(emulator_port)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_CACHE_DIR": str(tmp_path_factory.mktemp("cache"))}
    child = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 90  # startup only: imports are slow on a loaded CI machine
        while not any("Ctrl-C" in line for line in lines):
            line = child.stdout.readline()
            assert line and time.monotonic() < deadline, "".join(lines)
            lines.append(line)
        # Keep reading the child's output (the endpoint logs every event): a full pipe would block it.
        threading.Thread(target=child.stdout.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}", "".join(lines)
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=15)


def ask(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_URL": url, "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "client", "ask", "--local", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def answered(result: subprocess.CompletedProcess[str]) -> str:
    """The run's stdout, when it ended with a complete answer (exit 0): the emulator's planner stops
    when its evidence suffices, well within acme's 3 iterations."""
    assert result.returncode == 0 and "error" not in result.stderr, (
        result.returncode,
        result.stdout[-800:],
        result.stderr,
    )
    return result.stdout


def as_events(result: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    """`akb ask --json`'s last event of each type (NDJSON), after checking it ended with an answer."""
    events = {}
    for line in answered(result).splitlines():
        event = json.loads(line)
        events[event["type"]] = event.get("data", event)
    return events


def test_the_printed_curl_is_answered_for_the_default_caller(acme):
    _, banner = acme
    assert "assumed-role/acme-app/developer" in banner and "Conversations     on" in banner
    printed = banner.split("Try it", 1)[1].split("Ctrl-C", 1)[0]
    curl = " ".join(
        line.strip().rstrip("\\") for line in printed.splitlines() if line.strip().startswith(("curl", "-d"))
    )
    result = subprocess.run(
        [*shlex.split(curl), "-s", "-w", "\nHTTP %{http_code}"], capture_output=True, text=True, timeout=60
    )
    assert result.stdout.rstrip().endswith("HTTP 200"), result.stdout[-500:]
    assert "event: done" in result.stdout and '"stopReason":"complete"' in result.stdout


def test_a_two_turn_conversation_through_akb_ask(acme):
    url, _ = acme
    first = ask(url, "--new-session", "What are the Pro plan's rate limits?")
    answered(first)
    session = re.search(r"session (\S+)  \(continue with: --session \1\)", first.stderr).group(1)
    assert re.fullmatch(r"[0-9a-f-]{36}", session)
    assert f"session {session} (turn saved)" in first.stdout
    second = answered(ask(url, "--session", session, "And on Enterprise?"))
    assert "SessionHistoryLoad" in second and "Loaded 1 earlier turn of the session" in second
    assert 'memory "Enterprise plan rate limits" -> /actors/u-developer/facts' in second  # memoryRetrieve step
    events = as_events(ask(url, "--session", session, "--no-save", "--json", "And on Enterprise?"))
    assert "Enterprise plan: 5,000 requests per minute" in events["result"]["answer"]
    assert events["done"]["memory"] == {"sessionId": session, "persistence": "none"}
    fresh = answered(ask(url, "--new-session", "--json", "And on Enterprise?"))  # no history: not completed
    speculative = [
        event.get("data", event)
        for event in map(json.loads, fresh.splitlines())
        if event["type"] == "trace" and event.get("data", event)["step"] == "SpeculativeRetrieval"
    ]
    assert [q["text"] for q in speculative[0]["subQueries"]] == ["And on Enterprise?"]


def test_the_default_caller_is_one_each_tenant_vouches_for():
    from client.local_settings import default_caller, tenant_settings
    from lambdas.endpoint.identity import caller_from_headers, resolve_user_id
    from local.emulator import kb_id_for
    from schema import load_project

    project = load_project(REPO / "config", "dev")
    for tenant in ("acme", "globex"):
        settings = tenant_settings(project, tenant, kb_id_for)
        # As `akb local` serves it: no request context, the default caller in the function's own account.
        caller = caller_from_headers({}, local_mode=True, local_caller_arn=default_caller(settings))
        user = resolve_user_id(
            settings.user_context, caller, None, settings.trusted_callers, settings.session_name_callers
        )
        assert user == "developer", tenant
