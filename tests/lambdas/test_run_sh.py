"""`lambdas/run.sh`, the Lambda entry, started as Lambda would: settings in the environment, port from
AWS_LWA_PORT, not in local mode (so the request context is required)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.children import Child, free_port
from tests.endpoint_server import context_header, iter_frames, tenant_settings

RUN_SH = Path(__file__).resolve().parents[2] / "lambdas" / "run.sh"


def test_run_sh_serves_health_and_streams_for_a_verified_caller(emulator, tmp_path):
    assert os.access(RUN_SH, os.X_OK)
    port = free_port()
    env = {
        "PATH": os.environ["PATH"],
        "AKB_PYTHON": sys.executable,
        "AWS_LWA_PORT": str(port),
        "AKB_TENANT_SETTINGS": tenant_settings(user_context="caller").to_json(),
        "AWS_REGION": "us-west-2",
        **emulator.env,
    }
    base = f"http://127.0.0.1:{port}"
    with Child([str(RUN_SH)], env=env, cwd=tmp_path) as child:
        child.wait_for_url(f"{base}/healthz")
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
        child.stop(signal.SIGTERM)  # as Lambda stops it
    assert '"message":"trace"' in child.output and '"CloudWatchMetrics"' in child.output  # logs and EMF on stdout


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
