"""`akb local` for a tenant with `agent:`: registers its agent with the emulator and says where it is.

The emulator runs the agent's deterministic orchestration and the real action-group handler with
the endpoint's settings (local/emulator/agent_runtime.py). `akb ask --agent --local` finds it from
AKB_LOCAL_URL alone, through a small file named after the endpoint's port (agent_client.py).
"""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from client.agent_client import discovery_file, write_discovery
from contract.settings import TenantSettings


def register(emulator_url: str, tenant: str, settings: TenantSettings, response_max_bytes: int) -> tuple[str, str]:
    """Registers the tenant's agent with the emulator; returns (agentId, agentAliasId)."""
    from local.emulator.agent_runtime import local_agent_ids

    agent_id, alias_id = local_agent_ids(tenant)
    body = {
        "agentId": agent_id,
        "agentAliasId": alias_id,
        "agentName": f"{tenant}-agent",
        "settings": settings.to_json(),
        "responseMaxBytes": response_max_bytes,
    }
    if not emulator_url.startswith("http://127.0.0.1:"):
        raise ValueError(f"the emulator must be local, got {emulator_url}")
    request = urllib.request.Request(  # noqa: S310 - http://127.0.0.1 only (checked above)
        f"{emulator_url}/_emulator/agents",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1 only
        response.read()
    return agent_id, alias_id


@contextlib.contextmanager
def local_agent(
    endpoint_url: str, emulator_url: str, tenant: str, settings: TenantSettings, response_max_bytes: int
) -> Iterator[tuple[str, str, Path]]:
    """Registered and discoverable until the block ends (the discovery file is removed then)."""
    agent_id, alias_id = register(emulator_url, tenant, settings, response_max_bytes)
    path = write_discovery(endpoint_url, emulator_url, agent_id, alias_id)
    try:
        yield agent_id, alias_id, path
    finally:
        discovery_file(endpoint_url).unlink(missing_ok=True)
