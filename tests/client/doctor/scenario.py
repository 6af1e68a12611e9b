"""The example config as `akb doctor` tests vary it, and a checkup over stubbed clients (tests/client/aws_stubs.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from client.doctor.checkup import Checkup
from schema import Project
from tests.client.aws_stubs import Stubs
from tests.conftest import example_project

ACCOUNT = "123456789012"  # the example config's dev account


def project_with(env_updates: dict[str, Any] | None = None, **tenant_updates: dict[str, Any]) -> Project:
    """The example dev project with environment fields and per-tenant fields replaced."""
    project = example_project()
    environment = project.environment.model_copy(update=env_updates or {})
    tenants = {name: tenant.model_copy(update=tenant_updates.get(name, {})) for name, tenant in project.tenants.items()}
    return dataclasses.replace(project, environment=environment, tenants=tenants)


def checkup(stubs: Stubs, project: Project | None = None, tenants: tuple[str, ...] = ("acme",), **fields) -> Checkup:
    made = Checkup(project=project or example_project(), tenants=tenants, clients=stubs, **fields)
    made.account = fields.get("account", ACCOUNT)
    return made
