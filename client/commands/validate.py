"""`akb validate`: check the config without synthesizing (same errors as `cdk synth`: the schema, then
the endpoint's Lambda limits that synth enforces, features/endpoint_limits.py)."""

from __future__ import annotations

from pathlib import Path

import click

from client.options import config_option, env_option, load_or_exit


@click.command()
@env_option
@config_option
def command(env_name: str, config_dir: Path) -> None:
    """Validate an environment's config and every tenant it deploys."""
    project = load_or_exit(config_dir, env_name, deploy_limits=True)  # everything synth would refuse
    tenants = ", ".join(project.tenants)
    click.echo(f"{config_dir}/environments/{env_name}.yaml: valid ({len(project.tenants)} tenants: {tenants})")
    if project.environment.log_kms_key_arn:
        # The key is imported, not managed here: only its owner can add what CloudWatch Logs needs.
        click.echo(
            f"warning: log_kms_key_arn: the key policy of {project.environment.log_kms_key_arn} must allow "
            f"logs.{project.environment.region}.amazonaws.com to use it for the endpoint log groups; "
            "`akb policy --tenant <tenant>` prints the statement and `akb doctor` checks it (docs/security.md)",
            err=True,
        )
