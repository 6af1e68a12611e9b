"""Starting the emulator from Python and from the command line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import boto3

from local.emulator import ENDPOINT_ENV, kb_id_for, start_emulator

ROOT = Path(__file__).resolve().parents[3]


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


def test_akb_emulator_prints_how_to_connect_and_stops_on_ctrl_c():
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "emulator", "--port", "0", "--delay-ms", "0", "--account-rpm", "300"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        first = process.stdout.readline()
        assert first.startswith("Bedrock emulator listening on http://127.0.0.1:")
        url = first.split()[4]
        lines = [process.stdout.readline() for _ in range(13)]
        assert lines[-1].startswith("Ctrl-C")
        assert lines[0].startswith("Account quota     300 AgenticRetrieveStream requests per minute")
        assert any(f"{ENDPOINT_ENV}={url}" in line for line in lines)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
