"""`akb local` for acme (user_context caller, conversations on) with its DEFAULT caller, end to end:

- the curl command the banner prints is answered (the default caller is one acme vouches for:
  acme-app assumed with session name `developer`), where it used to get 403 user_identity_unverified;
- a two-turn conversation through the real `akb ask` client: `--new-session` prints a fresh id,
  `--session ID` continues it, and "And on Enterprise?" is answered about Enterprise rate limits
  from the restored session; the live view shows the session load.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# `akb local --tenant acme` without --caller-arn (the akb_local fixture): its default caller.
pytestmark = pytest.mark.akb_local(tenant="acme")


def ask(akb_local, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client", "ask", "--local", *args],
        cwd=REPO,
        env=akb_local.client_env(COLUMNS="200"),
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


def test_the_printed_curl_is_answered_for_the_default_caller(akb_local):
    banner = akb_local.banner
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


def test_a_two_turn_conversation_through_akb_ask(akb_local):
    first = ask(akb_local, "--new-session", "What are the Pro plan's rate limits?")
    answered(first)
    session = re.search(r"session (\S+)  \(continue with: --session \1\)", first.stderr).group(1)
    assert re.fullmatch(r"[0-9a-f-]{36}", session)
    assert f"session {session} (turn saved)" in first.stdout
    second = answered(ask(akb_local, "--session", session, "And on Enterprise?"))
    assert "SessionHistoryLoad" in second and "Loaded 1 earlier turn of the session" in second
    assert 'memory "Enterprise plan rate limits" -> /actors/u-developer/facts' in second  # memoryRetrieve step
    events = as_events(ask(akb_local, "--session", session, "--no-save", "--json", "And on Enterprise?"))
    assert "Enterprise plan: 5,000 requests per minute" in events["result"]["answer"]
    assert events["done"]["memory"] == {"sessionId": session, "persistence": "none"}
    fresh = answered(ask(akb_local, "--new-session", "--json", "And on Enterprise?"))  # no history: not completed
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
