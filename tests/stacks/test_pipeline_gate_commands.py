"""The pipeline's gate commands as a shell runs them: every gated tenant is judged (a failure does not skip the
next), each tenant assumes the gate role under its own canary session, and the step fails if any tenant failed.
`akb` is replaced by a stand-in script (named as such) that records its arguments and fails for one tenant."""

from __future__ import annotations

import os
import subprocess

from schema.quality_pipeline import GatedTenant
from stacks.pipeline_stack import gate_pipeline_commands

STAND_IN_AKB = """#!/bin/sh
echo "$AWS_PROFILE $*" >> calls
case "$*" in *"--tenant acme"*) exit 3;; esac
exit 0
"""


def test_every_tenant_is_judged_and_the_step_fails_if_any_failed(tmp_path):
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    akb = tmp_path / ".venv" / "bin" / "akb"
    akb.write_text(STAND_IN_AKB)
    akb.chmod(0o755)
    tenants = [GatedTenant("acme", "qa@acme.example", False), GatedTenant("globex", "akb-quality-gate", False)]
    script = "\n".join(gate_pipeline_commands("dev", tenants, "config"))
    env = {**os.environ, "HOME": str(tmp_path), "GATE_ROLE_ARN": "arn:aws:iam::123456789012:role/akb-quality-gate"}
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1 and "quality gate failed: acme" in result.stdout
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [call.split()[0] for call in calls] == ["gate-acme", "gate-globex"]  # globex ran after acme failed
    assert all("--promote-baseline" in call for call in calls)
    config = (tmp_path / ".aws" / "config").read_text()
    assert "[profile gate-acme]\nrole_arn = arn:aws:iam::123456789012:role/akb-quality-gate\n" in config
    assert "role_session_name = qa@acme.example" in config and "role_session_name = akb-quality-gate" in config


def test_when_every_tenant_passes_the_step_passes(tmp_path):
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    akb = tmp_path / ".venv" / "bin" / "akb"
    akb.write_text("#!/bin/sh\nexit 0\n")
    akb.chmod(0o755)
    script = "\n".join(gate_pipeline_commands("prod", [GatedTenant("acme", "akb-quality-gate", False)], "config"))
    env = {**os.environ, "HOME": str(tmp_path), "GATE_ROLE_ARN": "arn:aws:iam::210987654321:role/akb-quality-gate"}
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout + result.stderr
