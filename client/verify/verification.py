"""One `akb verify` run: doctor's checkup (config, tenants, AWS clients) plus what verify adds — how to
reach each door, the bounded wait for metrics, and what the canary calls observed for later checks.

Clocks and sleeps are fields so tests drive the bounded wait without waiting; doors are built by
factories so tests point them at local servers (the endpoint, an MCP server) with real HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from client.doctor.checkup import Checkup
from client.doctor.findings import Finding

if TYPE_CHECKING:
    from client.endpoint_client import Client

# CloudWatch publishes a datapoint within minutes; five minutes bounds the wait (--wait-seconds).
DEFAULT_WAIT_SECONDS = 300.0
POLL_SECONDS = 30.0


def signed_endpoint_client(url: str, region: str) -> Client:
    """The endpoint client `akb ask` uses: SigV4 for lambda or execute-api, from the URL."""
    from client.endpoint_client import Client

    return Client(url, region=region)


@dataclass(frozen=True)
class DoorOutcome:
    """What one canary call through one door showed: `answered`, or the failure's `code` and `message`."""

    door: str  # the check: door:endpoint | door:function-url | door:gateway | door:agent
    answered: bool
    code: str = ""
    message: str = ""

    @property
    def access_denied(self) -> bool:
        return self.code.lower() in {"upstream_access_denied", "accessdeniedexception", "accessdenied", "403"}


@dataclass
class Verification:
    checkup: Checkup
    wait_seconds: float = DEFAULT_WAIT_SECONDS
    poll_seconds: float = POLL_SECONDS
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    endpoint_client: Callable[[str, str], Any] = signed_endpoint_client
    gateway_caller: Callable[[str, str], Any] | None = None  # (url, region) -> gateway_call.GatewayCaller
    started_at: float = field(default_factory=time.time)
    outcomes: dict[str, list[DoorOutcome]] = field(default_factory=dict)  # tenant -> the canary calls

    @property
    def project(self) -> Any:
        return self.checkup.project

    @property
    def env_name(self) -> str:
        return str(self.checkup.project.env_name)

    def parameter(self, tenant: str, key: str) -> str | None:
        """`/akb/<env>/<tenant>/<key>` from SSM, None when the stack did not publish it."""
        from client.doctor.findings import CallFailed, aws_call
        from contract.resource_names import parameter_name

        name = parameter_name(self.env_name, tenant, key)
        try:
            answer = aws_call("ssm:GetParameter", self.checkup.client("ssm").get_parameter, Name=name)
        except CallFailed as failure:
            if failure.not_found:
                return None
            raise
        return str(answer["Parameter"]["Value"])

    def record(self, tenant: str, outcome: DoorOutcome) -> DoorOutcome:
        self.outcomes.setdefault(tenant, []).append(outcome)
        return outcome


def tenant_finding(tenant: str, finding: Finding) -> Finding:
    """The finding with the tenant in its check name (`acme/door:endpoint`), for lines and JSON."""
    from dataclasses import replace

    return replace(finding, check=f"{tenant}/{finding.check}")
