"""`akb local`: emulator + endpoint configured like a tenant, usable with the printed curl command."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from client.local_settings import LocalSettingsError, tenant_settings
from local.emulator import kb_id_for
from schema import load_project
from tests.endpoint_server import iter_frames

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_local_settings_follow_the_tenant_config():
    project = load_project(REPO / "config", "dev")
    settings = tenant_settings(project, "globex", kb_id_for, {"handbook", "wiki"})
    assert [(r.alias, r.knowledge_base_id) for r in settings.retrievers] == [
        ("handbook", kb_id_for("handbook")),
        ("wiki", kb_id_for("wiki")),
    ]
    assert settings.user_context == "trusted"
    gate = "arn:aws:iam::123456789012:role/akb-quality-gate"  # the environment's quality gate role (quality:)
    assert settings.trusted_callers == ["arn:aws:iam::123456789012:role/globex-portal", gate]
    assert settings.session_name_callers == []  # globex-batch's session names are never user ids (issue 14)
    acme = tenant_settings(project, "acme", kb_id_for, {"docs", "tickets"})
    assert acme.session_name_callers == ["arn:aws:iam::123456789012:role/acme-app", gate]
    assert (settings.max_agent_iteration, settings.max_results) == (4, 8)
    assert settings.planner_type == "CUSTOM" and settings.planner_model_arn.startswith("arn:aws:bedrock:")
    assert re.fullmatch(r"[a-z0-9]+", settings.guardrail_id) and settings.guardrail_version == "1"
    assert settings.deadline_seconds == project.environment.endpoint.effective_deadline_seconds


def test_local_settings_refuse_aliases_the_emulator_does_not_serve():
    project = load_project(REPO / "config", "dev")
    with pytest.raises(LocalSettingsError, match="docs"):
        tenant_settings(project, "acme", kb_id_for, {"wiki"})
    with pytest.raises(LocalSettingsError, match="nobody"):
        tenant_settings(project, "nobody", kb_id_for)


def _ask_until_hit(port: int, cache_file: Path) -> list:
    """The first answer is stored right after its `done`: ask again until it is served from the cache."""
    deadline = time.monotonic() + 10
    again: list = []
    while time.monotonic() < deadline:
        with httpx.stream(
            "POST", f"http://127.0.0.1:{port}/v1/query", json={"question": "How do I rotate an API key?"}, timeout=30
        ) as response:
            again = list(iter_frames(response))
        if again[-1].data["cache"] == "hit":
            break
        time.sleep(0.1)
    assert cache_file.exists()
    return again


def test_akb_local_serves_the_tenant_and_stops_on_ctrl_c(tmp_path):
    port, emulator_port = free_port(), free_port()
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client",
            "local",
            "--port",
            str(port),
            "--emulator-port",
            str(emulator_port),
            "--delay-ms",
            "0",
            "--caller-arn",
            "arn:aws:sts::123456789012:assumed-role/acme-app/frank",
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_CACHE_DIR": str(tmp_path)},
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
        printed = "".join(lines)
        assert f"http://127.0.0.1:{port}" in printed and f"http://127.0.0.1:{emulator_port}" in printed
        assert f"curl -N -X POST http://127.0.0.1:{port}/v1/query" in printed
        with httpx.stream(
            "POST",
            f"http://127.0.0.1:{port}/v1/query",
            json={"question": "How do I rotate an API key?"},
            timeout=30,
        ) as response:
            frames = list(iter_frames(response))
        assert frames[0].type == "trace" and frames[-1].data["stopReason"] == "complete"
        journal = httpx.get(f"http://127.0.0.1:{emulator_port}/_emulator/requests").json()
        sent = [r for r in journal if r["path"] == "/agenticRetrieveStream"][-1]["body"]
        assert {r["configuration"]["knowledgeBase"]["knowledgeBaseId"] for r in sent["retrievers"]} == {
            kb_id_for("docs"),
            kb_id_for("tickets"),
        }
        assert sent["userContext"] == {"userId": "frank"}  # acme: user_context caller
        # acme turns the result cache on: the same question again is a hit, with the same contract.
        assert "Result cache      on" in printed and frames[-1].data["cache"] == "miss"
        again = _ask_until_hit(port, tmp_path / "dev-acme.sqlite3")
        assert again[0].data["step"] == "CacheHit" and again[-1].data["cache"] == "hit"
    finally:
        child.send_signal(signal.SIGINT)
        rest = child.communicate(timeout=15)[0]
    assert child.returncode == 0, rest
    for used in (port, emulator_port):
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", used)) != 0  # both stopped
