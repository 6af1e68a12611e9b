"""cdk.json's feature flags for apps built in-process (tests, benchmarks), so they synthesize
exactly what `cdk synth` does."""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cdk_json_context() -> dict:
    context = json.loads((REPO / "cdk.json").read_text())["context"]
    return {key: value for key, value in context.items() if key not in ("env", "config")}
