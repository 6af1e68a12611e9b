"""Endpoint init counted in instructions, not milliseconds: the same code as front_door_cold_start.py's.

On a shared machine the wall time of a 200-300 ms cold start moves by tens of percent from one minute to
the next; the number of instructions a process executes barely moves. Each variant runs once under
valgrind's cachegrind (`--cache-sim=no`: instruction counts only) in a fresh interpreter with bytecode
present (one untimed run first), against one emulator (delay 0) in this process:

- bare: `import boto3`, the bedrock-agent-runtime client and one AgenticRetrieveStream read whole;
- stages of the endpoint's init over a bare client: + asyncio, + uvicorn, + the service's own modules
  (`lambdas.endpoint.asgi_app`: plain ASGI, no Starlette since issue 24's last round), then the whole
  init (imports, app, first request);
- `--before DIR`: the whole init of another tree (`git archive REV | tar -x -C DIR`), same interpreter.

`--python PATH` runs the variants under another interpreter (a virtualenv with lambdas/requirements.lock
installed, for the function's own dependencies and no others).

    PYTHONPATH=. .venv/bin/python bench/endpoint_init_instructions.py [--before DIR] [--python PATH] [--no-record]
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.front_door_cold_start import ENDPOINT, bare_code, cold_env  # noqa: E402
from bench.results_file import append_result  # noqa: E402
from local.emulator import start_emulator  # noqa: E402

HEADING = "## Endpoint init in instructions (bench/endpoint_init_instructions.py)"
CLIENT = "import boto3; boto3.client('bedrock-agent-runtime', region_name='us-west-2')"
STAGES = {
    "bare client, no call": CLIENT,
    "+ asyncio": f"{CLIENT}; import asyncio",
    "+ uvicorn": f"{CLIENT}; import uvicorn",
    "+ the service's modules": f"{CLIENT}; import uvicorn; from lambdas.endpoint import asgi_app",
}


def instructions(python: str, code: str, tree: Path, env: dict[str, str]) -> int:
    """Instructions one fresh interpreter executes for `code` (after an untimed run that writes bytecode)."""
    subprocess.run([python, "-c", code], env=cold_env(env, tree), cwd=tree, capture_output=True, check=True)
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", python, "-c", code]
    done = subprocess.run(command, env=cold_env(env, tree), cwd=tree, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or not found:
        raise RuntimeError(done.stderr[-2000:])
    return int(found.group(1).replace(",", ""))


def measure(python: str, before: Path | None) -> dict[str, int]:
    emulator = start_emulator(port=0, delay_ms=0)
    try:
        counts = {"bare boto3 client + the same call": instructions(python, bare_code(), ROOT, emulator.env)}
        counts |= {label: instructions(python, code, ROOT, emulator.env) for label, code in STAGES.items()}
        counts["endpoint init (this tree)"] = instructions(python, ENDPOINT, ROOT, emulator.env)
        if before is not None:
            counts[f"endpoint init ({before.name})"] = instructions(python, ENDPOINT, before, emulator.env)
        return counts
    finally:
        emulator.stop()


def report(counts: dict[str, int], python: str) -> str:
    version = subprocess.run(
        [python, "-c", "import platform; print(platform.python_version())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    bare = counts["bare boto3 client + the same call"]
    rows = "\n".join(f"| {label} | {count / 1e6:,.0f} | {count / bare:.2f} |" for label, count in counts.items())
    where = (
        "the project's .venv" if python == sys.executable else "`--python`: a virtualenv of lambdas/requirements.lock"
    )
    return f"""### {time.strftime("%Y-%m-%d")}: {platform.machine()}, Python {version}, {where}

| variant | instructions (millions) | ratio to bare boto3 + call |
|---|---:|---:|
{rows}

Command: `PYTHONPATH=. .venv/bin/python bench/endpoint_init_instructions.py` (see its docstring for options)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another tree's whole init, for a same-run comparison")
    parser.add_argument("--python", default=sys.executable, help="the interpreter the variants run under")
    parser.add_argument("--no-record", action="store_true", help="print only; bench/RESULTS.md unchanged")
    args = parser.parse_args()
    text = report(measure(args.python, args.before), args.python)
    print(text)
    if not args.no_record:
        append_result(HEADING, text)


if __name__ == "__main__":
    main()
