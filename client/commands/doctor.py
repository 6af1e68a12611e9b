"""`akb doctor`: read-only checks of the target account, one line each, before (and after) `cdk deploy`.

Exit status: 0 when nothing FAILs, 1 when something does, 2 for a usage error (unknown
environment or tenant, invalid config) or when no usable AWS credentials are found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path

import click

from client.doctor import access_checks, account_checks, log_key_checks, tenant_checks, vpc_checks
from client.doctor.checkup import (
    Checkup,
    ClientFactory,
    NamedCheck,
    bootstrap_qualifier,
    boto3_clients,
    has_credentials,
    run,
)
from client.doctor.findings import CredentialsMissing, Finding, Level
from client.options import config_option, env_option

ACCOUNT_CHECKS = (
    (account_checks.CREDENTIALS, account_checks.check_credentials),
    (account_checks.BOOTSTRAP, account_checks.check_bootstrap),
    (account_checks.CONCURRENCY, account_checks.check_concurrency),
    (account_checks.ADAPTER_LAYER, account_checks.check_web_adapter_layer),
    (access_checks.MODELS, access_checks.check_models),
    (access_checks.INVOKERS, access_checks.check_invokers),
    (access_checks.QUOTA, access_checks.check_quota),
    (log_key_checks.LOG_KEY, log_key_checks.check_log_key),
    (tenant_checks.STACK, tenant_checks.check_platform_stack),
)
TENANT_CHECKS = (
    (tenant_checks.STACK, tenant_checks.check_tenant_stack),
    (tenant_checks.INSTRUCTION, tenant_checks.check_retrieval_instruction),
    (tenant_checks.INGESTION, tenant_checks.check_ingestion),
    (vpc_checks.VPC, vpc_checks.check_vpc_endpoints),
)


@click.command()
@env_option
@config_option
@click.option("--tenant", default=None, help="Check only this tenant (default: every tenant of the environment).")
def command(env_name: str, config_dir: Path, tenant: str | None) -> None:
    """Check the environment's AWS account and region with your credentials (read-only)."""
    checkup = checkup_or_exit(config_dir, env_name, tenant)
    raise SystemExit(diagnose(checkup, click.echo))


def _usage_error(message: str, command_name: str = "doctor") -> SystemExit:
    click.echo(f"akb {command_name}: {message}", err=True)
    return SystemExit(2)


def checkup_or_exit(
    config_dir: Path,
    env_name: str,
    tenant: str | None,
    clients: ClientFactory | None = None,
    command_name: str = "doctor",
) -> Checkup:
    """The checkup of `akb doctor` (and `akb verify`), or SystemExit(2) with the usage error printed."""
    from schema import ConfigError, load_project

    try:
        project = load_project(config_dir, env_name)
    except ConfigError as error:
        raise _usage_error(" / ".join(str(error).splitlines()), command_name) from None
    if tenant is not None and tenant not in project.tenants:
        raise _usage_error(
            f"tenant '{tenant}' is not deployed in environment {env_name} (its tenants: {', '.join(project.tenants)})",
            command_name,
        )
    region = project.environment.region
    if clients is None and not has_credentials(region):
        raise _usage_error(
            "no AWS credentials found: set a profile (AWS_PROFILE), run aws sso login, or export keys", command_name
        )
    return Checkup(
        project=project,
        tenants=(tenant,) if tenant else tuple(project.tenants),
        clients=clients or boto3_clients(region),
        qualifier=bootstrap_qualifier(Path("cdk.json")),
    )


def planned_checks(checkup: Checkup) -> Iterable[NamedCheck]:
    """Every check in order, bound to the checkup (and the tenant, for tenant checks)."""
    for name, check in ACCOUNT_CHECKS:
        yield name, partial(check, checkup)
    for tenant in checkup.tenants:
        for name, tenant_check in TENANT_CHECKS:
            yield name, partial(tenant_check, checkup, tenant)


def diagnose(checkup: Checkup, echo: Callable[[str], None]) -> int:
    """Prints the header, one line per finding and a summary; returns the exit status."""
    environment = checkup.project.environment
    account = f"account {environment.account}, " if environment.account else ""
    echo(
        f"akb doctor: environment {checkup.project.env_name} ({account}region {checkup.region}), "
        f"tenants {', '.join(checkup.tenants)} — read-only"
    )
    try:
        findings = run(planned_checks(checkup), checkup.region, lambda finding: echo(finding.line()))
    except CredentialsMissing as error:
        echo(f"akb doctor: {error}")
        return 2
    echo(_summary(findings))
    return 1 if any(finding.level is Level.FAIL for finding in findings) else 0


def _summary(findings: list[Finding]) -> str:
    counts = {level: sum(1 for f in findings if f.level is level) for level in Level}
    return ", ".join(f"{counts[level]} {level.value}" for level in (Level.FAIL, Level.WARN, Level.OK))
