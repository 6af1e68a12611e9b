"""Fixtures of the client's end-to-end tests: fault control and a short-deadline endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.client.aws_stubs import Stubs
from tests.emulator_http import Faults


@pytest.fixture
def faults(emulator) -> Iterator[Faults]:
    """The session emulator's fault control (over HTTP), reset before and after the test."""
    control = Faults(emulator.url)
    control.reset()
    yield control
    control.reset()


@pytest.fixture
def deadline_endpoint(emulator) -> Iterator[Any]:
    """A second real endpoint whose tenant has a 1 s request deadline (the smallest it allows)."""
    from tests.endpoint_server import start_endpoint, tenant_settings

    with start_endpoint(emulator, tenant_settings(deadline_seconds=1)) as handle:
        yield handle


@pytest.fixture
def stubs() -> Iterator[Stubs]:
    """Real boto3 clients answered by botocore's Stubber, created per service on first use."""
    made = Stubs()
    yield made
    made.close()


@pytest.fixture
def no_aws_credentials(monkeypatch, tmp_path) -> pytest.MonkeyPatch:
    """An AWS environment with no keys, profiles, instance metadata or container credentials, so
    the standard credential chain finds nothing unless the test sets it (the patch is returned)."""
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    return monkeypatch
