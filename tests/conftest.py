"""Fixtures shared by every test folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def emulator() -> Iterator:
    """One local Bedrock emulator per test session (per xdist worker), serving the sample corpus.

    No delay between events, to keep tests fast; a test that needs one sets `delay_ms` through
    `emulator.set_faults(...)`. Call `emulator.reset()` after changing faults (tests/local does it
    automatically). Point boto3 at `emulator.url`, or use `emulator.client()`.
    """
    from local.emulator import start_emulator

    with start_emulator(port=0, delay_ms=0) as handle:
        yield handle
