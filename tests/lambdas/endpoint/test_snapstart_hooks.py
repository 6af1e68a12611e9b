"""SnapStart hooks (issue 19): the adapter's POSTs drop every client and boto3's default session, so
credentials and connections are made after restore; the routes exist only where the stack set the paths."""

from __future__ import annotations

import sys

import boto3
import pytest
from starlette.testclient import TestClient

from contract.env_vars import SNAPSTART_AFTER_RESTORE as AFTER_RESTORE_ENV
from contract.env_vars import SNAPSTART_AFTER_RESTORE_PATH as AFTER_RESTORE_PATH
from contract.env_vars import SNAPSTART_BEFORE_CHECKPOINT as BEFORE_CHECKPOINT_ENV
from contract.env_vars import SNAPSTART_BEFORE_CHECKPOINT_PATH as BEFORE_CHECKPOINT_PATH
from lambdas.endpoint import asgi_app, upstream
from lambdas.endpoint.cache import setup
from lambdas.endpoint.http_exchange import json_response
from lambdas.endpoint.http_router import Router
from lambdas.endpoint.snapstart import add_snapstart_hooks
from tests.endpoint_server import tenant_settings

HOOKS = {BEFORE_CHECKPOINT_ENV: BEFORE_CHECKPOINT_PATH, AFTER_RESTORE_ENV: AFTER_RESTORE_PATH}


@pytest.fixture
def lambda_like_env(monkeypatch):
    monkeypatch.setenv("AKB_TENANT_SETTINGS", tenant_settings().to_json())
    monkeypatch.setenv("AKB_PAGE_TOKEN_KEY", "8c6e0d2a-1b2c-4d5e-8f90-a1b2c3d4e5f6")  # as the stack sets it
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "x")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    for name in ("AKB_LOCAL_MODE", "AKB_LOCAL_FRONT_DOOR", BEFORE_CHECKPOINT_ENV, AFTER_RESTORE_ENV):
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch
    upstream.reset_shared_client()


def test_after_restore_drops_the_runtime_client_the_cache_clients_and_the_default_session(lambda_like_env):
    for name, path in HOOKS.items():
        lambda_like_env.setenv(name, path)
    made = upstream.shared_client()
    cache_client = setup.lazy_client("dynamodb", {})
    first_cache = cache_client()
    boto3.setup_default_session(region_name="us-west-2")
    with TestClient(asgi_app.app_from_environment()) as client:
        response = client.post(AFTER_RESTORE_PATH)
    assert response.status_code == 200 and response.json()["dropped_clients"] >= 2
    assert boto3.DEFAULT_SESSION is None
    assert upstream.shared_client() is not made  # the next request creates its own, after restore
    assert cache_client() is not first_cache


def test_before_checkpoint_imports_the_sdk_and_leaves_no_client_in_the_snapshot(lambda_like_env):
    for name, path in HOOKS.items():
        lambda_like_env.setenv(name, path)
    upstream.shared_client()
    with TestClient(asgi_app.app_from_environment()) as client:
        assert client.post(BEFORE_CHECKPOINT_PATH).status_code == 200
        assert client.get("/healthz").status_code == 200  # the readiness check creates no client
    assert upstream._client is None
    assert "botocore.eventstream" in sys.modules


def test_without_snapstart_the_hook_paths_do_not_exist(lambda_like_env):
    with TestClient(asgi_app.app_from_environment()) as client:
        assert client.post(AFTER_RESTORE_PATH).status_code == 404


def test_hooks_are_added_only_at_the_configured_paths():
    app = Router(on_error=lambda request: json_response({}, 500))
    add_snapstart_hooks(app, {AFTER_RESTORE_ENV: "/custom/after"})
    assert {path: sorted(methods) for path, methods in app.routes.items()} == {"/custom/after": ["POST"]}


def test_the_local_api_gateway_refuses_to_run_outside_local_mode(lambda_like_env):
    lambda_like_env.setenv("AKB_LOCAL_FRONT_DOOR", "api_gateway")
    with pytest.raises(RuntimeError, match="only with AKB_LOCAL_MODE=1"):
        asgi_app.app_from_environment()
