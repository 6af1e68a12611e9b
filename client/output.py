"""`--output text|json` for every command that prints results, and how a JSON result is printed.

Text is the default everywhere, in a terminal or not; JSON only when asked (`--output json`,
`akb --output json CMD`, or AKB_OUTPUT=json). aws-cli takes its format from its config and gh from
an explicit `--json`, and neither switches format because stdout is a pipe: a script that greps
the text of `akb doctor` must get the same text when a person runs it. What depends on the terminal
is presentation only (colour, the live view of `akb ask`). Each command's JSON document has one
stable shape, documented in docs/client.md and checked by the tests.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import click

from client.global_options import current

OutputFormat = Literal["text", "json"]
OUTPUT_CHOICES = ("text", "json")
OUTPUT_ENV = "AKB_OUTPUT"

F = TypeVar("F", bound=Callable[..., Any])


def _resolve(ctx: click.Context, param: click.Parameter, value: str | None) -> OutputFormat:
    chosen = value or current().output or os.environ.get(OUTPUT_ENV) or "text"
    if chosen not in OUTPUT_CHOICES:
        raise click.BadParameter(f"{OUTPUT_ENV}={chosen}: use text or json", ctx, param)
    return "json" if chosen == "json" else "text"


def output_option(function: F) -> F:
    """Adds `--output text|json`; the command receives `output` as "text" or "json"."""
    return click.option(
        "--output",
        "output",
        type=click.Choice(OUTPUT_CHOICES),
        default=None,
        callback=_resolve,
        help=f"text (default) or json (one document, shape in docs/client.md). Default from ${OUTPUT_ENV}.",
    )(function)


def json_text(document: Any) -> str:
    """A result document as printed: UTF-8, indented, keys in the order built."""
    return json.dumps(document, indent=2, ensure_ascii=False, default=str)


def print_json(document: Any) -> None:
    """One JSON document on stdout."""
    click.echo(json_text(document))
