"""The real processes of the browser tests: `akb playground --local` (which starts `akb local`) and
Debian's headless Chromium driven by Playwright. Also used by `make playground-screenshot`.

Playwright's own browser download cannot work here (no internet but package registries), so it
launches /usr/bin/chromium with a fresh user-data directory; `CHROMIUM_MISSING` says why the tests
skip where it is absent (CI installs it first: .ci/run).
"""

from __future__ import annotations

import contextlib
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.children import Child, python_env

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_MISSING = None if CHROMIUM.exists() else f"no Chromium at {CHROMIUM} (Debian: apt-get install -y chromium)"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
REPO = Path(__file__).resolve().parents[3]
PAGE_LINE = re.compile(r"^Playground\s+(?P<page>http://127\.0\.0\.1:(?P<port>\d+)/\?token=(?P<token>\S+))$")
START_SECONDS = 60


@dataclass
class PlaygroundProcess:
    page: str  # the address with this run's token
    origin: str
    token: str
    endpoint: str  # the akb local it started
    process: subprocess.Popen


@contextlib.contextmanager
def running_playground(*args: str) -> Iterator[PlaygroundProcess]:
    """`python -m client playground --no-browser ARGS` until the block ends (SIGTERM: it stops akb local
    too), ready once it prints its `Playground <address>` line (the server then listens)."""
    command = [sys.executable, "-m", "client", "playground", "--no-browser", *args]
    with Child(command, env=python_env(PYTHONUNBUFFERED="1")) as child:
        said = child.wait_for_line("/?token=", START_SECONDS).splitlines()
        match = PAGE_LINE.match(said[-1])
        assert match is not None, said
        endpoint = next(part.split()[1] for part in said if part.startswith("Endpoint"))
        try:
            yield PlaygroundProcess(
                match["page"], f"http://127.0.0.1:{match['port']}", match["token"], endpoint, child.process
            )
        finally:
            child.stop(signal.SIGTERM)


@contextlib.contextmanager
def chromium(extra_args: tuple[str, ...] = ()) -> Iterator[Any]:
    """A Playwright browser context on Debian's Chromium, headless, in a fresh profile directory."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright, tempfile.TemporaryDirectory(prefix="akb-chromium-") as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=str(CHROMIUM),
            headless=True,
            args=[*CHROMIUM_ARGS, *extra_args],
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


def open_page(context: Any, playground: PlaygroundProcess, width: int = 1280, height: int = 900) -> Any:
    """A new tab on the playground, once the page has read its tenant."""
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.set_viewport_size({"width": width, "height": height})
    page.goto(playground.page)
    page.wait_for_selector("body[data-ready='true']")
    return page
