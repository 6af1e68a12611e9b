"""`akb validate`: check the config without synthesizing (same errors as `cdk synth`: the schema, then
the endpoint's Lambda limits that synth enforces, features/endpoint_limits.py).

Every problem of every file in one run, each naming its file and field. `--output json` prints
`{"valid", "environment", "file", "tenants", "problems": [{"file", "field", "message"}], "warnings"}`
(docs/client.md); an invalid config exits 1 either way.
"""

from __future__ import annotations

from pathlib import Path

import click

from client.exit_codes import ExitCode
from client.options import config_option, env_option, load_or_exit
from client.output import OutputFormat, output_option, print_json


@click.command()
@env_option
@config_option
@output_option
def command(env_name: str, config_dir: Path, output: OutputFormat) -> None:
    """Validate an environment's config and every tenant it deploys."""
    from schema import ConfigError

    env_file = f"{config_dir}/environments/{env_name}.yaml"
    try:
        project = load_or_exit(config_dir, env_name, deploy_limits=True)  # everything synth would refuse
    except ConfigError as error:
        if output != "json":
            raise
        problems = [{"file": p.file, "field": p.field, "message": p.message} for p in error.problems]
        print_json(_document(False, env_name, env_file, [], problems, []))
        raise SystemExit(ExitCode.SETUP) from None
    warnings = []
    if project.environment.log_kms_key_arn:
        # The key is imported, not managed here: only its owner can add what CloudWatch Logs needs.
        warnings.append(
            f"log_kms_key_arn: the key policy of {project.environment.log_kms_key_arn} must allow "
            f"logs.{project.environment.region}.amazonaws.com to use it for the endpoint log groups; "
            "`akb policy --tenant <tenant>` prints the statement and `akb doctor` checks it (docs/security.md)"
        )
    tenants = list(project.tenants)
    if output == "json":
        print_json(_document(True, env_name, env_file, tenants, [], warnings))
        return
    click.echo(f"{env_file}: valid ({len(tenants)} tenants: {', '.join(tenants)})")
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def _document(
    valid: bool, env_name: str, env_file: str, tenants: list[str], problems: list[dict[str, str]], warnings: list[str]
) -> dict[str, object]:
    return {
        "valid": valid,
        "environment": env_name,
        "file": env_file,
        "tenants": tenants,
        "problems": problems,
        "warnings": warnings,
    }
