"""wait_ready and stop over real child processes and a real HTTP health check."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from client.local_processes import stop, wait_ready


def child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code])


class _Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def healthy_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def sleeper():
    process = child("import time; time.sleep(60)")  # a child that stays up (stopped below, or by a test)
    yield process
    stop(process, grace_seconds=1)


def test_ready_once_healthz_answers_200(healthy_url, sleeper):
    assert wait_ready(healthy_url, sleeper, timeout=5) is True


def test_not_ready_when_the_process_exits_first(healthy_url):
    exited = child("raise SystemExit(3)")
    exited.wait()
    assert wait_ready(healthy_url, exited, timeout=5) is False


def test_not_ready_when_nothing_answers_before_the_timeout(sleeper):
    with ThreadingHTTPServer(("127.0.0.1", 0), _Health) as closed:  # bound, then closed: refused
        url = f"http://127.0.0.1:{closed.server_address[1]}"
    assert wait_ready(url, sleeper, timeout=0.3) is False
    assert sleeper.poll() is None


def test_stop_terminates_a_running_process(sleeper):
    stop(sleeper)
    assert sleeper.returncode == -signal.SIGTERM


def test_stop_kills_a_process_that_ignores_sigterm():
    stubborn = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    assert stubborn.stdout is not None and stubborn.stdout.readline() == b"ready\n"
    stop(stubborn, grace_seconds=0.3)
    assert stubborn.returncode == -signal.SIGKILL
    stubborn.stdout.close()


def test_stop_leaves_an_exited_process_alone():
    exited = child("raise SystemExit(3)")
    exited.wait()
    stop(exited)
    assert exited.returncode == 3
