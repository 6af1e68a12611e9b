"""`app.py` (what `cdk synth` runs) stops on bad config with a readable message, not a trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO
from tests.schema.conftest import config_copy  # noqa: F401 - fixture


def test_synth_of_a_broken_config_exits_nonzero_naming_file_field_and_allowed_values(config_copy, tmp_path):  # noqa: F811
    config_copy.edit("environments", "dev", lambda e: e["reranking"].update(type="BEST"))
    env = dict(
        os.environ,
        CDK_CONTEXT_JSON=json.dumps({"env": "dev", "config": str(config_copy.root)}),
        CDK_OUTDIR=str(tmp_path / "out"),
    )
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=REPO, env=env, capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 1
    assert "environments/dev.yaml: reranking.type: Input should be 'MANAGED', 'CUSTOM' or 'NONE'" in result.stderr
    assert "Traceback" not in result.stderr
