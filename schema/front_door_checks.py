"""Checks of a tenant's merged front door (environment `endpoint:` + tenant `endpoint:`), naming the file that set it.

A combination is only wrong once both files are read (the environment may set `vpc` and a tenant the
front door), so these run in the loader, per tenant, and blame the file whose field holds the value.
"""

from __future__ import annotations

from pathlib import Path

from schema.config_errors import Problem
from schema.environment import MIN_SNAPSTART_WEB_ADAPTER_LAYER_VERSION, Environment
from schema.front_door import FrontDoor, effective_front_door, front_door_problems
from schema.tenant import Tenant


def tenant_front_door(environment: Environment, tenant: Tenant) -> FrontDoor:
    """The tenant's front door: the environment's fields, overridden by the tenant's `endpoint:`."""
    return effective_front_door(environment.endpoint, tenant.endpoint)


def front_door_file_problems(
    env_file: Path, tenant_file: Path, environment: Environment, tenant: Tenant
) -> list[Problem]:
    problems = []
    overridden = set(tenant.endpoint.model_dump(exclude_none=True)) if tenant.endpoint is not None else set()
    for field, message, involved in front_door_problems(tenant_front_door(environment, tenant)):
        source = tenant_file if overridden & set(involved) else env_file
        where = "" if source == tenant_file else f" (for tenant {tenant_file.stem})"
        problems.append(Problem(str(source), f"endpoint.{field}", message + where))
    return problems + _snapstart_layer_problems(env_file, tenant_file, environment, tenant)


def _snapstart_layer_problems(
    env_file: Path, tenant_file: Path, environment: Environment, tenant: Tenant
) -> list[Problem]:
    """SnapStart needs an adapter that does not reuse a connection captured in the snapshot (layer 27, v1.0.0)."""
    layer = environment.endpoint.web_adapter_layer_version
    if not tenant_front_door(environment, tenant).snapstart or layer >= MIN_SNAPSTART_WEB_ADAPTER_LAYER_VERSION:
        return []
    return [
        Problem(
            str(env_file),
            "endpoint.web_adapter_layer_version",
            f"layer {layer} pools its connection to the app, and under SnapStart a pooled connection captured in "
            f"the snapshot is reused dead after a restore; tenant {tenant_file.stem} turns snapstart on: use "
            f"{MIN_SNAPSTART_WEB_ADAPTER_LAYER_VERSION} (v1.0.0) or later, or turn snapstart off",
        )
    ]
