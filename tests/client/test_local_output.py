"""What `akb local` prints: a port in use is one line before anything else; one readable line per request
instead of the endpoint's JSON records (`--verbose` keeps them); hints that name the ports it uses."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from client.cli import main
from client.exit_codes import ExitCode
from client.local_request_log import request_line, shown
from tests.children import free_port

REPO = Path(__file__).resolve().parents[2]
DONE = {
    "level": "INFO",
    "message": "done",
    "timestamp": "2026-12-01 19:58:08,623+0000",
    "correlation_id": "f8218123",
    "event": "done",
    "stop_reason": "complete",
    "iterations": 2,
    "duration_ms": 1420,
    "time_to_first_event_ms": 391,
    "mode": "agentic",
}


# --- the line per request ---------------------------------------------------------------------------------------


def test_a_done_record_becomes_one_line_with_time_status_stop_iterations_duration_and_request():
    line = shown(json.dumps(DONE))
    assert line is not None
    time_of_day, status, stop, rest = line.split(maxsplit=3)
    assert len(time_of_day) == 8 and status == "ok" and stop == "complete"
    assert rest == "2 iterations  1.42 s  request f8218123"


def test_a_refusal_and_a_stream_that_failed_say_which_with_the_code():
    refused = {**DONE, "stop_reason": "error", "iterations": 0, "error_code": "invalid_request"}
    for key in ("time_to_first_event_ms", "mode"):
        refused.pop(key)
    assert "refused invalid_request" in request_line(refused)
    failed = {**DONE, "stop_reason": "error", "error_code": "throttled"}
    assert "error throttled" in request_line(failed)


def test_the_other_records_and_the_metrics_are_left_out_but_warnings_and_plain_text_are_not():
    trace = {**DONE, "event": "trace", "message": "trace"}
    metrics = {"_aws": {"Timestamp": 1, "CloudWatchMetrics": []}, "Requests": [1.0]}
    warning = {**DONE, "event": None, "level": "WARNING", "message": "upstream slow"}
    assert shown(json.dumps(trace)) is None and shown(json.dumps(metrics)) is None
    assert (shown(json.dumps(warning)) or "").endswith("WARNING  upstream slow  request f8218123")
    assert shown("Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert shown(json.dumps(trace), verbose=True) == json.dumps(trace)


# --- ports, before anything is printed ---------------------------------------------------------------------------


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_busy_endpoint_port_is_one_line_naming_it_and_nothing_else(busy_port):
    result = CliRunner().invoke(main, ["local", "--port", str(busy_port), "--emulator-port", "0"])
    assert result.exit_code == ExitCode.SETUP
    assert result.stdout == ""  # no banner, no "Ctrl-C to stop."
    assert result.stderr == (
        f"akb local: port {busy_port} on 127.0.0.1 is in use (another akb local?): pick another with --port N, and "
        "point akb ask --local / akb mcp --local at it with AKB_LOCAL_URL=http://127.0.0.1:N (or stop what holds it)\n"
    )


def test_a_busy_emulator_port_is_named_too(busy_port):
    result = CliRunner().invoke(main, ["local", "--port", str(free_port()), "--emulator-port", str(busy_port)])
    assert result.exit_code == ExitCode.SETUP and result.stdout == ""
    assert f"port {busy_port} on 127.0.0.1 is in use (another emulator?)" in result.stderr


def test_akb_local_url_names_the_default_port(busy_port):
    result = CliRunner().invoke(
        main, ["local", "--emulator-port", "0"], env={"AKB_LOCAL_URL": f"http://127.0.0.1:{busy_port}"}
    )
    assert result.exit_code == ExitCode.SETUP and f"port {busy_port} on 127.0.0.1 is in use" in result.stderr


# --- end to end: the real command, two requests --------------------------------------------------------------------


class Output:
    """A child's output lines as they arrive (read on a thread, so the pipe never fills)."""

    def __init__(self, child: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, args=(child,), daemon=True).start()

    def _read(self, child: subprocess.Popen) -> None:
        for line in child.stdout or ():
            with self._arrived:
                self.lines.append(line.rstrip("\n"))
                self._arrived.notify_all()

    def wait_for(self, count: int, what: str, seconds: float = 90) -> list[str]:
        """The first `count` lines holding `what`, once they arrived."""
        deadline = time.monotonic() + seconds
        with self._arrived:
            while len(found := [line for line in self.lines if what in line]) < count:
                assert self._arrived.wait(max(0.0, deadline - time.monotonic())), "\n".join(self.lines)
        return found[:count]


@pytest.fixture
def akb_local_verbose_or_not(request, tmp_path) -> Iterator[tuple[Output, str]]:
    port = free_port()
    command = [sys.executable, "-m", "client", "local", "--port", str(port), "--emulator-port", "0", "--delay-ms", "0"]
    child = subprocess.Popen(
        [*command, *request.param],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), "AKB_LOCAL_CACHE_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = Output(child)
    try:
        output.wait_for(1, "Ctrl-C to stop.")
        yield output, f"http://127.0.0.1:{port}"
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _two_requests(url: str) -> None:
    with httpx.stream("POST", f"{url}/v1/query", json={"question": "How do I rotate an API key?"}, timeout=60) as r:
        r.read()
    assert httpx.post(f"{url}/v1/query", json={"questio": "typo"}, timeout=60).status_code == 400


@pytest.mark.parametrize("akb_local_verbose_or_not", [()], indirect=True)
def test_one_readable_line_per_request_and_no_json(akb_local_verbose_or_not):
    output, url = akb_local_verbose_or_not
    banner = "\n".join(output.lines)
    assert f"AKB_LOCAL_URL={url} akb ask --local" in banner and f"AKB_LOCAL_URL={url} akb mcp --local" in banner
    _two_requests(url)
    ok, refused = output.wait_for(2, " s  request ")
    assert " ok " in ok and " complete " in ok
    assert " refused invalid_request " in refused and " error " in refused
    banner_end = next(index for index, line in enumerate(output.lines) if "Ctrl-C to stop." in line)
    after_banner = output.lines[banner_end:]
    assert not any(line.startswith("{") for line in after_banner), after_banner


@pytest.mark.parametrize("akb_local_verbose_or_not", [("--verbose",)], indirect=True)
def test_verbose_prints_the_endpoints_json_records(akb_local_verbose_or_not):
    output, url = akb_local_verbose_or_not
    _two_requests(url)
    records = [json.loads(line) for line in output.wait_for(2, '"event":"done"')]
    assert [record["stop_reason"] for record in records] == ["complete", "error"]
