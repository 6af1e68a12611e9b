"""A unit test starts no child process: an audit hook that fails one that does.

`make test-fast` runs the tests that carry none of the markers `slow`, `server` and `synth`
(tests/conftest.py sets them from what a test uses). That selection is only as good as the
marking: a test that imports `subprocess` inside its body, or calls product code that starts one
(`akb local`, `akb eval --local`, cdk's node process), would slip in unmarked. So while such an
unmarked test runs, starting a process raises `ChildProcessInUnitTest` at the call (Python's audit
events for process creation, https://docs.python.org/3/library/audit_events.html) and the test
fails — in `make test` as in `make test-fast`, so CI catches a wrong mark. Code that swallows the
exception does not save the test: tests/conftest.py fails it afterwards from `violation()`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

# Audit events raised before a process is created (subprocess, os.system, posix_spawn, exec, fork).
SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.exec", "os.fork"})
# Programs a library runs once per machine, not per test: allowed, with the reason.
ALLOWED_PROGRAMS = {
    "fc-list": "matplotlib lists the system fonts once, when it builds its font cache (a new HOME)",
}
MARKERS = ("slow", "server", "synth")


class ChildProcessInUnitTest(RuntimeError):
    """Raised where an unmarked (unit) test starts a process."""


@dataclass
class _Watch:
    test: str | None = None  # node id of the unmarked test running now, None when processes are allowed
    started: list[str] = field(default_factory=list)


_watch = _Watch()
_installed = False


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _watch.test is None or event not in SPAWN_EVENTS:
        return
    if event == "subprocess.Popen":
        argv = [str(part) for part in (args[1] if isinstance(args[1], (list, tuple)) else [args[1] or args[0]])]
        if argv and os.path.basename(argv[0]) in ALLOWED_PROGRAMS:
            return
        what = " ".join(argv)
    else:
        what = f"{event}{args!r}"
    _watch.started.append(what[:200])
    raise ChildProcessInUnitTest(message(_watch.test, what))


def message(test: str, what: str) -> str:
    return (
        f"{test} started a child process ({what[:200]}) but is not marked slow, server or synth, so "
        "`make test-fast` would run it. Mark it @pytest.mark.slow (or use a fixture that starts the process, "
        "such as akb_local); docs/testing.md, Markers."
    )


def install() -> None:
    """Adds the audit hook once per process (an audit hook cannot be removed; it is idle between tests)."""
    global _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True


def watch(test: str | None) -> None:
    """Forbid processes while `test` (a node id) runs; `None` allows them again."""
    _watch.test = test
    _watch.started.clear()


def violation() -> str | None:
    """The message for the first process the watched test tried to start, if any."""
    if _watch.test is None or not _watch.started:
        return None
    return message(_watch.test, _watch.started[0])
