"""What every check shares (config, selected tenants, clients, what earlier checks learned) and the runner.

The runner is deliberately small: it calls each check in order, prints each finding as it comes,
turns an unexpected AWS failure into a FAIL line that names the missing permission, and stops
after a blocking FAIL (when the account the credentials reach is not confirmed as the target, every
later answer could describe another account).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client.doctor.findings import CallFailed, Finding, Level, from_failure, redact
from schema import Project

# aws-cdk-lib 2.275 DefaultStackSynthesizer: DEFAULT_QUALIFIER and the context key that overrides it.
DEFAULT_QUALIFIER = "hnb659fds"
QUALIFIER_CONTEXT_KEY = "@aws-cdk/core:bootstrapQualifier"

ClientFactory = Callable[[str], Any]


def boto3_clients(region: str) -> ClientFactory:
    """service name -> a boto3 client in `region`, created on first use (one session: the chosen
    profile, else the standard chain; client/aws_session.py)."""
    from client.aws_session import session as aws_session

    session = aws_session(region)
    made: dict[str, Any] = {}

    def client(service: str) -> Any:
        if service not in made:
            made[service] = session.client(service)
        return made[service]

    return client


def has_credentials(region: str) -> bool:
    """Whether the standard chain finds any credentials (environment, profile, SSO, container, instance)."""
    from client.aws_session import session

    return session(region).get_credentials() is not None


def bootstrap_qualifier(cdk_json: Path) -> str:
    """The qualifier `cdk deploy` uses: cdk.json's context value, else the CDK default."""
    try:
        context = json.loads(cdk_json.read_text(encoding="utf-8")).get("context", {})
    except (OSError, ValueError, AttributeError):
        return DEFAULT_QUALIFIER
    value = context.get(QUALIFIER_CONTEXT_KEY) if isinstance(context, dict) else None
    return value if isinstance(value, str) and value else DEFAULT_QUALIFIER


@functools.cache  # a new botocore session re-reads its endpoint data (~1 MB of JSON): once per region suffices
def partition_of(region: str) -> str:
    """`aws`, `aws-cn`, `aws-us-gov`, ... from botocore's endpoint data (no call)."""
    import botocore.session
    from botocore.exceptions import UnknownRegionError

    try:
        return botocore.session.get_session().get_partition_for_region(region)
    except UnknownRegionError:  # a region newer than this botocore: the commercial partition is the likely one
        return "aws"


@dataclass
class Checkup:
    """One `akb doctor` run: the validated config, the tenants to check, and clients for its region."""

    project: Project
    tenants: tuple[str, ...]
    clients: ClientFactory
    qualifier: str = DEFAULT_QUALIFIER
    account: str | None = None  # the caller's account, set by the credentials check; printed only if configured
    deployed: dict[str, bool] = field(default_factory=dict)  # tenant -> its stack exists and holds resources
    parameters: dict[str, dict[str, str]] = field(default_factory=dict)  # tenant -> SSM name -> value

    @property
    def region(self) -> str:
        return self.project.environment.region

    @property
    def env_file(self) -> str:
        return str(self.project.config_dir / "environments" / f"{self.project.env_name}.yaml")

    def tenant_file(self, tenant: str) -> str:
        return str(self.project.config_dir / "tenants" / f"{tenant}.yaml")

    @property
    def configured_account(self) -> str | None:
        return self.project.environment.account

    def client(self, service: str) -> Any:
        return self.clients(service)

    def redact(self, text: str) -> str:
        return redact(text, (self.configured_account or "",))


NamedCheck = tuple[str, Callable[[], Iterable[Finding]]]


def run(checks: Iterable[NamedCheck], region: str, emit: Callable[[Finding], None]) -> list[Finding]:
    """Runs each check, emitting findings as they come; CredentialsMissing propagates (exit status 2)."""
    findings: list[Finding] = []

    def report(finding: Finding) -> None:
        findings.append(finding)
        emit(finding)

    for name, check in checks:
        try:
            for finding in check():
                report(finding)
        except CallFailed as failure:  # a failure the check did not expect: not checked, so FAIL
            report(from_failure(name, failure, region))
        if any(finding.blocking for finding in findings):
            report(
                Finding(
                    Level.FAIL,
                    "doctor",
                    "remaining checks skipped: the account these credentials reach is not the confirmed target",
                )
            )
            break
    return findings


def _counts(findings: list[Finding]) -> dict[str, int]:
    return {
        level.value: sum(1 for finding in findings if finding.level is level)
        for level in (Level.FAIL, Level.WARN, Level.OK)
    }


def summary(findings: list[Finding]) -> str:
    """`1 FAIL, 2 WARN, 7 OK`."""
    return ", ".join(f"{count} {level}" for level, count in _counts(findings).items())


def report_document(checkup: Checkup, findings: list[Finding], status: int) -> dict[str, Any]:
    """`--output json` of `akb doctor` and `akb verify`: one shape (docs/client.md)."""
    return {
        "environment": checkup.project.env_name,
        "region": checkup.region,
        "tenants": list(checkup.tenants),
        "findings": [{"level": f.level.value, "check": f.check, "message": f.message} for f in findings],
        "summary": _counts(findings),
        "exit": int(status),
    }
