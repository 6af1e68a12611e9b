"""`akb ask --agent --local` end to end: the CLI, boto3's InvokeAgent, the emulator's orchestration and
the real action-group handler against the emulated knowledge bases. AKB_LOCAL_URL is all it is given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from client.agent_client import discovery_file
from client.cli import main
from client.evaluation.local_target import corpus_settings
from client.local_agent import local_agent
from tests.children import free_port

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def endpoint_url() -> str:
    """Names the port `akb local` would serve the endpoint on (nothing listens): its agent's discovery
    file is keyed by that port, so each test takes a free one (parallel runs never share the file)."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture
def local_agent_running(emulator, monkeypatch, endpoint_url):
    monkeypatch.setenv("AKB_LOCAL_URL", endpoint_url)
    with local_agent(endpoint_url, emulator.url, "sample", corpus_settings(emulator), 20_000) as ids:
        yield ids
    assert not discovery_file(endpoint_url).exists()


def test_ask_agent_local_shows_the_trace_then_the_answer(local_agent_running):
    result = CliRunner().invoke(main, ["ask", "--agent", "--local", "How do I rotate an API key?"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("[thinking]")
    assert lines[1].startswith("[calls] search_knowledge(")
    assert lines[2].startswith("[observed] status: complete")
    assert "Sources:" in result.output


def test_ask_agent_json_prints_one_step_per_line(local_agent_running):
    result = CliRunner().invoke(main, ["ask", "--agent", "--local", "--json", "--session-id", "abc-1", "rotate key"])
    assert result.exit_code == 0, result.output
    steps = [json.loads(line) for line in result.output.splitlines()]
    assert [s["type"] for s in steps] == ["rationale", "tool_call", "observation", "answer"]
    assert steps[-1]["detail"] == {"sessionId": "abc-1"}


def test_ask_agent_refused_identity_exits_4(emulator, monkeypatch, endpoint_url):
    settings = corpus_settings(emulator)
    trusted = settings.__class__(**{**settings.__dict__, "user_context": "trusted"})
    monkeypatch.setenv("AKB_LOCAL_URL", endpoint_url)
    with local_agent(endpoint_url, emulator.url, "trusted-cli", trusted, 20_000):
        result = CliRunner().invoke(main, ["ask", "--agent", "--local", "q"])
    assert result.exit_code == 4
    assert "dependencyFailedException" in result.output


def test_ask_agent_local_without_akb_local_exits_1(monkeypatch, endpoint_url):
    monkeypatch.setenv("AKB_LOCAL_URL", endpoint_url)
    result = CliRunner().invoke(main, ["ask", "--agent", "--local", "q"])
    assert result.exit_code == 1
    assert "akb local" in result.output


def test_session_id_without_agent_is_a_usage_error(monkeypatch):
    result = CliRunner().invoke(main, ["ask", "--local", "--session-id", "s-1", "q"])
    assert result.exit_code == 2


def _agent_config(tmp_path):
    """The example config with acme (corpus folders docs, tickets) given an agent; ACLs off for it."""
    import shutil

    import yaml

    config = tmp_path / "config"
    shutil.copytree(REPO / "config", config)
    path = config / "tenants" / "acme.yaml"
    acme = yaml.safe_load(path.read_text())
    acme["user_context"] = "none"
    acme["invokers"] = [{"arn": i["arn"]} for i in acme.get("invokers", [])]
    acme.pop("cache", None)
    acme["agent"] = {"foundation_model": "arn:aws:bedrock:us-west-2::foundation-model/amazon.nova-lite-v1:0"}
    path.write_text(yaml.safe_dump(acme))
    return config


def test_akb_local_runs_the_agent_and_ask_agent_local_reaches_it_with_akb_local_url_only(start_akb_local, tmp_path):
    import subprocess
    import sys

    # The banner's "Agent" line comes once the agent is registered on the emulator.
    local = start_akb_local(config=_agent_config(tmp_path), tenant="acme", ready="Agent ")
    asked = subprocess.run(
        [sys.executable, "-m", "client", "ask", "--agent", "--local", "How do I rotate an API key?"],
        cwd=REPO,
        env=local.client_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert asked.returncode == 0, asked.stdout + asked.stderr
    assert "[calls] search_knowledge(" in asked.stdout and "Sources:" in asked.stdout
    assert local.stop() == 0, local.child.output
    assert not discovery_file(local.url).exists()
