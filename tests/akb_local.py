"""`akb local` for tests: the real command (the emulator, and the endpoint through lambdas/run.sh) as
a child process on free ports, ready once its banner says so, its output drained, always stopped.

Tests use the `akb_local` fixture (tests/conftest.py: one per test module, configured by the
module's `pytest.mark.akb_local(...)`), or `run_akb_local(LocalOptions(...), cache_dir)` where a
test needs its own run (to stop it itself and check how it ended).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.children import Child, free_port, python_env
from tests.emulator_http import Faults, emulator_requests

# The banner's last line: `akb local` prints it once /healthz of the endpoint answered.
BANNER_END = "Ctrl-C to stop."
_EMULATOR_URL = re.compile(r"Bedrock emulator  (http://127\.0\.0\.1:\d+)")
# `akb local` when a port was taken meanwhile: before it printed anything, or when the endpoint could not serve.
_PORT_TAKEN = ("is in use", "did not become ready")


@dataclass(frozen=True)
class LocalOptions:
    """What `akb local` is started with; every field has the command's own default unless noted."""

    tenant: str | None = None  # the environment's first tenant (acme in config/)
    env: str = "dev"
    config: Path | None = None  # config/
    front_door: str | None = None  # function_url; "api_gateway" for that identity path
    caller_arn: str | None = None  # a caller the tenant vouches for (end user `developer`)
    delay_ms: float = 0  # the emulator's pause between events (the command's default is 100)
    args: tuple[str, ...] = ()  # any other `akb local` arguments
    ready: str = BANNER_END  # the line after which it serves; "Agent " for a tenant with a Bedrock agent

    def command(self, port: int) -> list[str]:
        command = [sys.executable, "-m", "client", "local", "--env", self.env, "--port", str(port)]
        command += ["--emulator-port", "0", "--delay-ms", f"{self.delay_ms:g}"]
        for flag, value in (
            ("--tenant", self.tenant),
            ("--config", self.config),
            ("--front-door", self.front_door),
            ("--caller-arn", self.caller_arn),
        ):
            if value is not None:
                command += [flag, str(value)]
        return [*command, *self.args]


@dataclass
class AkbLocal:
    """A running `akb local`: where it serves, what it printed, the emulator's journal and faults."""

    child: Child
    url: str
    emulator_url: str
    banner: str  # everything printed up to the ready line

    @property
    def faults(self) -> Faults:
        return Faults(self.emulator_url)

    def sent(self) -> list[dict[str, Any]]:
        """The AgenticRetrieveStream bodies the emulator received (its journal), oldest first."""
        return [
            entry["body"] for entry in emulator_requests(self.emulator_url) if entry["path"] == "/agenticRetrieveStream"
        ]

    def client_env(self, **extra: str) -> dict[str, str]:
        """The environment for an `akb` client child (`akb ask --local`, `akb mcp --local`) pointed at it."""
        return python_env(AKB_LOCAL_URL=self.url, **extra)

    def stop(self) -> int:
        """Ctrl-C, as a developer would stop it; its exit status."""
        return self.child.stop()


@contextmanager
def run_akb_local(options: LocalOptions, cache_dir: Path, attempts: int = 3) -> Iterator[AkbLocal]:
    """Starts `akb local` with `options` (its result cache in `cache_dir`) and yields it once ready.

    The emulator binds port 0 and the banner says where; the endpoint needs a port chosen before it
    starts, so if another process takes that port meanwhile, it is started again on another one."""
    env = python_env(AKB_LOCAL_CACHE_DIR=str(cache_dir))
    for attempt in range(attempts):
        port = free_port()
        child = Child(options.command(port), env=env)
        try:
            banner = child.wait_for_line(options.ready)
        except AssertionError:
            child.close()
            if any(said in child.output for said in _PORT_TAKEN) and attempt + 1 < attempts:
                continue
            raise
        found = _EMULATOR_URL.search(banner)
        try:
            assert found, banner
            yield AkbLocal(child, f"http://127.0.0.1:{port}", found[1], banner)
        finally:
            child.close()
        return
