"""What the streaming endpoint adds on top of reading Bedrock directly, measured side by side.

Starts the emulator (`akb emulator`) and the endpoint (`lambdas/run.sh`, as in Lambda) as child
processes and, in one run:

1. latency: the same question N times through the endpoint (httpx, SSE) and directly with boto3
   (alternating), recording when each event reaches the client: time to first event and the
   per-event delivery offset (endpoint arrival - direct arrival of the same event index);
2. concurrency: 50 simultaneous streams through the endpoint, each compared event by event with a
   sequential reference stream (no lost, duplicated or reordered events);
3. cold start: service import + app + boto3 client (+ the first request's lazy imports) vs a bare
   boto3 client, each in a fresh interpreter.

    PYTHONPATH=. python bench/endpoint_latency.py [--runs 40] [--delay-ms 10] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path

import boto3
import httpx
from botocore.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.lean_http import LeanConnection  # noqa: E402
from contract.settings import Retriever, TenantSettings  # noqa: E402
from local.emulator import kb_id_for  # noqa: E402
from tests.endpoint_server import iter_frames  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
QUESTION = "How do I rotate an API key, and what are the rate limits?"
ALIASES = ("docs", "tickets")
# Differ per request by design: times, ids, and the page token (a fresh one per answer, used once).
VOLATILE = {"elapsedMs", "durationMs", "timeToFirstEventMs", "requestId", "nextToken"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_http(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not come up")


def settings() -> TenantSettings:
    return TenantSettings(
        tenant="bench",
        environment="bench",
        retrievers=[Retriever(a, kb_id_for(a), f"The {a} knowledge base.") for a in ALIASES],
        user_context="none",
    )


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def direct_call() -> dict:
    """The AgenticRetrieveStream arguments of the direct path (and of bench/first_event_floor.py's relays)."""
    return {
        "messages": [{"role": "user", "content": {"text": QUESTION}}],
        "retrievers": [
            {"configuration": {"knowledgeBase": {"knowledgeBaseId": kb_id_for(a)}}, "description": a} for a in ALIASES
        ],
        "agenticRetrieveConfiguration": {"foundationModelType": "MANAGED", "maxAgentIteration": 3},
    }


def direct_run(client) -> list[float]:
    started = time.perf_counter()
    response = client.agentic_retrieve_stream(**direct_call())
    return [time.perf_counter() - started for _ in response["stream"]]


# httpx writes a request's headers and body as two segments; without TCP_NODELAY the body waits for
# the server's delayed ACK (~40 ms) on every reused connection. curl sets it by default; so do we.
HTTP = httpx.Client(
    transport=httpx.HTTPTransport(socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]),
    timeout=60,
    limits=httpx.Limits(max_connections=100, max_keepalive_connections=100),
)


def _recorded(started: float, frames: Iterable[tuple[float, str, dict]]) -> tuple[list[float], list[tuple[str, dict]]]:
    """Each frame's arrival after `started`, and the frames without their per-request fields."""
    arrivals, kept = [], []
    for arrival, kind, data in frames:
        arrivals.append(arrival - started)
        kept.append((kind, {k: v for k, v in data.items() if k not in VOLATILE}))
    return arrivals, kept


def endpoint_run(url: str) -> tuple[list[float], list[tuple[str, dict]]]:
    started = time.perf_counter()
    with HTTP.stream("POST", f"{url}/v1/query", json={"question": QUESTION}) as response:
        return _recorded(started, ((time.perf_counter(), f.type, f.data) for f in iter_frames(response)))


_LEAN: dict[str, LeanConnection] = {}


def lean_endpoint_run(url: str) -> tuple[list[float], list[tuple[str, dict]]]:
    """endpoint_run through bench/lean_http.py's client (one kept-alive socket per endpoint)."""
    connection = _LEAN.get(url)
    if connection is None:
        connection = _LEAN[url] = LeanConnection(url)
    started = time.perf_counter()
    return _recorded(started, connection.post_sse("/v1/query", {"question": QUESTION}))


def normalized(frames: list[tuple[str, dict]]) -> str:
    return json.dumps(frames, sort_keys=True)


def latency(url: str, emulator_url: str, runs: int, *, lean: bool = False) -> dict:
    """Time to first event and between events, directly and through `url` (read by httpx, or by the
    lean client with `lean`), alternating."""
    run_endpoint = lean_endpoint_run if lean else endpoint_run
    client = boto3.client(
        "bedrock-agent-runtime",
        endpoint_url=emulator_url,
        region_name="us-west-2",
        aws_access_key_id="x",
        aws_secret_access_key="x",
        config=Config(retries={"mode": "standard", "total_max_attempts": 1}),
    )
    direct_run(client), run_endpoint(url)  # warm both paths (client creation, connections)
    ttfe_direct, ttfe_endpoint, offsets, gaps_direct, gaps_endpoint = [], [], [], [], []
    for _ in range(runs):
        direct = direct_run(client)
        through, _ = run_endpoint(url)
        through = through[:-1]  # `done` has no upstream counterpart
        ttfe_direct.append(direct[0] * 1000)
        ttfe_endpoint.append(through[0] * 1000)
        offsets += [(b - a) * 1000 for a, b in zip(direct, through, strict=False)]
        gaps_direct += [(b - a) * 1000 for a, b in itertools.pairwise(direct)]
        gaps_endpoint += [(b - a) * 1000 for a, b in itertools.pairwise(through)]
    return {
        "events": len(direct),
        "ttfe_direct": (percentile(ttfe_direct, 50), percentile(ttfe_direct, 99)),
        "ttfe_endpoint": (percentile(ttfe_endpoint, 50), percentile(ttfe_endpoint, 99)),
        "offset": (percentile(offsets, 50), percentile(offsets, 99)),
        "gap_direct": (percentile(gaps_direct, 50), percentile(gaps_direct, 99)),
        "gap_endpoint": (percentile(gaps_endpoint, 50), percentile(gaps_endpoint, 99)),
    }


def concurrency(url: str, streams: int) -> dict:
    _, reference = endpoint_run(url)
    expected = normalized(reference)
    results: list[tuple[list[float], list]] = [([], [])] * streams
    barrier = threading.Barrier(streams)

    def one(index: int) -> None:
        barrier.wait()
        results[index] = endpoint_run(url)

    started = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(streams)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    mismatched = sum(1 for _, frames in results if normalized(frames) != expected)
    ttfe = [arrivals[0] * 1000 for arrivals, _ in results if arrivals]
    return {
        "streams": streams,
        "events_each": len(reference),
        "mismatched": mismatched,
        # Ended as the reference did (its stop reason: the sample question uses every iteration).
        "complete": sum(1 for _, f in results if f and f[-1][0] == "done" and f[-1] == reference[-1]),
        "wall_s": wall,
        "ttfe": (percentile(ttfe, 50), percentile(ttfe, 99)),
    }


# The emulator (akb emulator) leaves Nagle's algorithm on: it writes the response headers and then
# the first event chunk as two small segments, and the second waits for the client's delayed ACK
# (~40 ms on Linux) on every reused connection. That stall is the emulator's, not the endpoint's
# (real Bedrock is not this server), so by default the benchmark runs the emulator with
# TCP_NODELAY set on accepted sockets; `--emulator-as-is` measures it unmodified.
EMULATOR_NODELAY = """
import socket, sys, threading
from local.emulator import server, start_emulator
setup = server.Handler.setup
def nodelay_setup(self):
    self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    setup(self)
server.Handler.setup = nodelay_setup
start_emulator(port=int(sys.argv[1]), delay_ms=float(sys.argv[2]))
threading.Event().wait()
"""

COLD_SERVICE = """
import time; t = time.perf_counter()
from lambdas.endpoint import serve
serve.hold_collector()
import uvicorn
serve.app_from_environment()
from lambdas.endpoint.upstream import shared_client
shared_client()
from lambdas.endpoint.logs import logger; logger()
from lambdas.endpoint import request_metrics
print((time.perf_counter() - t) * 1000)
"""
COLD_BARE = """
import time; t = time.perf_counter()
import boto3
boto3.client("bedrock-agent-runtime", region_name="us-west-2")
print((time.perf_counter() - t) * 1000)
"""


def cold_start(repeats: int) -> dict:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "AKB_TENANT_SETTINGS": settings().to_json(),
        "AKB_LOCAL_MODE": "1",  # outside local mode the endpoint needs its stack's AKB_PAGE_TOKEN_KEY
        "AWS_REGION": "us-west-2",
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "PYTHONDONTWRITEBYTECODE": "1",
    }

    def measure(code: str) -> float:
        values = [
            float(
                subprocess.run(
                    [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
                ).stdout.strip()
            )
            for _ in range(repeats)
        ]
        return statistics.median(values)

    service, bare = measure(COLD_SERVICE), measure(COLD_BARE)
    return {"service_ms": service, "bare_ms": bare, "repeats": repeats}


def endpoint_env(port: int, emulator_url: str) -> dict[str, str]:
    """lambdas/run.sh's environment for the benchmark's endpoint: local mode, in front of the emulator."""
    return {
        **os.environ,
        "AKB_PYTHON": sys.executable,
        "AWS_LWA_PORT": str(port),
        "AKB_TENANT_SETTINGS": settings().to_json(),
        "AKB_LOCAL_MODE": "1",
        "AWS_REGION": "us-west-2",
        "AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME": emulator_url,
        "AWS_ACCESS_KEY_ID": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
    }


def start_endpoint(root: Path, emulator_url: str) -> tuple[subprocess.Popen, str]:
    """`root`'s endpoint through its own lambdas/run.sh, in local mode, in front of the emulator."""
    port = free_port()
    env = {**endpoint_env(port, emulator_url), "PYTHONPATH": str(root)}
    child = subprocess.Popen([str(root / "lambdas" / "run.sh")], env=env, stdout=subprocess.DEVNULL)
    return child, f"http://127.0.0.1:{port}"


def start_emulator_nodelay(delay_ms: float) -> tuple[subprocess.Popen, str]:
    """The emulator with TCP_NODELAY on accepted sockets (EMULATOR_NODELAY), as a child; its URL."""
    port = free_port()
    emulator = subprocess.Popen(
        [sys.executable, "-c", EMULATOR_NODELAY, str(port), str(delay_ms)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
    )
    return emulator, f"http://127.0.0.1:{port}"


def ab_first_event(other: Path, rounds: int, runs: int, delay_ms: float) -> None:
    """Time to first event minus boto3's, p50 per round, for this tree and `other` (e.g. `git archive
    main` unpacked), served side by side from one emulator and measured alternately."""
    emulator, emulator_url = start_emulator_nodelay(delay_ms)
    children, urls = [], {}
    try:
        for label, root in (("this tree", ROOT), (str(other), other)):
            child, urls[label] = start_endpoint(root, emulator_url)
            children.append(child)
        wait_http(f"{emulator_url}/_emulator/health")
        for url in urls.values():
            wait_http(f"{url}/healthz")
        added: dict[str, list[float]] = {label: [] for label in urls}
        for _ in range(rounds):
            for label, url in urls.items():
                measured = latency(url, emulator_url, runs)
                added[label].append(measured["ttfe_endpoint"][0] - measured["ttfe_direct"][0])
        for label, values in added.items():
            rounded = ", ".join(f"{value:.2f}" for value in values)
            print(f"| {label} | {rounded} | {statistics.median(values):+.2f} ms |")
    finally:
        for child in (*children, emulator):
            child.terminate()
            child.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ab-against", type=Path, help="another checkout: compare first-event overhead only")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--delay-ms", type=float, default=10)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--cold-repeats", type=int, default=7)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument("--emulator-as-is", action="store_true", help="keep the emulator's Nagle stalls")
    args = parser.parse_args()
    if args.ab_against is not None:
        ab_first_event(args.ab_against.resolve(), args.rounds, 20, args.delay_ms)
        return

    emulator_port, endpoint_port = free_port(), free_port()
    command = (
        [sys.executable, "-m", "client", "emulator", "--port", str(emulator_port), "--delay-ms", str(args.delay_ms)]
        if args.emulator_as_is
        else [sys.executable, "-c", EMULATOR_NODELAY, str(emulator_port), str(args.delay_ms)]
    )
    emulator = subprocess.Popen(
        command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.DEVNULL
    )
    emulator_url = f"http://127.0.0.1:{emulator_port}"
    endpoint = subprocess.Popen(
        [str(ROOT / "lambdas" / "run.sh")],
        env=endpoint_env(endpoint_port, emulator_url),
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{endpoint_port}"
    try:
        wait_http(f"{emulator_url}/_emulator/health")
        wait_http(f"{url}/healthz")
        lat = latency(url, emulator_url, args.runs)
        conc = concurrency(url, args.streams)
    finally:
        for child in (endpoint, emulator):
            child.terminate()
            child.wait(timeout=10)
    cold = cold_start(args.cold_repeats)

    def pair(values: tuple[float, float]) -> str:
        return f"{values[0]:.1f} / {values[1]:.1f}"

    nagle = "as is" if args.emulator_as_is else "TCP_NODELAY set, see the script"
    report = f"""
## Endpoint latency, concurrency and cold start

### {dt.date.today().isoformat()}: nproc {os.cpu_count()}, {platform.machine()}, Python {platform.python_version()}

Emulator ({args.delay_ms:g} ms between events; {nagle}) and endpoint (`lambdas/run.sh`, uvicorn) as
child processes on loopback; one question over docs+tickets ({lat["events"]} upstream events per stream);
{args.runs} runs per path, alternating. Milliseconds, p50 / p99.

| path | time to first event | gap between events |
|---|---:|---:|
| boto3 directly | {pair(lat["ttfe_direct"])} | {pair(lat["gap_direct"])} |
| through the endpoint (SSE) | {pair(lat["ttfe_endpoint"])} | {pair(lat["gap_endpoint"])} |
| ratio endpoint / direct (p50) | {lat["ttfe_endpoint"][0] / lat["ttfe_direct"][0]:.2f} | |

Per-event delivery offset (endpoint arrival - direct arrival, same event index): {pair(lat["offset"])} ms.

{conc["streams"]} concurrent streams through the endpoint: {conc["complete"]} ended like the reference,
{conc["mismatched"]} differing from the sequential reference ({conc["events_each"]} events each: none lost,
duplicated or reordered when 0); wall {conc["wall_s"]:.2f} s; time to first event {pair(conc["ttfe"])} ms.

Cold start (fresh interpreter, median of {cold["repeats"]}): service imports + app + boto3 client + the first
request's lazy imports {cold["service_ms"]:.0f} ms vs a bare boto3 client {cold["bare_ms"]:.0f} ms
(ratio {cold["service_ms"] / cold["bare_ms"]:.2f}).

Command: `PYTHONPATH=. .venv/bin/python bench/endpoint_latency.py`
"""
    print(report)
    if not args.no_record:
        with RESULTS.open("a") as out:
            out.write(report)


if __name__ == "__main__":
    main()
