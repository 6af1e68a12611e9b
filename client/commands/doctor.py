"""`akb doctor`: read-only checks of the target account, one line each, before (and after) `cdk deploy`.

Exit status (client/exit_codes.py): 0 when nothing FAILs, 6 (CHECKS_FAILED) when something does,
1 (SETUP) for an invalid config, an unknown environment or tenant, or no usable AWS credentials,
2 for a bad option. `--output json` prints one document (docs/client.md).
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
    report_document,
    run,
    summary,
)
from client.doctor.findings import CredentialsMissing, Finding, Level
from client.exit_codes import ExitCode
from client.failures import CREDENTIALS_FIX, Failure
from client.options import config_option, env_option, load_or_exit, tenant_option
from client.output import OutputFormat, json_text, output_option

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
@tenant_option("Check only this tenant (default: every tenant of the environment).")
@output_option
def command(env_name: str, config_dir: Path, tenant: str | None, output: OutputFormat) -> None:
    """Check the environment's AWS account and region with your credentials (read-only)."""
    checkup = checkup_for(config_dir, env_name, tenant)
    raise SystemExit(diagnose(checkup, click.echo, as_json=output == "json"))


def checkup_for(
    config_dir: Path,
    env_name: str,
    tenant: str | None,
    clients: ClientFactory | None = None,
) -> Checkup:
    """The checkup of `akb doctor` (and `akb verify`); a config, tenant or credentials problem raises
    (the one error path prints it: exit 1)."""
    from client.aws_session import environment_region

    project = load_or_exit(config_dir, env_name)
    if tenant is not None and tenant not in project.tenants:
        raise Failure(
            f"tenant '{tenant}' is not deployed in environment {env_name} (its tenants: {', '.join(project.tenants)}): "
            f"add it to {config_dir}/environments/{env_name}.yaml `tenants:` or pick one of those"
        )
    region = environment_region(project)
    if clients is None and not has_credentials(region):
        raise Failure(f"no usable AWS credentials found: {CREDENTIALS_FIX}")
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


def diagnose(checkup: Checkup, echo: Callable[[str], None], *, as_json: bool = False) -> int:
    """Prints the header, one line per finding and a summary (or one JSON document); returns the exit status."""
    environment = checkup.project.environment
    account = f"account {environment.account}, " if environment.account else ""
    if not as_json:
        echo(
            f"akb doctor: environment {checkup.project.env_name} ({account}region {checkup.region}), "
            f"tenants {', '.join(checkup.tenants)} — read-only"
        )
    emit: Callable[[Finding], None] = (lambda finding: None) if as_json else (lambda finding: echo(finding.line()))
    try:
        findings = run(planned_checks(checkup), checkup.region, emit)
    except CredentialsMissing as error:
        raise Failure(str(error)) from None
    status = ExitCode.CHECKS_FAILED if any(finding.level is Level.FAIL for finding in findings) else ExitCode.OK
    if as_json:
        echo(json_text(report_document(checkup, findings, status)))
    else:
        echo(summary(findings))
    return status
