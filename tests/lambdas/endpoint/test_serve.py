"""run.sh's entry (lambdas/endpoint/serve.py): no cycle collection while the function starts; the init's
objects frozen out of later collections and the collector back on once the app exists."""

from __future__ import annotations

import gc

import pytest

from lambdas.endpoint import serve
from lambdas.endpoint.http_router import Router
from tests.endpoint_server import tenant_settings


@pytest.fixture
def collector_restored():
    yield
    gc.unfreeze()  # this test process keeps collecting what the frozen objects hold
    gc.enable()


def test_the_collector_is_off_until_the_app_exists_then_on_with_the_start_frozen(monkeypatch, collector_restored):
    monkeypatch.setenv("AKB_TENANT_SETTINGS", tenant_settings().to_json())
    monkeypatch.setenv("AKB_LOCAL_MODE", "1")
    gc.unfreeze()
    serve.hold_collector()
    assert not gc.isenabled()
    app = serve.app_from_environment()
    assert isinstance(app, Router) and gc.isenabled()
    assert gc.get_freeze_count() > 10_000  # the modules, classes and settings of the start


def test_run_sh_starts_uvicorn_through_this_module():
    from tests.conftest import REPO

    run_sh = (REPO / "lambdas" / "run.sh").read_text()
    assert "-m lambdas.endpoint.serve --factory lambdas.endpoint.serve:app_from_environment" in run_sh
