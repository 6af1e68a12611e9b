"""The floor under the endpoint's first-event overhead: the least any uvicorn + boto3 relay can add.

"First event through the endpoint vs boto3 straight to the emulator" (endpoint_latency.py) measures
everything the endpoint adds. This measures, in the same run and alternating with the endpoint,
two relays that do nothing but relay, each served exactly as lambdas/run.sh serves the endpoint
(uvicorn, the project's h11 protocol class, the same flags) and making the direct path's boto3 call:

- `null relay, thread`: reads the body, opens the stream on a worker thread and hands each event to
  the loop through an asyncio queue — the least a server that must keep serving other requests
  while one waits for Bedrock can do with a blocking client;
- `null relay, on the loop`: the same, but calls boto3 on the event loop itself (the loop serves
  nobody else until the call's first event): the least possible with boto3 behind uvicorn.

Neither checks identity or the body, logs, caches, admits or retries. What the endpoint adds above the
first is its own work; what the second adds above the direct call is not the endpoint's to remove
without another HTTP server or another AWS client.

    PYTHONPATH=. python bench/first_event_floor.py [--rounds 4] [--runs 20] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.endpoint_latency import (  # noqa: E402
    direct_call,
    endpoint_env,
    latency,
    start_emulator_nodelay,
    start_endpoint,
    wait_http,
)
from bench.http_hop_floor import NULL_PREAMBLE, RUN_SH_FLAGS  # noqa: E402
from bench.results_file import append_result  # noqa: E402
from tests.children import free_port  # noqa: E402

NULL_RELAY = (
    NULL_PREAMBLE
    + """
import asyncio, json, os, threading

import boto3
from botocore.config import Config

CLIENT = boto3.client(
    "bedrock-agent-runtime", region_name="us-west-2", config=Config(retries={"total_max_attempts": 1})
)
ON_THE_LOOP = os.environ["NULL_RELAY_MODE"] == "loop"
ARGS = json.loads(os.environ["NULL_RELAY_CALL"])
END = object()


def frame(kind, body):
    return f"event: {kind}\\ndata: {json.dumps(body, default=str)}\\n\\n".encode()


def first_and_rest():
    events = iter(CLIENT.agentic_retrieve_stream(**ARGS)["stream"])
    return next(events, END), events


async def events_on_the_loop():
    # Every read blocks the loop: nobody else is served until this stream ends (the floor, not a design).
    first, rest = first_and_rest()
    if first is not END:
        yield first
        for event in rest:
            yield event


async def events_through_a_thread():
    loop, queue = asyncio.get_running_loop(), asyncio.Queue()

    def put(item):
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def work():
        first, rest = first_and_rest()
        if first is not END:
            put(first)
            for event in rest:
                put(event)
        put(END)

    threading.Thread(target=work, daemon=True).start()
    while (event := await queue.get()) is not END:
        yield event


async def app(scope, receive, send):
    if await lifespan_or_body(scope, receive, send):
        return
    if scope["path"] == "/healthz":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})
        return
    started = False
    async for event in (events_on_the_loop() if ON_THE_LOOP else events_through_a_thread()):
        if not started:
            headers = [(b"content-type", b"text/event-stream")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            started = True
        [(kind, body)] = event.items()  # boto3 gives each event as {its type: its fields}
        await send({"type": "http.response.body", "body": frame(kind, body), "more_body": True})
    await send({"type": "http.response.body", "body": frame("done", {})})
"""
)


def start_null_relay(folder: Path, mode: str, emulator_url: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **endpoint_env(port, emulator_url),
        "PYTHONPATH": f"{folder}:{ROOT}",
        "NULL_RELAY_MODE": mode,
        "NULL_RELAY_CALL": json.dumps(direct_call()),
    }
    command = [sys.executable, "-m", "uvicorn", "null_relay:app", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen([*command, *RUN_SH_FLAGS], env=env), f"http://127.0.0.1:{port}"


# Who reads the stream: the benchmarks' httpx client (the issue's figure), and a client that only reads
# the socket (bench/lean_http.py), so that the figure is the server's and not the Python client's.
CLIENTS = (("httpx", False), ("a lean client", True))


def measure(rounds: int, runs: int, delay_ms: float) -> dict[str, list[float]]:
    """Per round and path: p50 time to first event minus boto3's (ms), the paths measured alternately."""
    emulator, emulator_url = start_emulator_nodelay(delay_ms)
    children = [emulator]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "null_relay.py").write_text(NULL_RELAY)
        try:
            endpoint, endpoint_url = start_endpoint(ROOT, emulator_url)
            threaded, threaded_url = start_null_relay(Path(folder), "thread", emulator_url)
            on_loop, on_loop_url = start_null_relay(Path(folder), "loop", emulator_url)
            children += [endpoint, threaded, on_loop]
            urls = {
                "the endpoint (lambdas/run.sh)": endpoint_url,
                "null relay, thread": threaded_url,
                "null relay, on the loop": on_loop_url,
            }
            wait_http(f"{emulator_url}/_emulator/health")
            for url in urls.values():
                wait_http(f"{url}/healthz")
            added: dict[str, list[float]] = {}
            for _ in range(rounds):
                for (label, url), (client, lean) in itertools.product(urls.items(), CLIENTS):
                    measured = latency(url, emulator_url, runs, lean=lean)
                    added.setdefault(f"{label}, read by {client}", []).append(
                        measured["ttfe_endpoint"][0] - measured["ttfe_direct"][0]
                    )
            return added
        finally:
            for child in children:
                child.terminate()
                child.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--delay-ms", type=float, default=10)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    added = measure(args.rounds, args.runs, args.delay_ms)
    lines = [
        "| path | rounds: p50 over boto3 (ms) | median |",
        "|---|---|---:|",
        *(
            f"| {label} | {', '.join(f'{v:.2f}' for v in values)} | {statistics.median(values):+.2f} ms |"
            for label, values in added.items()
        ),
    ]
    table = "\n".join(lines)
    print(table)
    if not args.no_record:
        heading = (
            f"### {dt.date.today()}: nproc {os.cpu_count()}, {platform.machine()}, Python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        section = "## First event: the floor of a uvicorn + boto3 relay (bench/first_event_floor.py)"
        append_result(section, f"{heading}\n\n{table}\n")


if __name__ == "__main__":
    main()
