"""The modes dict: one entry per contract mode, each a QueryMode, loaded only when first used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from contract.enums import MODES as CONTRACT_MODES
from lambdas.endpoint.modes import MODES, mode_for

REPO = Path(__file__).resolve().parents[4]


def test_every_contract_mode_has_exactly_one_class_and_it_names_itself():
    assert set(MODES) == set(CONTRACT_MODES)
    for name in CONTRACT_MODES:
        mode = mode_for(name)
        assert mode.name == name and mode_for(name) is mode
        assert callable(mode.build_request) and callable(mode.open)


def test_a_mode_nobody_called_is_not_imported():
    code = (
        "import json, sys\n"
        "from lambdas.endpoint import asgi_app, request_pipeline\n"
        "from lambdas.endpoint.modes import mode_for\n"
        "mode_for('agentic')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('lambdas.endpoint.modes.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO)},
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert "lambdas.endpoint.modes.agentic" in loaded
    assert not loaded & {"lambdas.endpoint.modes.retrieve", "lambdas.endpoint.modes.auto"}
