"""Fixtures shared across the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Node 20 works for synth; jsii's end-of-life banner would only clutter test output (README, Toolchain).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from tests.synth import Synthesized, synthesize

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_CONFIG = REPO / "config"


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory) -> Synthesized:
    """The example `dev` environment, synthesized once per session (cdk-nag runs as part of it)."""
    return synthesize(EXAMPLE_CONFIG, "dev", tmp_path_factory.mktemp("cdk.out"))
