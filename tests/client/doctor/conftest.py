"""botocore Stubbers on real boto3 clients for `akb doctor` (a stand-in: there is no AWS account here).

The Stubber validates every request's parameters and every scripted response against botocore's
service models, so a check that sends a wrong parameter name or reads a field the API does not
have fails here; nothing is sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from client.doctor.checkup import Checkup
from schema import Project
from tests.cdk_constructs.probe import example_project

ACCOUNT = "123456789012"  # the example config's dev account
REGION = "us-west-2"


class Stubs:
    """service -> a real client whose Stubber answers from a script; used as the checkup's client factory."""

    def __init__(self) -> None:
        self._session = boto3.Session(aws_access_key_id="test", aws_secret_access_key="test", region_name=REGION)
        self.clients: dict[str, Any] = {}
        self.stubbers: dict[str, Stubber] = {}

    def __call__(self, service: str) -> Any:
        self._ensure(service)
        return self.clients[service]

    def _ensure(self, service: str) -> Stubber:
        if service not in self.clients:
            self.clients[service] = self._session.client(service)
            self.stubbers[service] = Stubber(self.clients[service])
            self.stubbers[service].activate()
        return self.stubbers[service]

    def respond(self, service: str, method: str, response: dict[str, Any], params: dict[str, Any] | None = None):
        self._ensure(service).add_response(method, response, params)
        return self

    def error(self, service: str, method: str, code: str, *, status: int = 400, message: str = "", params=None):
        self._ensure(service).add_client_error(
            method, service_error_code=code, service_message=message, http_status_code=status, expected_params=params
        )
        return self

    def assert_all_used(self) -> None:
        for stubber in self.stubbers.values():
            stubber.assert_no_pending_responses()

    def close(self) -> None:
        for stubber in self.stubbers.values():
            stubber.deactivate()


@pytest.fixture
def stubs() -> Iterator[Stubs]:
    made = Stubs()
    yield made
    made.close()


def project_with(env_updates: dict[str, Any] | None = None, **tenant_updates: dict[str, Any]) -> Project:
    """The example dev project with environment fields and per-tenant fields replaced."""
    project = example_project()
    environment = project.environment.model_copy(update=env_updates or {})
    tenants = {
        name: tenant.model_copy(update=tenant_updates.get(name, {})) for name, tenant in project.tenants.items()
    }
    return dataclasses.replace(project, environment=environment, tenants=tenants)


def checkup(stubs: Stubs, project: Project | None = None, tenants: tuple[str, ...] = ("acme",), **fields) -> Checkup:
    made = Checkup(project=project or example_project(), tenants=tenants, clients=stubs, **fields)
    made.account = fields.get("account", ACCOUNT)
    return made
