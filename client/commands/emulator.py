"""`akb emulator`: run the local Bedrock emulator in the foreground until Ctrl-C."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType

import click

from client.local_quota import account_quota_line, account_rpm_option
from client.options import corpus_option, delay_option


@click.command()
@click.option(
    "--port",
    default=8081,
    show_default=True,
    envvar="AKB_EMULATOR_PORT",
    show_envvar=True,
    type=click.IntRange(0, 65535),
    help="Port on 127.0.0.1 (0: any free port).",
)
@corpus_option()
@delay_option(20.0)
@account_rpm_option
def command(port: int, corpus_dir: Path | None, delay_ms: float, account_rpm: int | None) -> None:
    """Serve AgenticRetrieveStream and Retrieve locally (a stand-in for tests, not for answer quality)."""
    from local.emulator import ENDPOINT_ENV, CorpusError, start_emulator

    # Ctrl-C and `kill` both stop cleanly, even when started from a shell that ignores SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)

    try:
        emulator = start_emulator(port=port, corpus_dir=corpus_dir, delay_ms=delay_ms, account_rpm=account_rpm)
    except (CorpusError, OSError) as error:
        click.echo(f"cannot start the emulator: {error}", err=True)
        raise SystemExit(1) from None
    try:
        click.echo(f"Bedrock emulator listening on {emulator.url} (127.0.0.1 only)")
        click.echo(account_quota_line(account_rpm))
        for folder, kb_id in emulator.knowledge_bases.items():
            click.echo(f"  knowledge base {folder:<10} id {kb_id}")
        click.echo("\nPoint boto3 at it:")
        click.echo(f"  export {ENDPOINT_ENV}={emulator.url} AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x")
        click.echo(
            f'  boto3.client("bedrock-agent-runtime", endpoint_url="{emulator.url}",\n'
            '               region_name="us-west-2", aws_access_key_id="x", aws_secret_access_key="x")'
        )
        click.echo(f"\nControl API: {emulator.url}/_emulator/faults | requests | streams | knowledgebases")
        click.echo("Ctrl-C to stop.")
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("\nstopping")
    finally:
        emulator.stop()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
