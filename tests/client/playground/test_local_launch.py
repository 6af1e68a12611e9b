"""`akb playground --local` owns the `akb local` it starts: stopping the playground stops it too."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from client.playground.local_launch import running_akb_local
from tests.client.playground.harness import running_playground
from tests.conftest import REPO

pytestmark = pytest.mark.slow  # real processes: not part of `make test-fast`


def _akb_local_processes(port: str) -> list[str]:
    """Command lines of live `akb local` processes serving `port` (read from /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            words = cmdline.read_bytes().split(b"\0")
        except OSError:  # it exited while we looked
            continue
        if b"local" in words and b"--port" in words and words[words.index(b"--port") + 1] == port.encode():
            found.append(" ".join(word.decode() for word in words))
    return found


def test_sigterm_stops_the_playground_and_the_akb_local_it_started(tmp_path, monkeypatch):
    monkeypatch.setenv("AKB_LOCAL_CACHE_DIR", str(tmp_path))
    with running_playground("--local", "--delay-ms", "0") as playground:
        port = playground.endpoint.rsplit(":", 1)[1]
        assert httpx.get(f"{playground.endpoint}/healthz", timeout=5).status_code == 200
        assert _akb_local_processes(port)
        playground.process.terminate()  # SIGTERM: what a service manager or a closed terminal sends
        assert playground.process.wait(timeout=30) == 0
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{playground.endpoint}/healthz", timeout=5)
    assert _akb_local_processes(port) == []


def test_a_client_folder_where_it_is_started_does_not_shadow_the_project(tmp_path, monkeypatch):
    """The playground starts `python -m client local`; `-m` would import a `client/` of the working
    directory before the project's (local_launch.py passes -P)."""
    shadow = tmp_path / "client"
    shadow.mkdir()
    (shadow / "__init__.py").write_text('raise ImportError("the client/ of the working directory")\n')
    monkeypatch.chdir(tmp_path)
    # A relative entry such as PYTHONPATH=. (the benchmarks' own invocation) names the working
    # directory on purpose, -P or not: the project is importable from the virtualenv's install.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("AKB_LOCAL_CACHE_DIR", str(tmp_path / "cache"))
    with running_akb_local("acme", "dev", REPO / "config", delay_ms=0) as url:
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
