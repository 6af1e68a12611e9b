"""Robustness of the endpoint under load and faults, measured through `akb local` on 127.0.0.1.

Three parts, each a subcommand (results appended to bench/RESULTS.md unless --no-record):

- `load`: 50, 100, 200 and 400 concurrent streams through `akb local` (the endpoint child process
  behind lambdas/run.sh, the emulator in the akb process), side by side with the same number of
  concurrent streams read directly with boto3 from the same emulator, in the same run. Per level:
  failed requests (non-200, transport error, no `done`, or a stop reason other than `complete`),
  lost / duplicated / reordered events against a sequential reference stream, and time to first
  event p50 / p95. The machine is shared: compare the two paths, not absolute numbers.
- `matrix`: every fault the emulator can inject x {agentic, retrieve, auto} x {SSE, NDJSON}: what
  the caller sees, written as the fault-matrix table of docs/endpoint.md (`--write-docs`).
- `soak`: mixed traffic (modes, formats, clients that leave, bad requests) with faults armed at
  random for a bounded time; the endpoint process's threads, descriptors and resident memory at
  the start, every 30 s, and at the end.

    PYTHONPATH=. .venv/bin/python bench/robustness.py load [--levels 50 100 200 400]
    PYTHONPATH=. .venv/bin/python bench/robustness.py matrix --write-docs
    PYTHONPATH=. .venv/bin/python bench/robustness.py soak --minutes 10

Only 127.0.0.1 is loaded, every loop is bounded (a level is one burst; the soak stops at its time).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import boto3
import httpx
from botocore.config import Config

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local.emulator import kb_id_for  # noqa: E402

RESULTS = ROOT / "bench" / "RESULTS.md"
DOCS = ROOT / "docs" / "endpoint.md"
QUESTION = "How do I rotate an API key, and what are the rate limits?"
ALIASES = ("docs", "tickets")  # the dev environment's first tenant (acme)
# acme's invoker role, whose session name acme vouches for (user_id_from_session_name): akb local's
# default caller is not one of acme's invokers and would be refused (403 user_identity_unverified).
CALLER = "arn:aws:sts::123456789012:assumed-role/acme-app/developer"
VOLATILE = {"elapsedMs", "durationMs", "timeToFirstEventMs", "requestId", "id", "timestamp"}
NDJSON = "application/x-ndjson"
# Below uvicorn's --timeout-keep-alive 5 (run.sh): httpx's default expiry is also 5 s, so a pooled
# connection could be reused at the moment the server closes it (a client-side race, ReadError).
KEEPALIVE = 2.0
SSE = "text/event-stream"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def wait_http(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not come up")


# -- akb local as a child process ----------------------------------------------------------------


@dataclass
class Local:
    """`akb local` running: its endpoint URL, its emulator URL, the endpoint process id."""

    process: subprocess.Popen
    url: str
    emulator_url: str

    @property
    def endpoint_pid(self) -> int:
        """The endpoint is the akb process's child (run.sh execs uvicorn in place)."""
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
        return int(children[0])

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_local(delay_ms: float) -> Local:
    port, emulator_port = free_port(), free_port()
    command = [sys.executable, "-m", "client", "local", "--port", str(port), "--emulator-port", str(emulator_port)]
    process = subprocess.Popen(
        [*command, "--delay-ms", str(delay_ms), "--caller-arn", CALLER],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # urllib3's "pool is full" warnings at 400 streams
    )
    local = Local(process, f"http://127.0.0.1:{port}", f"http://127.0.0.1:{emulator_port}")
    wait_http(f"{local.url}/healthz")
    return local


def process_figures(pid: int) -> dict[str, int]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return {
        "threads": int(fields["Threads"]),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "rss_mb": round(int(fields["VmRSS"].split()[0]) / 1024),
    }


# -- reading streams -----------------------------------------------------------------------------


@dataclass
class Outcome:
    status: int | None = None
    error: str | None = None  # transport error class
    frames: list[tuple[str, dict]] = field(default_factory=list)
    first_ms: float | None = None
    retry_after: str | None = None
    body: dict | None = None  # the JSON error body of a non-200 answer

    @property
    def done(self) -> dict | None:
        return self.frames[-1][1] if self.frames and self.frames[-1][0] == "done" else None

    @property
    def ok(self) -> bool:
        return self.status == 200 and self.done is not None and self.done.get("stopReason") == "complete"


def _stable(data: dict) -> dict:
    return {key: value for key, value in data.items() if key not in VOLATILE}


async def _frames(response: httpx.Response):
    """(type, data) per event as it arrives, SSE or NDJSON by content type."""
    ndjson = response.headers.get("content-type", "").startswith(NDJSON)
    event_type = None
    async for line in response.aiter_lines():
        if ndjson and line:
            body = json.loads(line)
            yield body.pop("type"), body
        elif line.startswith("event: "):
            event_type = line[len("event: ") :]
        elif line.startswith("data: ") and event_type is not None:
            yield event_type, json.loads(line[len("data: ") :])
            event_type = None


async def endpoint_request(
    client: httpx.AsyncClient, url: str, body: Any, accept: str = SSE, leave_after: int | None = None
) -> Outcome:
    outcome, started = Outcome(), time.perf_counter()
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"accept": accept, "content-type": "application/json"}
    try:
        async with client.stream("POST", f"{url}/v1/query", content=content, headers=headers) as response:
            outcome.status, outcome.retry_after = response.status_code, response.headers.get("retry-after")
            if response.status_code != 200:
                outcome.body = json.loads(await response.aread())
                return outcome
            async for event_type, data in _frames(response):
                if outcome.first_ms is None:
                    outcome.first_ms = (time.perf_counter() - started) * 1000
                outcome.frames.append((event_type, _stable(data)))
                if leave_after is not None and len(outcome.frames) >= leave_after:
                    return outcome  # the client goes away mid-stream
    except httpx.HTTPError as error:
        outcome.error = type(error).__name__
    return outcome


def direct_client(pool: int) -> Any:
    """What a boto3 user gets by default (standard retries, 3 attempts), pointed at the emulator."""
    return boto3.client(
        "bedrock-agent-runtime",
        region_name="us-west-2",
        aws_access_key_id="x",
        aws_secret_access_key="x",  # the emulator does not check signatures
        config=Config(max_pool_connections=pool, retries={"mode": "standard", "total_max_attempts": 3}),
    )


def direct_request(client: Any) -> Outcome:
    outcome, started = Outcome(), time.perf_counter()
    try:
        response = client.agentic_retrieve_stream(
            messages=[{"role": "user", "content": {"text": QUESTION}}],
            retrievers=[
                {"configuration": {"knowledgeBase": {"knowledgeBaseId": kb_id_for(a)}}, "description": a}
                for a in ALIASES
            ],
            agenticRetrieveConfiguration={"foundationModelType": "MANAGED", "maxAgentIteration": 3},
            userContext={"userId": "developer"},
        )
        outcome.status = 200
        for event in response["stream"]:
            if outcome.first_ms is None:
                outcome.first_ms = (time.perf_counter() - started) * 1000
            ((member, data),) = event.items()
            outcome.frames.append((member, _stable(data) if member != "traceEvent" else _stable(data["attributes"])))
        outcome.frames.append(("done", {"stopReason": "complete"}))  # the stream ended normally
    except Exception as error:  # every failure counts, whatever botocore raised
        outcome.error = type(error).__name__
    return outcome


# -- load ----------------------------------------------------------------------------------------


def compare(reference: list[tuple[str, dict]], got: list[tuple[str, dict]]) -> tuple[int, int, int]:
    """(lost, duplicated, reordered) events of one stream against the reference."""
    ref = [json.dumps(frame, sort_keys=True) for frame in reference]
    seen = [json.dumps(frame, sort_keys=True) for frame in got]
    lost = sum((Counter(ref) - Counter(seen)).values())
    duplicated = sum((Counter(seen) - Counter(ref)).values())
    return lost, duplicated, int(not lost and not duplicated and ref != seen)


def summarize(outcomes: list[Outcome], reference: list[tuple[str, dict]], wall: float) -> dict[str, Any]:
    delivered = [o for o in outcomes if o.status == 200 and o.error is None]
    counts = [compare(reference, o.frames) for o in delivered]
    return {
        "failed": sum(not o.ok for o in outcomes),
        "failures": dict(Counter(o.error or f"{o.status}" for o in outcomes if not o.ok)),
        "lost": sum(c[0] for c in counts),
        "duplicated": sum(c[1] for c in counts),
        "reordered": sum(c[2] for c in counts),
        "ttfe": (
            percentile([o.first_ms for o in delivered if o.first_ms], 50),
            percentile([o.first_ms for o in delivered if o.first_ms], 95),
        ),
        "wall_s": wall,
    }


async def endpoint_burst(url: str, streams: int) -> tuple[list[Outcome], float]:
    limits = httpx.Limits(max_connections=streams, max_keepalive_connections=streams, keepalive_expiry=KEEPALIVE)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        started = time.perf_counter()
        body = {"question": QUESTION}
        outcomes = await asyncio.gather(*(endpoint_request(client, url, body) for _ in range(streams)))
        return list(outcomes), time.perf_counter() - started


def direct_burst(client: Any, streams: int) -> tuple[list[Outcome], float]:
    outcomes: list[Outcome] = [Outcome()] * streams
    barrier = threading.Barrier(streams)

    def one(index: int) -> None:
        barrier.wait()
        outcomes[index] = direct_request(client)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(streams)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes, time.perf_counter() - started


def load(levels: list[int], delay_ms: float) -> str:
    local = start_local(delay_ms)
    try:
        os.environ["AWS_ENDPOINT_URL_BEDROCK_AGENT_RUNTIME"] = local.emulator_url
        client = direct_client(max(levels))
        direct_reference = direct_request(client).frames
        endpoint_reference = asyncio.run(endpoint_burst(local.url, 1))[0][0].frames
        rows = []
        for streams in levels:
            outcomes, wall = asyncio.run(endpoint_burst(local.url, streams))
            through = summarize(outcomes, endpoint_reference, wall)
            outcomes, wall = direct_burst(client, streams)
            direct = summarize(outcomes, direct_reference, wall)
            rows.append((streams, through, direct))
            print(streams, through, direct, flush=True)
            time.sleep(2)  # let the previous burst's connections close
        figures = process_figures(local.endpoint_pid)
    finally:
        local.stop()
    return load_report(rows, delay_ms, len(endpoint_reference), figures)


def load_report(rows: list, delay_ms: float, events: int, figures: dict) -> str:
    def ms(pair: tuple[float, float]) -> str:
        return f"{pair[0]:.0f} / {pair[1]:.0f}"

    lines = [
        "| streams | path | failed | lost / duplicated / reordered events | time to first event p50 / p95 ms | "
        "ratio p50 (endpoint / direct) | wall s |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for streams, through, direct in rows:
        ratio = through["ttfe"][0] / direct["ttfe"][0] if direct["ttfe"][0] else float("nan")
        for name, row, shown in (("`akb local` endpoint (SSE)", through, f"{ratio:.2f}"), ("boto3 direct", direct, "")):
            failures = f" ({', '.join(f'{k}: {v}' for k, v in row['failures'].items())})" if row["failed"] else ""
            lines.append(
                f"| {streams} | {name} | {row['failed']}{failures} | {row['lost']} / {row['duplicated']} / "
                f"{row['reordered']} | {ms(row['ttfe'])} | {shown} | {row['wall_s']:.1f} |"
            )
    return f"""
## Robustness: concurrent streams through `akb local` vs boto3 directly (bench/robustness.py load)

### {dt.date.today().isoformat()}: nproc {os.cpu_count()} (shared with other jobs), {platform.machine()}, Python {
        platform.python_version()
    }

`akb local` (emulator {delay_ms:g} ms between events, endpoint through lambdas/run.sh) on 127.0.0.1;
each level is one burst of N simultaneous streams of the same question ({events} endpoint events per
stream), then N simultaneous boto3 streams straight from the same emulator (standard retries).
A request fails on a non-200 answer, a transport error, a missing `done` or a stop reason other
than `complete`; events are compared with a sequential reference stream of the same path.

{chr(10).join(lines)}

Endpoint process after the last level: {figures["threads"]} threads, {figures["fds"]} descriptors,
{figures["rss_mb"]} MB resident.

Command: `PYTHONPATH=. .venv/bin/python bench/robustness.py load`
"""


# -- fault matrix --------------------------------------------------------------------------------

SERVICE_ERRORS = (
    "ThrottlingException",
    "InternalServerException",
    "AccessDeniedException",
    "ValidationException",
    "ResourceNotFoundException",
    "ConflictException",
    "ServiceQuotaExceededException",
    "BadGatewayException",
    "DependencyFailedException",
)


def fault_rows() -> list[tuple[str, dict[str, Any]]]:
    """(label, control-API body) for every fault the emulator can inject."""
    rows: list[tuple[str, dict[str, Any]]] = [("none", {})]
    rows += [
        ("`throttle_before: 1`", {"throttle_before": 1}),
        ("`throttle_before: 10`", {"throttle_before": 10}),
        ("`disconnect_before: 1`", {"disconnect_before": 1}),
        ("`disconnect_before: 10`", {"disconnect_before": 10}),
    ]
    rows += [(f"`error_before: 10`, {n}", {"error_before": 10, "error_before_type": n}) for n in SERVICE_ERRORS]
    rows += [
        (f"`error_after_events: 3`, {name[0].lower() + name[1:]}", {"error_after_events": 3, "error_type": name})
        for name in SERVICE_ERRORS
    ]
    rows += [
        ("`drop_after_events: 3`", {"drop_after_events": 3}),
        ("`fail_retrievals: 1`", {"fail_retrievals": 1}),
        ("`delay_ms: 300` (deadline 2 s)", {"delay_ms": 300}),
        ("`delay_first_ms: 3000` (deadline 2 s)", {"delay_first_ms": 3000}),
        (
            "`failing_knowledge_bases: {tickets: ThrottlingException}`",
            {"failing_knowledge_bases": {kb_id_for("tickets"): "ThrottlingException"}},
        ),
    ]
    # Malformed responses (issue 26): truncated, duplicated, not-a-list, unparseable, corrupted frames.
    from local.emulator.stream_corruption import KINDS

    rows += [(f"`corrupt_stream: {kind}`", {"corrupt_stream": kind}) for kind in KINDS]
    return rows


MATRIX_QUESTIONS = {
    "agentic": "How do I rotate an API key?",
    "retrieve": "How do I rotate an API key?",
    "auto": "Compare exports and webhooks",  # a comparison: auto routes it to agentic
}


def describe(outcome: Outcome) -> str:
    """What the caller saw, in one cell."""
    if outcome.error:
        return f"transport error {outcome.error}"
    if outcome.status != 200:
        code = (outcome.body or {}).get("error", {}).get("code")
        retry = f", Retry-After {outcome.retry_after}" if outcome.retry_after else ""
        return f"{outcome.status} `{code}`{retry}"
    done = outcome.done or {}
    parts = ["200"]
    failed = [d for t, d in outcome.frames if t == "trace" and d.get("status") == "FAILED"]
    if failed:
        parts.append(f"{len(failed)} FAILED trace{'s' * (len(failed) > 1)}")
    errors = [d for t, d in outcome.frames if t == "error"]
    parts += [f"`error` {e['code']}{' (retryable)' if e.get('retryable') else ''}" for e in errors]
    if not any(t == "result" for t, _ in outcome.frames):
        parts.append("no result")
    stop = done.get("stopReason", "no done")
    lost = f" {done['failedKnowledgeBases']}" if done.get("failedKnowledgeBases") else ""
    parts.append(f"done `{stop}`{lost}")
    return ", ".join(parts)


def _set_faults(emulator_url: str, spec: dict[str, Any]) -> None:
    httpx.post(f"{emulator_url}/_emulator/faults", json={"reset": True, **spec}, timeout=10).raise_for_status()


async def matrix_cell(url: str, emulator_url: str, spec: dict, mode: str) -> tuple[str, str]:
    cells = []
    async with httpx.AsyncClient(timeout=60) as client:
        for accept in (SSE, NDJSON):
            _set_faults(emulator_url, spec)
            outcome = await endpoint_request(client, url, {"question": MATRIX_QUESTIONS[mode], "mode": mode}, accept)
            cells.append(describe(outcome))
            await asyncio.sleep(0.3)  # a cut-off stream finishes on the emulator before the reset
    return cells[0], cells[1]


def start_matrix_endpoint() -> tuple[Any, subprocess.Popen, str]:
    """The dev environment's first tenant as `akb local` runs it, with a 2 s deadline."""
    from client.commands.local import RUN_SH, endpoint_environment
    from client.local_settings import tenant_settings
    from local.emulator import start_emulator
    from schema.loader import load_project

    emulator = start_emulator(port=0, delay_ms=5)
    settings = tenant_settings(load_project(ROOT / "config", "dev"), "acme", kb_id_for, emulator.knowledge_bases)
    settings = replace(settings, deadline_seconds=2)
    port = free_port()
    child = subprocess.Popen(
        [str(RUN_SH)],
        env=endpoint_environment(settings, port, emulator.env, CALLER),
        stdout=subprocess.DEVNULL,  # its logs and metrics
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/healthz")
    # Warm (boto3 client, lazy imports): a cold first request could miss the 2 s deadline.
    httpx.post(f"{url}/v1/query", json={"question": MATRIX_QUESTIONS["agentic"]}, timeout=60)
    return emulator, child, url


def matrix() -> str:
    emulator, child, url = start_matrix_endpoint()
    lines = [
        "| fault (emulator control API) | agentic | retrieve | auto (routed to agentic) |",
        "|---|---|---|---|",
    ]
    differing = 0
    try:
        for label, spec in fault_rows():
            cells = []
            for mode in ("agentic", "retrieve", "auto"):
                sse, ndjson = asyncio.run(matrix_cell(url, emulator.url, spec, mode))
                differing += sse != ndjson
                cells.append(sse if sse == ndjson else f"SSE: {sse}; NDJSON: {ndjson}")
            lines.append(f"| {label} | {' | '.join(cells)} |")
            print(lines[-1], flush=True)
    finally:
        child.terminate()
        child.wait(timeout=15)
        emulator.stop()
    agreement = "SSE and NDJSON agreed in every cell" if not differing else f"{differing} cells differ by format"
    return "\n".join(lines) + f"\n\nEach cell was run twice, once per format: {agreement}.\n"


MARK_BEGIN = "<!-- fault-matrix:begin (generated by bench/robustness.py matrix --write-docs) -->"
MARK_END = "<!-- fault-matrix:end -->"


def write_docs(table: str) -> None:
    text = DOCS.read_text()
    start, end = text.index(MARK_BEGIN) + len(MARK_BEGIN), text.index(MARK_END)
    DOCS.write_text(text[:start] + "\n" + table + text[end:])


# -- soak ----------------------------------------------------------------------------------------

SOAK_FAULTS = [
    {"throttle_before": 1},
    {"throttle_before": 5},
    {"disconnect_before": 2},
    {"error_before": 1, "error_before_type": "InternalServerException"},
    {"error_after_events": 3, "error_type": "ThrottlingException"},
    {"drop_after_events": 4},
    {"fail_retrievals": 2},
    {"delay_first_ms": 1500},
    {"failing_knowledge_bases": {kb_id_for("tickets"): "ThrottlingException"}},
]


async def soak_worker(client: httpx.AsyncClient, url: str, until: float, tally: Counter, rng: random.Random) -> None:
    while time.monotonic() < until:
        mode = rng.choice(("agentic", "retrieve", "auto"))
        accept = rng.choice((SSE, NDJSON))
        roll = rng.random()
        leave = rng.randint(1, 5) if 0.05 <= roll < 0.15 else None
        body: Any = b'{"question": ' if roll < 0.05 else {"question": QUESTION, "mode": mode}  # 5% bad JSON
        outcome = await endpoint_request(client, url, body, accept, leave)
        done = outcome.done or {}
        if outcome.error or outcome.status != 200:
            tally[outcome.error or str(outcome.status)] += 1
        else:
            tally[done.get("stopReason") or ("left mid-stream" if leave else "200 without done")] += 1


async def soak_faults(emulator_url: str, until: float, rng: random.Random) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        while time.monotonic() < until:
            spec = rng.choice(SOAK_FAULTS) if rng.random() < 0.6 else {}
            await client.post(f"{emulator_url}/_emulator/faults", json={"reset": True, "delay_ms": 20, **spec})
            await asyncio.sleep(2)


async def soak_traffic(local: Local, seconds: float, workers: int, samples: list) -> Counter:
    rng, tally = random.Random(15), Counter()
    until = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=workers, max_keepalive_connections=workers, keepalive_expiry=KEEPALIVE)

    async def sample() -> None:
        while time.monotonic() + 30 < until:
            await asyncio.sleep(30)
            samples.append((round(time.monotonic() - (until - seconds)), process_figures(local.endpoint_pid)))

    async with httpx.AsyncClient(timeout=60, limits=limits) as client:
        tasks = [soak_worker(client, local.url, until, tally, random.Random(rng.random())) for _ in range(workers)]
        await asyncio.gather(soak_faults(local.emulator_url, until, rng), sample(), *tasks)
    return tally


def soak(minutes: float, workers: int) -> str:
    local = start_local(20)
    try:
        asyncio.run(endpoint_burst(local.url, workers))  # warm: imports, client, connections
        time.sleep(2)
        start = process_figures(local.endpoint_pid)
        samples: list = [(0, start)]
        tally = asyncio.run(soak_traffic(local, minutes * 60, workers, samples))
        httpx.post(f"{local.emulator_url}/_emulator/faults", json={"reset": True})
        time.sleep(5)  # settle: the last cut-off streams and idle connections close
        end = process_figures(local.endpoint_pid)
    finally:
        local.stop()
    rows = "\n".join(f"| {t} s | {f['threads']} | {f['fds']} | {f['rss_mb']} |" for t, f in samples)
    outcomes = ", ".join(f"{key}: {value}" for key, value in tally.most_common())
    return f"""
## Robustness: soak with faults through `akb local` (bench/robustness.py soak)

### {dt.date.today().isoformat()}: nproc {os.cpu_count()} (shared with other jobs), {platform.machine()}, Python {
        platform.python_version()
    }

{minutes:g} minutes, {workers} concurrent clients looping: agentic / retrieve / auto at random, SSE or
NDJSON at random, 10% of clients leave after 1-5 events, 5% send bad JSON; every 2 s the emulator's
faults are reset and, 60% of the time, one of {len(SOAK_FAULTS)} faults is armed (throttling, dropped
connections, 5xx, mid-stream throttle, dropped stream, failed retrievals, a held first byte, a
throttled knowledge base). Requests by how they ended: {outcomes} ({sum(tally.values())} in all).

Endpoint process (threads / descriptors / resident MB):

| at | threads | descriptors | resident MB |
|---:|---:|---:|---:|
{rows}
| end (+5 s settle) | {end["threads"]} | {end["fds"]} | {end["rss_mb"]} |

Command: `PYTHONPATH=. .venv/bin/python bench/robustness.py soak --minutes {minutes:g}`
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=("load", "matrix", "soak"))
    parser.add_argument("--levels", type=int, nargs="+", default=[50, 100, 200, 400])
    parser.add_argument("--delay-ms", type=float, default=20)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--workers", type=int, default=24)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    if args.part == "load":
        report = load(args.levels, args.delay_ms)
    elif args.part == "soak":
        report = soak(args.minutes, args.workers)
    else:
        table = matrix()
        if args.write_docs:
            write_docs(table)
        report = f"\n## Robustness: fault matrix (bench/robustness.py matrix)\n\n{table}"
    print(report)
    if not args.no_record:
        with RESULTS.open("a") as out:
            out.write(report)


if __name__ == "__main__":
    main()
