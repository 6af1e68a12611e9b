"""Cold-start import cost of the web framework: Starlette (what the endpoint uses) against FastAPI.

    python3 -m venv /tmp/fa && /tmp/fa/bin/pip install -q fastapi starlette uvicorn
    python bench/framework_import.py /tmp/fa/bin/python [--runs 5]

FastAPI is not a dependency of this project: the interpreter to measure is an argument, so a
scratch virtualenv that has it can be timed without touching the project's requirements. Each
statement runs in `--runs` fresh processes; for each it reports the median of two numbers:
`-X importtime`'s cumulative time of the modules the statement imported (those a bare `pass`
does not), and the process's wall time minus the median wall time of a bare `pass`.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import time

STATEMENTS = {
    "starlette": "import starlette.applications, starlette.responses",
    "starlette + pydantic (the endpoint's edge)": "import starlette.applications, starlette.responses, pydantic",
    "fastapi": "import fastapi",
}


def _run(python: str, statement: str) -> tuple[float, dict[str, int]]:
    """Wall seconds of one fresh process and each top-level import's cumulative microseconds."""
    started = time.perf_counter()
    done = subprocess.run([python, "-X", "importtime", "-c", statement], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    cumulative: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative_us, name = (part.strip() for part in line.removeprefix("import time:").split("|"))
        if cumulative_us.isdigit() and not line.rsplit("|", 1)[1].startswith("  "):  # top level only
            cumulative[name] = int(cumulative_us)
    return wall, cumulative


def measure(python: str, runs: int) -> dict[str, tuple[float, float]]:
    """statement label -> (median import ms, median wall ms above a bare interpreter)."""
    baselines = [_run(python, "pass") for _ in range(runs)]
    startup = set().union(*(modules for _, modules in baselines))
    bare_wall = statistics.median(wall for wall, _ in baselines)
    out = {}
    for label, statement in STATEMENTS.items():
        imports, walls = [], []
        for _ in range(runs):
            wall, modules = _run(python, statement)
            imports.append(sum(us for name, us in modules.items() if name not in startup) / 1000)
            walls.append((wall - bare_wall) * 1000)
        out[label] = (statistics.median(imports), statistics.median(walls))
    return out


def version_of(python: str, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("python", help="interpreter whose environment has fastapi and starlette")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    versions = ", ".join(f"{p} {version_of(args.python, p)}" for p in ("fastapi", "starlette", "pydantic"))
    print(f"{platform.machine()}, {versions}; median of {args.runs} fresh processes per row")
    print("| import | -X importtime cumulative (ms) | wall above bare `python -c pass` (ms) |")
    print("|---|---:|---:|")
    for label, (imports, wall) in measure(args.python, args.runs).items():
        print(f"| {label} | {imports:.0f} | {wall:.0f} |")


if __name__ == "__main__":
    main()
