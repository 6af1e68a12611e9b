"""`cdk synth -c pipeline=FILE` (app.py) stops on a bad pipeline file naming the file and the field."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

from tests.conftest import REPO


def test_app_with_a_stage_listed_twice_exits_1_naming_the_file_and_field(tmp_path):
    data = yaml.safe_load((REPO / "config" / "examples" / "pipeline.yaml").read_text())
    data["stages"].append(dict(data["stages"][0]))
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(yaml.safe_dump(data))
    env = dict(
        os.environ,
        CDK_CONTEXT_JSON=json.dumps({"pipeline": str(pipeline), "config": str(REPO / "config")}),
        CDK_OUTDIR=str(tmp_path / "out"),
    )
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 1
    assert f"{pipeline}: stages[2].environment: environment 'dev' is listed twice" in result.stderr
    assert "Traceback" not in result.stderr
