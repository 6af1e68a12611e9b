"""Starting the emulator from Python and from the command line."""

from __future__ import annotations

import os
import sys

import boto3
import pytest

from local.emulator import ENDPOINT_ENV, kb_id_for, start_emulator
from tests.children import Child, python_env


def test_handle_is_a_context_manager_that_frees_its_port(tmp_path):
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "a.md").write_text("Widgets are blue.")
    with start_emulator(corpus_dir=tmp_path, delay_ms=0) as emulator:
        assert emulator.url.startswith("http://127.0.0.1:") and emulator.knowledge_bases == {"kb": kb_id_for("kb")}
        found = emulator.client().retrieve(knowledgeBaseId=kb_id_for("kb"), retrievalQuery={"text": "widgets"})
        assert found["retrievalResults"][0]["content"]["text"] == "Widgets are blue."
    again = start_emulator(port=emulator.port, corpus_dir=tmp_path)
    again.stop()


def test_unmodified_boto3_finds_the_emulator_through_the_environment(emulator, monkeypatch):
    for name, value in emulator.env.items():
        monkeypatch.setenv(name, value)
    client = boto3.client("bedrock-agent-runtime", region_name="us-west-2")
    assert client.meta.endpoint_url == emulator.url == os.environ[ENDPOINT_ENV]
    assert client.retrieve(knowledgeBaseId=kb_id_for("docs"), retrievalQuery={"text": "exports"})["retrievalResults"]


@pytest.mark.slow  # a child process
def test_akb_emulator_prints_how_to_connect_and_stops_on_ctrl_c():
    command = [sys.executable, "-m", "client", "emulator", "--port", "0", "--delay-ms", "0", "--account-rpm", "300"]
    with Child(command, env=python_env()) as cli:
        printed = cli.wait_for_line("Ctrl-C").splitlines()
        assert printed[0].startswith("Bedrock emulator listening on http://127.0.0.1:")
        assert printed[1].startswith("Account quota     300 AgenticRetrieveStream requests per minute")
        url = printed[0].split()[4]
        assert any(f"{ENDPOINT_ENV}={url}" in line for line in printed[1:])
        assert cli.stop() == 0, cli.output
