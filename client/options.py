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


def load_or_exit(config_dir: Path, env_name: str) -> Project:
    """Loads the project or prints the config errors and exits 1 (never a stack trace)."""
    from schema import ConfigError, load_project

    try:
        return load_project(config_dir, env_name)
    except ConfigError as error:
        click.echo(str(error), err=True)
        raise SystemExit(1) from None
