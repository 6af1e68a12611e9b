"""`akb`: the project's command line. Subcommands load lazily so `akb --help` stays instant.

What every subcommand gets from here, without declaring it (docs/client.md):
- the global options `--profile`, `--region`, `--debug` (client/global_options.py), accepted before
  or after the subcommand's name, and `akb --output json|text CMD` as the default of CMD's `--output`;
- the one error path: an exception that escapes a command becomes one line and an exit code from
  client/exit_codes.py (client/failures.py), with the traceback only under `--debug`;
- `akb --version`.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback

import click

from client import global_options
from client.exit_codes import ExitCode
from client.failures import explain
from client.output import OUTPUT_CHOICES

# name -> module exposing `command`. Adding a subcommand is adding one line here.
COMMANDS: dict[str, str] = {
    "ask": "client.commands.ask",
    "eval": "client.commands.eval",
    "ingest": "client.commands.ingest",
    "cost": "client.commands.cost",
    "policy": "client.commands.policy",
    "validate": "client.commands.validate",
    "cache": "client.commands.cache",
    "doctor": "client.commands.doctor",
    "verify": "client.commands.verify",
    "emulator": "client.commands.emulator",
    "local": "client.commands.local",
    "mcp": "client.commands.mcp_serve",
    "playground": "client.commands.playground",
}


def _with_global_options(command: click.Command) -> click.Command:
    """Adds the global options to `command` and, for a group, to each of its subcommands (once)."""
    if getattr(command, "_akb_global_options", False):
        return command
    declared = {option for param in command.params for option in getattr(param, "opts", ())}
    command.params.extend(param for param in global_options.global_parameters() if param.opts[0] not in declared)
    command._akb_global_options = True  # type: ignore[attr-defined]
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_global_options(sub)
    return command


def prints_results(command: click.Command) -> bool:
    """Whether `command` (or, for a group, every subcommand) has `--output`."""
    if isinstance(command, click.Group):
        return all(prints_results(sub) for sub in command.commands.values())
    return any(param.name == "output" for param in command.params)


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = COMMANDS.get(name)
        return _with_global_options(importlib.import_module(module).command) if module else None

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        global_options.reset()  # each invocation starts from the defaults (tests run many in one process)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> None:
        """Runs the subcommand; an exception it lets escape becomes one line and a code (client/failures.py)."""
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            _stdout_to_devnull()  # Python's own flush at exit would write to the closed pipe again
            ctx.exit(ExitCode.PIPE_CLOSED)
        except Exception as error:
            self._fail(ctx, error)
        except KeyboardInterrupt as error:
            self._fail(ctx, error)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if global_options.current().output is not None and command is not None and not prints_results(command):
            raise click.UsageError(f"--output: akb {name} prints no results to format", ctx)
        return name, command, rest

    @staticmethod
    def _fail(ctx: click.Context, error: BaseException) -> None:
        command = " ".join(["akb", *([ctx.invoked_subcommand] if ctx.invoked_subcommand else [])])
        if global_options.current().debug:
            traceback.print_exception(error)
        failure = explain(error, command)
        failure.show()
        ctx.exit(failure.exit_code)


def _stdout_to_devnull() -> None:
    """What the reader of a closed pipe would see is nothing: later writes and the exit's flush go nowhere."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _default_output(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    global_options.current().output = value


@click.group(cls=_LazyGroup, name="akb", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--output",
    type=click.Choice(OUTPUT_CHOICES),
    default=None,
    expose_value=False,
    callback=_default_output,
    help="Default --output of the command: text (default) or json. Also: AKB_OUTPUT.",
)
@click.version_option(package_name="agentic-retrieval-platform", prog_name="akb", message="%(prog)s %(version)s")
def main() -> None:
    """Agentic retrieval on Amazon Bedrock: validate config, check the account, verify a deploy, run, ask, evaluate."""


main.params.extend(global_options.global_parameters())
