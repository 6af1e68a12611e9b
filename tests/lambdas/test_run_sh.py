"""`lambdas/run.sh`, the Lambda entry, started as Lambda would: settings in the environment, port from
AWS_LWA_PORT, not in local mode (so the request context is required)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.children import Child, free_port
from tests.endpoint_server import context_header, iter_frames, tenant_settings

RUN_SH = Path(__file__).resolve().parents[2] / "lambdas" / "run.sh"


@contextmanager
def run_sh(emulator, tmp_path) -> Iterator[tuple[Child, int]]:
    """run.sh as Lambda starts it (not in local mode, settings and page-token key in the environment),
    on a free port: (the child, its port) once /healthz answers; then stopped with SIGTERM, as Lambda does."""
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "AKB_PYTHON": sys.executable,
        "AWS_LWA_PORT": str(port),
        "AKB_TENANT_SETTINGS": tenant_settings(user_context="caller").to_json(),
        "AKB_PAGE_TOKEN_KEY": "8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6",  # the stack sets its stack id's UUID
        "AWS_REGION": "us-west-2",
        **emulator.env,
    }
    with Child([str(RUN_SH)], env=env, cwd=tmp_path) as child:
        child.wait_for_url(f"http://127.0.0.1:{port}/healthz")
        try:
            yield child, port
        finally:
            child.stop(signal.SIGTERM)


def test_run_sh_serves_health_and_streams_for_a_verified_caller(emulator, tmp_path):
    assert os.access(RUN_SH, os.X_OK)
    with run_sh(emulator, tmp_path) as (child, port):
        base = f"http://127.0.0.1:{port}"
        body = {"question": "api keys", "maxAgentIteration": 0}
        anonymous = httpx.post(f"{base}/v1/query", json=body)
        assert anonymous.status_code == 401
        caller = "arn:aws:sts::123456789012:assumed-role/acme-app/erin"
        with httpx.stream(
            "POST", f"{base}/v1/query", json=body, headers=context_header(caller), timeout=30
        ) as response:
            frames = list(iter_frames(response))
        assert frames[-1].type == "done" and frames[-1].data["stopReason"] == "complete"
        assert emulator.requests()[-1]["body"]["userContext"] == {"userId": "erin"}
    assert '"message":"trace"' in child.output and '"CloudWatchMetrics"' in child.output  # logs, EMF on stdout


def test_a_lambdas_folder_where_it_is_started_does_not_shadow_the_service(emulator, tmp_path):
    """`akb local` runs run.sh in the user's working directory; `python -m` would import a `lambdas/`
    found there before the project's (run.sh's -P)."""
    shadow = tmp_path / "lambdas"
    shadow.mkdir()
    (shadow / "__init__.py").write_text('raise ImportError("the lambdas/ of the working directory")\n')
    with run_sh(emulator, tmp_path) as (child, port):
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
    assert "working directory" not in child.output


def test_run_sh_refuses_local_mode_inside_lambda(tmp_path):
    """AKB_LOCAL_MODE=1 would accept unverified callers; inside Lambda the app must not start at all."""
    env = {
        "PATH": os.environ["PATH"],
        "AKB_PYTHON": sys.executable,
        "AWS_LWA_PORT": str(free_port()),
        "AKB_TENANT_SETTINGS": tenant_settings(user_context="caller").to_json(),
        "AWS_REGION": "us-west-2",
        "AKB_LOCAL_MODE": "1",
        "AWS_LAMBDA_FUNCTION_NAME": "akb-dev-acme-endpoint",
    }
    child = subprocess.run([str(RUN_SH)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert child.returncode != 0
    assert "AKB_LOCAL_MODE=1 is set in Lambda function 'akb-dev-acme-endpoint'" in child.stdout + child.stderr


def _exchange(port: int, raw: bytes) -> bytes:
    """Sends `raw` at once and reads until the server closes or 2 s pass without data."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        sock.settimeout(2)
        reply = b""
        try:
            while chunk := sock.recv(65536):
                reply += chunk
        except (TimeoutError, ConnectionResetError):
            pass
    return reply


def _health_head(size: int) -> bytes:
    """A GET /healthz head of exactly `size` bytes (request line, headers, blank line)."""
    start, end = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ", b"\r\n\r\n"
    return start + b"a" * (size - len(start) - len(end)) + end


def test_run_sh_holds_request_heads_to_the_documented_16_kib(emulator, tmp_path):
    """docs/endpoint.md promises request heads of at most 16 KiB (16,384 bytes); a bigger head is 431,
    whether it arrives in one piece, trickles in, or follows another request on the same connection."""
    from lambdas.endpoint.http_timeouts import MAX_HEAD_BYTES

    assert MAX_HEAD_BYTES == 16384
    with run_sh(emulator, tmp_path) as (_, port):
        assert _exchange(port, _health_head(MAX_HEAD_BYTES)).startswith(b"HTTP/1.1 200")
        for size in (MAX_HEAD_BYTES + 1, 60 * 1024):
            reply = _exchange(port, _health_head(size))
            assert reply.startswith(b"HTTP/1.1 431"), (size, reply[:200])
            assert b"16384" in reply
        pipelined = _exchange(port, _health_head(200) + _health_head(60 * 1024))
        assert pipelined.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 431" in pipelined
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:  # trickled: never complete
            head = _health_head(60 * 1024)[:-4]
            for offset in range(0, len(head), 4096):
                try:
                    sock.sendall(head[offset : offset + 4096])
                except (BrokenPipeError, ConnectionResetError):
                    break
            sock.settimeout(5)
            assert sock.recv(100).startswith(b"HTTP/1.1 431")
