"""`akb verify`: prove a deployed environment works, with your credentials, read-mostly (docs/operations.md).

For each tenant: the canary question through every door it has (endpoint or API front door, the kept
function URL, MCP gateway, agent) as the canary user its config names; whether the knowledge bases'
resource policies admitted each door; each knowledge base's ingestion log delivery. Then, for the
environment: the CloudWatch series the alarms read (a bounded wait) and whether every alarm action can
publish. Each line is OK, WARN or FAIL with the fix; `--output json` prints one JSON document.

Exit status: 0 when nothing FAILs, 1 when something does, 2 for a usage error (unknown environment or
tenant, invalid config) or when no usable AWS credentials are found. The only writes are the canary
requests themselves (and what they log and meter).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

import click

from client.doctor import account_checks
from client.doctor.checkup import NamedCheck, run
from client.doctor.findings import CredentialsMissing, Finding, Level
from client.options import config_option, env_option
from client.verify import alarm_checks, delivery_checks, door_checks, metric_checks
from client.verify.verification import DEFAULT_WAIT_SECONDS, Verification, tenant_finding

TENANT_CHECKS = (
    ("doors", door_checks.check_endpoint),
    (door_checks.GATEWAY, door_checks.check_gateway),
    (door_checks.AGENT, door_checks.check_agent),
    (door_checks.KB_POLICY, door_checks.check_kb_policy),
    ("ingestion-logs", delivery_checks.check_ingestion_logs),
)
ENVIRONMENT_CHECKS = (
    (metric_checks.ENDPOINT_SERIES, metric_checks.check_metrics),
    (alarm_checks.ALARM_ACTIONS, alarm_checks.check_alarm_actions),
)


@click.command()
@env_option
@config_option
@click.option("--tenant", default=None, help="Verify only this tenant (default: every tenant of the environment).")
@click.option("--output", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--wait-seconds",
    type=click.FloatRange(min=0),
    default=DEFAULT_WAIT_SECONDS,
    show_default=True,
    help="How long to wait for the metric series to receive the canary's datapoints.",
)
def command(env_name: str, config_dir: Path, tenant: str | None, output: str, wait_seconds: float) -> None:
    """Check what is deployed: canary questions through every door, metrics, log delivery, alarm actions."""
    from client.commands.doctor import checkup_or_exit

    checkup = checkup_or_exit(config_dir, env_name, tenant, command_name="verify")
    verification = Verification(checkup, wait_seconds=wait_seconds)
    raise SystemExit(verify(verification, click.echo, as_json=output == "json"))


def planned_checks(v: Verification) -> Iterable[NamedCheck]:
    """The credentials first (a wrong account stops everything), each tenant's checks, then the environment's."""
    yield account_checks.CREDENTIALS, partial(account_checks.check_credentials, v.checkup)
    for tenant in v.checkup.tenants:
        for name, check in TENANT_CHECKS:
            yield f"{tenant}/{name}", partial(_for_tenant, check, v, tenant)
    for name, environment_check in ENVIRONMENT_CHECKS:
        yield name, partial(environment_check, v)


def _for_tenant(
    check: Callable[[Verification, str], Iterable[Finding]], v: Verification, tenant: str
) -> Iterator[Finding]:
    return (tenant_finding(tenant, finding) for finding in check(v, tenant))


def verify(v: Verification, echo: Callable[[str], None], *, as_json: bool = False) -> int:
    """Runs every check, printing lines as they come (or one JSON document at the end); the exit status."""
    env = v.checkup.project.env_name
    if not as_json:
        echo(f"akb verify: environment {env} (region {v.checkup.region}), tenants {', '.join(v.checkup.tenants)}")
    try:
        findings = run(planned_checks(v), v.checkup.region, (lambda f: None) if as_json else (lambda f: echo(f.line())))
    except CredentialsMissing as error:
        echo(json.dumps({"environment": env, "error": str(error), "exit": 2}) if as_json else f"akb verify: {error}")
        return 2
    status = 1 if any(finding.level is Level.FAIL for finding in findings) else 0
    echo(json.dumps(_document(v, findings, status), indent=2) if as_json else _summary(findings))
    return status


def _counts(findings: list[Finding]) -> Iterator[tuple[str, int]]:
    for level in (Level.FAIL, Level.WARN, Level.OK):
        yield level.value, sum(1 for finding in findings if finding.level is level)


def _summary(findings: list[Finding]) -> str:
    return ", ".join(f"{count} {level}" for level, count in _counts(findings))


def _document(v: Verification, findings: list[Finding], status: int) -> dict:
    return {
        "environment": v.checkup.project.env_name,
        "region": v.checkup.region,
        "tenants": list(v.checkup.tenants),
        "findings": [{"level": f.level.value, "check": f.check, "message": f.message} for f in findings],
        "summary": dict(_counts(findings)),
        "exit": status,
    }
