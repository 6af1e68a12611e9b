"""A verification over stubbed AWS clients (tests/client/aws_stubs.py) that never waits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client.verify.verification import Verification
from tests.client.aws_stubs import Stubs
from tests.client.doctor.scenario import checkup


@pytest.fixture
def stubs() -> Iterator[Stubs]:
    made = Stubs()
    yield made
    made.close()


def verification(stubs, tenants=("acme",), project=None, clients=None, **fields) -> Verification:
    made = checkup(stubs, project, tenants)
    if clients is not None:
        made.clients = clients
    fields.setdefault("wait_seconds", 0)
    fields.setdefault("sleep", lambda seconds: None)
    return Verification(made, **fields)


def parameter(stubs: Stubs, tenant: str, key: str, value: str | None) -> None:
    """Scripts the next SSM GetParameter of /akb/dev/<tenant>/<key>: its value, or ParameterNotFound."""
    name = f"/akb/dev/{tenant}/{key}"
    if value is None:
        stubs.error("ssm", "get_parameter", "ParameterNotFound", params={"Name": name})
    else:
        stubs.respond("ssm", "get_parameter", {"Parameter": {"Name": name, "Value": value}}, {"Name": name})
