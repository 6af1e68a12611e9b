"""Clients for the emulator's tests: every call goes through real boto3, with no retries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _clean_emulator(request: pytest.FixtureRequest) -> Iterator[None]:
    """Resets the session emulator around each test that uses it; a pure unit test starts no server."""
    if "emulator" not in request.fixturenames:
        yield
        return
    emulator = request.getfixturevalue("emulator")
    emulator.reset()
    yield
    emulator.reset()


@pytest.fixture(scope="session")
def bedrock(emulator):
    """A client that does not retry, so each injected fault reaches the test."""
    return emulator.client(retries={"mode": "standard", "total_max_attempts": 1})


@pytest.fixture(scope="session")
def unvalidated_bedrock(emulator):
    """A client that sends what botocore would refuse, to see the service-side validation."""
    return emulator.client(retries={"mode": "standard", "total_max_attempts": 1}, parameter_validation=False)
