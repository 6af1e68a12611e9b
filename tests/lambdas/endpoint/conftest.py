"""Endpoint test fixtures: a clean emulator per test, in-process apps for non-streaming checks."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

with warnings.catch_warnings():  # starlette 1.x nudges towards httpx2; httpx is what the venv pins
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from lambdas.endpoint.asgi_app import create_app
from tests.endpoint_server import build_service, tenant_settings


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


@pytest.fixture
def app_client(emulator) -> Any:
    """Factory: a starlette TestClient over a fresh in-process app (`tenant_settings` overrides,
    Service options), backed by the session emulator. Responses arrive whole: use `endpoint` for
    anything about streaming."""
    clients: list[TestClient] = []

    def make(settings: Any = None, **service: Any) -> TestClient:
        lines: list[str] = []
        service.setdefault("write_metrics", lines.append)
        client = TestClient(create_app(build_service(emulator, settings or tenant_settings(), **service)))
        client.metric_lines = lines  # type: ignore[attr-defined]
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def sent_bodies(emulator) -> list[dict[str, Any]]:
    """The AgenticRetrieveStream bodies the emulator received, oldest first."""
    return [r["body"] for r in emulator.requests() if r["path"] == "/agenticRetrieveStream"]
