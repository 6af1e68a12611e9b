"""`akb local`: emulator + endpoint configured like a tenant, usable with the printed curl command."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import httpx
import pytest

from client.local_settings import LocalSettingsError, tenant_settings
from lambdas.endpoint.cache.store import SqliteStore
from local.emulator import kb_id_for
from schema import load_project
from tests.children import wait_until
from tests.endpoint_server import iter_frames

REPO = Path(__file__).resolve().parents[2]


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


def _ask(url: str) -> list:
    question = {"question": "How do I rotate an API key?"}
    with httpx.stream("POST", f"{url}/v1/query", json=question, timeout=30) as answer:
        return list(iter_frames(answer))


def test_akb_local_serves_the_tenant_and_stops_on_ctrl_c(start_akb_local):
    local = start_akb_local(caller_arn="arn:aws:sts::123456789012:assumed-role/acme-app/frank")
    port, emulator_port = int(local.url.rsplit(":", 1)[1]), int(local.emulator_url.rsplit(":", 1)[1])
    assert f"curl -N -X POST {local.url}/v1/query" in local.banner
    frames = _ask(local.url)
    assert frames[0].type == "trace" and frames[-1].data["stopReason"] == "complete"
    assert {r["configuration"]["knowledgeBase"]["knowledgeBaseId"] for r in local.sent()[-1]["retrievers"]} == {
        kb_id_for("docs"),
        kb_id_for("tickets"),
    }
    assert local.sent()[-1]["userContext"] == {"userId": "frank"}  # acme: user_context caller
    # acme turns the result cache on: once the answer is stored, the same question is a hit, same contract.
    cache_line = re.search(r"Result cache      on, (\S+\.sqlite3)", local.banner)
    assert cache_line and frames[-1].data["cache"] == "miss", local.banner
    store = SqliteStore(cache_line[1])  # what `akb cache stats` reads; the entry is written after `done` went out
    wait_until(lambda: store.stats("acme").counters["stored"], "the answer stored in the local cache")
    again = _ask(local.url)
    assert again[0].data["step"] == "CacheHit" and again[-1].data["cache"] == "hit"
    assert local.stop() == 0, local.child.output
    for used in (port, emulator_port):
        with socket.socket() as sock:
            assert sock.connect_ex(("127.0.0.1", used)) != 0  # both stopped
