"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

# Node 20 works for synth; jsii's end-of-life banner would only clutter test output (README, Toolchain).
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

if TYPE_CHECKING:
    from tests.synth import Synthesized

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_CONFIG = REPO / "config"


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory) -> Synthesized:
    """The example `dev` environment, synthesized once per session (cdk-nag runs as part of it)."""
    from tests.synth import synthesize  # imports aws_cdk: only sessions that synthesize pay for it

    return synthesize(EXAMPLE_CONFIG, "dev", tmp_path_factory.mktemp("cdk.out"))


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


@pytest.fixture(scope="session")
def endpoint(emulator) -> Iterator:
    """One streaming endpoint per session (real uvicorn on 127.0.0.1, port 0) in front of `emulator`,
    configured like the example `acme` tenant over the emulator's corpus (tests/endpoint_server.py).

    Yields an EndpointHandle: `.url`, `.settings`, `.metric_lines` (EMF JSON it wrote). Local mode is
    on: requests without an `x-amzn-request-context` header act as `endpoint.default_caller`.
    For other tenant settings, start your own with `tests.endpoint_server.start_endpoint(...)`.
    """
    from tests.endpoint_server import start_endpoint

    with start_endpoint(emulator) as handle:
        yield handle


# Fixtures that start a local server (the emulator, the endpoint) or synthesize the example app.
_SERVER_FIXTURES = frozenset({"emulator", "endpoint", "synthesized"})


def _imports(module: object, prefix: str) -> bool:
    return any(isinstance(value, ModuleType) and value.__name__.startswith(prefix) for value in vars(module).values())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks what `make test-fast` leaves out, from what each test uses, so nothing is tagged by hand.

    - `server`: the test's fixture closure reaches a session server (emulator, endpoint) or the synth;
    - `synth`: its module imports aws_cdk (it builds and synthesizes a stack of its own);
    - `slow`: its module imports subprocess (it runs the CLI, cdk or uvicorn in a child process).
    """
    for item in items:
        module = getattr(item, "module", None)
        if _SERVER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.server)
        if module is not None and _imports(module, "aws_cdk") and not item.get_closest_marker("synth"):
            item.add_marker(pytest.mark.synth)
        if module is not None and _imports(module, "subprocess"):
            item.add_marker(pytest.mark.slow)
