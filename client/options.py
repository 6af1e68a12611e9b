"""Options several `akb` subcommands share, defined once: the environment, the tenant, the config directory,
and the local emulator's corpus and pace (`akb emulator`, `akb local`, `akb eval --local`, `akb playground --local`).

Each takes its default from the environment (AKB_ENV, AKB_TENANT, AKB_CONFIG) before its own, so a
shell or CI job sets them once; the config directory is also found from the current folder upward
(client/config_discovery.py). `load_or_exit` is every command's way to load the project: a problem
raises ConfigError, which the one error path prints (every problem, one line each) with exit 1.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from client.config_discovery import resolve_config

if TYPE_CHECKING:
    from schema import Project

F = TypeVar("F", bound=Callable[..., Any])
ENV_ENV = "AKB_ENV"
TENANT_ENV = "AKB_TENANT"

env_option = click.option(
    "--env",
    "env_name",
    default="dev",
    envvar=ENV_ENV,
    show_default=True,
    show_envvar=True,
    help="Environment: config/environments/<env>.yaml.",
)
config_option = click.option(
    "--config",
    "config_dir",
    default=None,
    type=click.Path(path_type=Path),
    callback=resolve_config,
    help="Config directory holding environments/ and tenants/ [default: $AKB_CONFIG, else the nearest config/ "
    "from the current folder upward].",
)


def corpus_option(when: str = "", note: str = "") -> Callable[[F], F]:
    """`--corpus DIR` (parameter `corpus_dir`): the emulator's documents, one folder per knowledge-base
    alias. A folder that does not exist is a usage error (exit 2) naming the option, in every command."""
    return click.option(
        "--corpus",
        "corpus_dir",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        default=None,
        help=f"{when}Documents, one folder per knowledge-base alias (DIR/<alias>/*.md|*.txt). Default: local/corpus/ "
        f"(the sample tenants' aliases).{' ' + note if note else ''}",
    )


def delay_option(default: float, when: str = "") -> Callable[[F], F]:
    """`--delay-ms`: the emulator's pause between stream events, 0-60,000 ms. The defaults differ on
    purpose: a person watching `akb local` or the playground should see the planner's steps arrive."""
    return click.option(
        "--delay-ms",
        default=default,
        show_default=True,
        type=click.FloatRange(0, 60_000),
        help=f"{when}The emulator's pause between events, in milliseconds.",
    )


def tenant_option(help: str, *, required: bool = False, name: str = "tenant") -> Callable[[F], F]:
    """`--tenant`, defaulting to $AKB_TENANT."""
    return click.option("--tenant", name, required=required, envvar=TENANT_ENV, show_envvar=True, help=help)


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user typed the option on the command line (an AKB_* default is a default, not a choice)."""
    return ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE


def load_or_exit(config_dir: Path, env_name: str, *, deploy_limits: bool = False) -> Project:
    """Loads the project; raises ConfigError naming every problem (the one error path prints it, exit 1).

    `deploy_limits`: also check what the endpoint construct would refuse at synth (environment
    size, function name length: features/endpoint_limits.py), as `cdk synth` (app.py) does."""
    from schema import ConfigError, load_project

    project = load_project(config_dir, env_name)
    if deploy_limits:
        from features.endpoint_limits import deploy_problems

        problems = deploy_problems(project)
        if problems:
            raise ConfigError(problems)
    return project


def endpoint_url(url: str) -> tuple[str, str | None]:
    """`--url` checked, with the region to sign it for: --region, else the URL's own (a function URL or
    execute-api host names it), else AWS_REGION / the profile's; a custom domain with none is a setup error."""
    from client.aws_session import default_region
    from client.failures import REGION_FIX, Failure
    from client.global_options import current
    from client.sigv4 import is_local, region_from_url

    if not url.startswith(("http://", "https://")):
        raise click.UsageError(f"--url must start with http:// or https://, got '{url}'")
    region = current().region
    if region or is_local(url) or region_from_url(url):
        return url, region
    region = default_region()
    if not region:
        raise Failure(f"cannot tell the region to sign for {url} (a custom domain names none): {REGION_FIX}")
    return url, region
