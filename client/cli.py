"""`akb`: the project's command line. Subcommands load lazily so `akb --help` stays instant."""

from __future__ import annotations

import importlib

import click

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


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        module = COMMANDS.get(name)
        return importlib.import_module(module).command if module else None


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Agentic retrieval on Amazon Bedrock: validate config, check the account, verify a deploy, run, ask, evaluate."""
