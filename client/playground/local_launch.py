"""`akb playground --local`: runs `akb local` itself, as a child process, for as long as the playground.

The child is the real command (`python -m client local ...`), so the playground gets exactly what a
developer gets from `akb local` in another terminal (the emulator, `lambdas/run.sh`, the tenant's
settings) and follows it when `akb local` changes. It listens on a free port (or the one given), the
emulator on a port the OS picks; the endpoint's JSON logs are not mixed into the playground's output.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from client.local_processes import stop, wait_ready

START_SECONDS = 60  # the emulator indexes its corpus, then the endpoint starts: seconds on a busy machine


class LocalLaunchError(Exception):
    """`akb local` did not start; the message carries what it said."""


def free_port() -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def local_command(
    tenant: str, env_name: str, config_dir: Path, port: int, delay_ms: float, corpus: Path | None = None
) -> list[str]:
    """The `akb local` command line, as a developer would type it (with the current interpreter; -P: the
    working directory's own `client/` folder, if it has one, must not shadow the project's)."""
    corpus_option = ["--corpus", str(corpus.resolve())] if corpus is not None else []
    return [
        sys.executable,
        "-P",
        "-m",
        "client",
        "local",
        "--tenant",
        tenant,
        "--env",
        env_name,
        "--config",
        str(config_dir.resolve()),
        "--port",
        str(port),
        "--emulator-port",
        "0",
        "--delay-ms",
        f"{delay_ms:g}",
        *corpus_option,
    ]


@contextlib.contextmanager
def running_akb_local(
    tenant: str, env_name: str, config_dir: Path, delay_ms: float, corpus: Path | None = None
) -> Iterator[str]:
    """Yields the URL of a ready `akb local` for `tenant`; stops it (and its endpoint) on exit."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile(mode="w+") as said:
        child = subprocess.Popen(
            local_command(tenant, env_name, config_dir, port, delay_ms, corpus),
            stdout=subprocess.DEVNULL,  # the banner and the endpoint's JSON log lines
            stderr=said,
        )
        try:
            if not wait_ready(url, child, timeout=START_SECONDS):
                said.seek(0)
                tail = " ".join(said.read().strip().splitlines()[-3:])
                raise LocalLaunchError(f"akb local did not become ready on {url}: {tail or 'no output'}")
            yield url
        finally:
            stop(child)
