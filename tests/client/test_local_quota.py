"""`akb local` runs fair sharing on SQLite, and its emulator can enforce the account's quota
(`--account-rpm`): the banner says both, and a tenant over its share gets 429 tenant_quota_exceeded."""

from __future__ import annotations

import shutil

import httpx
import yaml

from client.commands.local import endpoint_environment
from client.local_settings import tenant_settings
from contract.env_vars import QUOTA_PATH
from lambdas.endpoint.quota.sqlite_buckets import SqliteBuckets
from local.emulator import kb_id_for
from schema import load_project
from tests.conftest import EXAMPLE_CONFIG

COMPARE = {"question": "Compare exports and webhooks", "mode": "agentic"}


def test_the_endpoints_environment_names_the_shared_sqlite_file(tmp_path):
    settings = tenant_settings(load_project(EXAMPLE_CONFIG, "dev"), "acme", kb_id_for)
    env = endpoint_environment(settings, 8000, {}, "arn:aws:iam::000000000000:user/x", quota_path=tmp_path / "q")
    assert env[QUOTA_PATH] == str(tmp_path / "q") and settings.quota is not None


def test_akb_local_enforces_the_tenants_share_on_sqlite(tmp_path, start_akb_local):
    config = tmp_path / "config"
    shutil.copytree(EXAMPLE_CONFIG, config)
    globex = config / "tenants" / "globex.yaml"
    data = yaml.safe_load(globex.read_text())
    data["quota"] = {"guaranteed_requests_per_minute": 1, "burst_requests_per_minute": 1}  # a burst of one
    globex.write_text(yaml.safe_dump(data, sort_keys=False))
    local = start_akb_local(tenant="globex", config=config, args=("--account-rpm", "120"))
    assert "Fair share        guaranteed 1, burst 1 of 300 agentic requests per minute" in local.banner
    assert "Account quota     120 AgenticRetrieveStream requests per minute" in local.banner
    first = httpx.post(f"{local.url}/v1/query", json=COMPARE, timeout=60)
    second = httpx.post(f"{local.url}/v1/query", json=COMPARE, timeout=60)
    assert first.status_code == 200 and second.status_code == 429
    assert second.json()["error"]["code"] == "tenant_quota_exceeded" and int(second.headers["retry-after"]) >= 1
    (store,) = tmp_path.glob("akb-local-cache-*/dev.quota.sqlite3")  # the file every local endpoint of dev shares
    assert set(SqliteBuckets(store).values()) == {"tenant#globex", "account"}
