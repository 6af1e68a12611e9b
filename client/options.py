"""Options several `akb` subcommands share, defined once."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from schema import Project

env_option = click.option(
    "--env", "env_name", default="dev", show_default=True, help="Environment: config/environments/<env>.yaml."
)
config_option = click.option(
    "--config",
    "config_dir",
    default="config",
    show_default=True,
    type=click.Path(path_type=Path),
    help="Config directory holding environments/ and tenants/.",
)


def load_or_exit(config_dir: Path, env_name: str, *, deploy_limits: bool = False) -> Project:
    """Loads the project or prints the config errors and exits 1 (never a stack trace).

    `deploy_limits`: also check what the endpoint construct would refuse at synth (environment
    size, function name length: features/endpoint_limits.py), as `cdk synth` (app.py) does."""
    from schema import ConfigError, load_project

    try:
        project = load_project(config_dir, env_name)
        if deploy_limits:
            from features.endpoint_limits import deploy_problems

            problems = deploy_problems(project)
            if problems:
                raise ConfigError(problems)
        return project
    except ConfigError as error:
        click.echo(str(error), err=True)
        raise SystemExit(1) from None
