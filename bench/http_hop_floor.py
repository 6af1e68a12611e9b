"""The floor under "first event through the endpoint vs boto3 straight to the emulator": one extra HTTP hop.

The endpoint is an HTTP server in front of Bedrock, so its first event can never arrive sooner than the
direct call's plus one local HTTP round trip: the client sending a request, uvicorn parsing it, the app
answering with a streamed frame, the client reading it. This measures that hop alone, with nothing
behind it: a null plain-ASGI app (like the endpoint: no web framework) that streams one SSE frame as
soon as the body is read, served exactly as lambdas/run.sh serves the endpoint (uvicorn, the
project's h11 protocol class, the same flags), asked by the same httpx client the latency benchmark
uses (bench/first_event_floor.py also reads it with a client that only reads the socket). Whatever the
endpoint adds above the direct call that is below this floor is not the endpoint's to remove.

    PYTHONPATH=. python bench/http_hop_floor.py [--requests 300] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import append_result  # noqa: E402
from tests.children import free_port  # noqa: E402

# The part of a null ASGI app that is not the answer: lifespan, then the whole request body read.
NULL_PREAMBLE = """
async def lifespan_or_body(scope, receive, send):
    \"\"\"True when `scope` was the lifespan (now over); otherwise the request's body has been read.\"\"\"
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return True
    while (await receive()).get("more_body"):
        pass
    return False
"""

NULL_APP = (
    NULL_PREAMBLE
    + """
FRAME = b'event: trace\\ndata: {"step":"Planning","status":"IN_PROGRESS","elapsedMs":0}\\n\\n'


async def app(scope, receive, send):
    if await lifespan_or_body(scope, receive, send):
        return
    streamed = scope["path"] == "/v1/query"
    media = b"text/event-stream" if streamed else b"application/json"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", media)]})
    await send({"type": "http.response.body", "body": FRAME if streamed else b'{"status":"ok"}'})
"""
)
# lambdas/run.sh's uvicorn flags (the protocol class bounds request heads in size and time).
RUN_SH_FLAGS = [
    "--no-access-log",
    "--log-level",
    "warning",
    "--http",
    "lambdas.endpoint.http_timeouts:H11ReadTimeoutProtocol",
    "--backlog",
    "2048",
    "--timeout-keep-alive",
    "5",
    "--h11-max-incomplete-event-size",
    "16384",
]


def time_to_first_frame(url: str, requests: int) -> list[float]:
    """Milliseconds from sending the request to reading the first `data:` line, per request (warm client)."""
    times = []
    with httpx.Client() as client:
        for _ in range(requests):
            started = time.perf_counter()
            with client.stream("POST", f"{url}/v1/query", json={"question": "x"}) as response:
                for line in response.iter_lines():
                    if line.startswith("data:"):
                        times.append((time.perf_counter() - started) * 1000)
                        break
    return times


def measure(requests: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "null_app.py").write_text(NULL_APP)
        port = free_port()
        env = {**os.environ, "PYTHONPATH": f"{folder}:{ROOT}"}
        command = [sys.executable, "-m", "uvicorn", "null_app:app", "--host", "127.0.0.1", "--port", str(port)]
        child = subprocess.Popen([*command, *RUN_SH_FLAGS], env=env)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    httpx.get(f"{url}/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    time.sleep(0.05)  # the server is starting: nothing else to wait on here
            time_to_first_frame(url, 50)  # warm-up: imports, first connection
            return time_to_first_frame(url, requests)
        finally:
            child.terminate()
            child.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    rounds = [measure(args.requests) for _ in range(args.rounds)]
    lines = [
        "| round | p10 ms | p50 ms | p90 ms |",
        "|---|---:|---:|---:|",
        *(
            f"| {index + 1} | {statistics.quantiles(times, n=10)[0]:.2f} | {statistics.median(times):.2f} | "
            f"{statistics.quantiles(times, n=10)[-1]:.2f} |"
            for index, times in enumerate(rounds)
        ),
    ]
    table = "\n".join(lines)
    print(table)
    if not args.no_record:
        heading = (
            f"### {dt.date.today()}: nproc {os.cpu_count()}, {platform.machine()}, Python {platform.python_version()}"
        )
        append_result("## One HTTP hop, nothing behind it (bench/http_hop_floor.py)", f"{heading}\n\n{table}\n")


if __name__ == "__main__":
    main()
