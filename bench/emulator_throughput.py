"""Events per second the local Bedrock emulator sustains on one core, driven by boto3 over loopback.

The emulator runs as `akb emulator` in a child process pinned to CPU 0 (with no delay between
events); this process drives it from CPU 1 with 1 and then 4 client threads, each for a bounded
time, and records the emulator's own CPU time, so the figure that matters ("events per CPU-second
of the emulator") does not depend on how fast the client parses.

    PYTHONPATH=. python bench/emulator_throughput.py [--seconds 5] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import boto3
from botocore.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import RESULTS, append_result  # noqa: E402

QUESTION = "Which team owns the feature behind the error in ticket TCK-1183, and which version fixed it?"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _start_emulator() -> tuple[subprocess.Popen, str]:
    pin = (lambda: os.sched_setaffinity(0, {0})) if hasattr(os, "sched_setaffinity") else None
    process = subprocess.Popen(
        [sys.executable, "-m", "client", "emulator", "--port", "0", "--delay-ms", "0"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=pin,  # pin the child before it serves
    )
    url = process.stdout.readline().split()[4]
    return process, url


def _request(kb_ids: list[str]) -> dict:
    return {
        "messages": [{"role": "user", "content": {"text": QUESTION}}],
        "retrievers": [{"configuration": {"knowledgeBase": {"knowledgeBaseId": k}}} for k in kb_ids],
        "agenticRetrieveConfiguration": {"foundationModelType": "MANAGED", "maxAgentIteration": 3},
    }


def _drive(url: str, threads: int, seconds: float) -> tuple[int, int]:
    from local.emulator import kb_id_for

    body = _request([kb_id_for("docs"), kb_id_for("tickets")])
    counts = [[0, 0] for _ in range(threads)]
    deadline = time.monotonic() + seconds

    def worker(slot: list[int]) -> None:
        client = boto3.client(
            "bedrock-agent-runtime",
            endpoint_url=url,
            region_name="us-west-2",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(retries={"mode": "standard", "total_max_attempts": 1}),
        )
        while time.monotonic() < deadline:
            slot[0] += sum(1 for _ in client.agentic_retrieve_stream(**body)["stream"])
            slot[1] += 1

    pool = [threading.Thread(target=worker, args=(slot,)) for slot in counts]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return sum(c[0] for c in counts), sum(c[1] for c in counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--no-record", action="store_true", help="print only, do not append to RESULTS.md")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {1})
    process, url = _start_emulator()
    rows = []
    try:
        _drive(url, 1, 0.5)  # warm-up: imports, connection pools, bm25 caches
        for threads in (1, 4):
            cpu_before, started = _cpu_seconds(process.pid), time.monotonic()
            events, streams = _drive(url, threads, args.seconds)
            wall, cpu = time.monotonic() - started, _cpu_seconds(process.pid) - cpu_before
            per_cpu = events / cpu if cpu else float("nan")
            rows.append((threads, events, streams, events / wall, per_cpu, cpu / wall))
    finally:
        process.terminate()
        process.wait(timeout=10)
    table = [
        "| client threads | events | streams | events/s (wall) | events per emulator CPU-second | emulator CPU use |",
        "|---:|---:|---:|---:|---:|---:|",
        *(f"| {t} | {e} | {s} | {w:,.0f} | {c:,.0f} | {u:.0%} |" for t, e, s, w, c, u in rows),
    ]
    print("\n".join(table))
    if not args.no_record:
        entry = [
            f"### {dt.date.today().isoformat()}: nproc {os.cpu_count()}, {platform.machine()},"
            f" Python {platform.python_version()}",
            "",
            f"Emulator pinned to one core, no delay, {args.seconds:g} s per row; each stream is the"
            f" 3-hop question over docs+tickets ({rows[0][1] / max(rows[0][2], 1):.0f} events per stream).",
            "",
            *table,
            "",
            "Command: `PYTHONPATH=. .venv/bin/python bench/emulator_throughput.py`",
        ]
        append_result("## Emulator throughput", "\n".join(entry), RESULTS)  # at the end of its own section
        print(f"appended to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
