"""How long the test commands take: `make test-fast` and `make test`, wall and CPU, on this machine.

The figures depend on the machine (cores, load, a warm or cold bytecode cache), so each run records
them with the machine's description and load average, and, with `--baseline`, the same selection
run the way the Makefile ran it before this round (two workers, no bytecode kept: the previous
`make test`) in the same session, so the change is read as a ratio, not against another day's
figure. Both runs are warmed first (one untimed run each) unless `--cold`.

    PYTHONPATH=. python bench/test_suite_time.py [--suite fast|full] [--baseline] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import append_result  # noqa: E402

PYTHON = str(ROOT / ".venv" / "bin" / "python")
BYTECODE = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(ROOT / ".build" / "pycache")}
NO_BYTECODE = {"PYTHONDONTWRITEBYTECODE": "1"}


@dataclass(frozen=True)
class Config:
    """One way of running a selection: the pytest arguments and the environment the Makefile sets."""

    name: str
    args: tuple[str, ...]
    env: dict[str, str]


def _fast_args() -> tuple[str, ...]:
    """`make test-fast`'s selection, read from the Makefile so the two cannot drift."""
    listed = subprocess.run(
        ["make", "-s", "--no-print-directory", "-pn", "test-fast"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    folders = next(line.split(":=", 1)[1].split() for line in listed.splitlines() if line.startswith("FAST_TESTS :="))
    return (*folders, "-m", "not synth and not server and not slow")


def configs(suite: str, baseline: bool) -> list[Config]:
    if suite == "fast":
        selection = _fast_args()
        chosen = [Config("make test-fast (-n 2, bytecode kept)", ("-n", "2", *selection), BYTECODE)]
        old = Config("before: -n 2, no bytecode kept", ("-n", "2", *selection), NO_BYTECODE)
    else:
        grouped = ("--dist", "loadgroup")
        chosen = [Config("make test (-n 3 --dist loadgroup, bytecode kept)", ("-n", "3", *grouped), BYTECODE)]
        old = Config("before: -n 2 --dist loadgroup, no bytecode kept", ("-n", "2", *grouped), NO_BYTECODE)
    return [old, *chosen] if baseline else chosen


# A fixed piece of pure-Python work: this machine's vCPUs run the same instructions up to ~20 % faster
# or slower from one minute to the next (two identical `make test` runs: 202 and 242 CPU seconds), so
# each run is recorded with this loop's time just before and just after it.
HOST_SPEED_LOOP = """
import time
started = time.process_time()
total = 0
for i in range(5_000_000):
    total += i * i
print(time.process_time() - started)
"""


def host_speed() -> float:
    """CPU seconds of HOST_SPEED_LOOP in a fresh interpreter, the median of three."""
    return statistics.median(
        float(subprocess.run([PYTHON, "-c", HOST_SPEED_LOOP], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    )


# `make test` runs pytest without PYTHONPATH (the project is installed in the virtualenv); this script
# itself runs with PYTHONPATH=., which would put each test's working directory on its children's path.
MAKE_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def run(config: Config) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system, every child included) and the exit code of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(
        [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", *config.args],
        cwd=ROOT,
        env={**MAKE_ENV, **config.env},
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=("fast", "full"), default="fast")
    parser.add_argument("--baseline", action="store_true", help="also run the previous way, in the same session")
    parser.add_argument("--cold", action="store_true", help="no untimed warm-up run")
    parser.add_argument("--no-record", action="store_true", help="print only; leave bench/RESULTS.md alone")
    options = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    for config in configs(options.suite, options.baseline):
        if not options.cold:
            run(config)
        speed_before = host_speed()
        wall, cpu, code = run(config)
        speeds = f"{speed_before:.3f} / {host_speed():.3f}"
        rows.append((config.name, wall, cpu, code, speeds))
        print(f"{config.name}: wall {wall:.1f} s, CPU {cpu:.1f} s, exit {code}", flush=True)
    base_wall = rows[0][1]
    table = "\n".join(
        f"| {name} | {wall:.1f} | {cpu:.1f} | {wall / base_wall:.2f} | {code} | {speeds} |"
        for name, wall, cpu, code, speeds in rows
    )
    text = (
        f"### {dt.date.today()}: `--suite {options.suite}`, nproc {os.cpu_count()}, {platform.machine()}, "
        f"Python {platform.python_version()}, load average {load:.2f} at the start"
        f"{'' if options.cold else ', each warmed by one untimed run'}\n\n"
        "| run | wall s | CPU s (user+sys, children) | wall ratio to the first row | exit "
        "| host-speed loop before / after, s |\n"
        "|---|---:|---:|---:|---:|---:|\n"
        f"{table}\n"
    )
    print(text)
    if not options.no_record:
        append_result("## Test suite time (bench/test_suite_time.py)", text)


if __name__ == "__main__":
    main()
