"""The options every `akb` command takes, wherever they are written: `--profile`, `--region`, `--debug`.

`akb --profile p doctor` and `akb doctor --profile p` mean the same (as with aws-cli): the group
declares them and client/cli.py adds the same options to every subcommand it loads, so a command
added later has them without declaring anything. Their values land in one `GlobalOptions` per
invocation, which the AWS session factory (client/aws_session.py) and the error path
(client/failures.py) read. `--output` is declared by the commands that print results
(client/output.py) and may also be given to the group, as the default for the command.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import click


@dataclass
class GlobalOptions:
    profile: str | None = None  # --profile: an AWS profile (else the standard chain: AWS_PROFILE, ...)
    region: str | None = None  # --region: where the command's own context names none
    debug: bool = False  # --debug: the traceback behind an error line
    output: str | None = None  # `akb --output json CMD`: the default of CMD's --output
    config_source: str = "default"  # how --config was found: option, AKB_CONFIG, discovered, default


_current = GlobalOptions()


def current() -> GlobalOptions:
    """The options of the invocation running now (defaults outside one: the Python API)."""
    return _current


def reset() -> GlobalOptions:
    """A fresh set for a new invocation (the CLI's group callback; tests invoke many in one process)."""
    global _current
    _current = GlobalOptions()
    return _current


def _store(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        if value is not None and value is not False:  # given here: wins over the group's
            setattr(_current, name, value)
        return value

    return callback


def _option(name: str, help: str, *, flag: bool = False) -> click.Option:
    """An option that only records its value (eager: before the command's own callbacks read it)."""
    extra: dict[str, Any] = {"is_flag": True, "default": False} if flag else {}
    return click.Option([f"--{name}"], expose_value=False, is_eager=True, callback=_store(name), help=help, **extra)


def global_parameters() -> list[click.Parameter]:
    """New instances of the shared options (a click parameter belongs to one command)."""
    return [
        _option(
            "profile", "AWS profile to use (default: the standard chain: AWS_PROFILE, environment keys, SSO, role)."
        ),
        _option("region", "AWS region where the command's context names none (an --env names its own)."),
        _option("debug", "On an error, also print the traceback (for bug reports).", flag=True),
    ]
