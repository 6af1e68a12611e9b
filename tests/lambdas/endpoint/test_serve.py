"""run.sh's entry (lambdas/endpoint/serve.py): no cycle collection while the function starts — through the
first query, not through readiness checks, and never past MAX_HELD_REQUESTS — then the start frozen out of
later collections and the collector back on."""

from __future__ import annotations

import asyncio
import gc

import pytest

from lambdas.endpoint import serve
from tests.conftest import REPO
from tests.endpoint_server import tenant_settings


@pytest.fixture
def held_app(monkeypatch):
    monkeypatch.setenv("AKB_TENANT_SETTINGS", tenant_settings().to_json())
    monkeypatch.setenv("AKB_LOCAL_MODE", "1")
    gc.unfreeze()
    serve.hold_collector()
    try:
        yield serve.app_from_environment()
    finally:
        gc.unfreeze()  # this test process keeps collecting what the frozen objects hold
        gc.enable()


def _request(app, method: str, path: str, body: bytes = b"") -> int:
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": body}

    async def send(message):
        sent.append(message)

    headers = [(b"content-type", b"application/json")]
    asyncio.run(app({"type": "http", "method": method, "path": path, "headers": headers}, receive, send))
    return sent[0]["status"]


def test_the_collector_stays_off_through_readiness_checks_and_comes_back_after_the_first_query(held_app):
    assert not gc.isenabled()  # the app exists: the first query's client is still to come
    assert _request(held_app, "GET", "/healthz") == 200
    assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert _request(held_app, "POST", "/v1/query", b"not json") == 400  # any outcome ends the start
    assert gc.isenabled() and gc.get_freeze_count() > 10_000  # the modules, classes and settings of the start


def test_readiness_checks_alone_release_it_after_the_bound(held_app):
    for _ in range(serve.MAX_HELD_REQUESTS - 1):
        _request(held_app, "GET", "/healthz")
    assert not gc.isenabled()
    _request(held_app, "GET", "/healthz")
    assert gc.isenabled()


def test_run_sh_starts_uvicorn_through_this_module():
    run_sh = (REPO / "lambdas" / "run.sh").read_text()
    assert "-P -m lambdas.endpoint.serve --factory lambdas.endpoint.serve:app_from_environment" in run_sh
