"""Fair share of the account's agentic quota (docs/quota.md), measured on 127.0.0.1.

Two subcommands (results appended to bench/RESULTS.md unless --no-record):

- `noisy`: the noisy-neighbour benchmark. One emulator enforcing an account quota (`--account-rpm`,
  Bedrock's ThrottlingException beyond it), two endpoint processes (lambdas/run.sh, the environment
  `akb local` builds: client/commands/local.py) for tenants A and B sharing it, each guaranteed half.
  A sends five times its share, B exactly its share, both in agentic mode, at fixed intervals. Three
  scenarios in one run: B alone (the baseline), A + B with fair sharing on (buckets in one SQLite file
  both endpoints share), A + B with fair sharing off. Per scenario: B's success rate (HTTP 200 and a
  `done` without an error), B's time to first event p50 / p95 and its ratio to B alone, what A got,
  and the emulator's throttles.
- `dynamodb`: the added latency of the DynamoDB path. Two endpoint processes against one emulator (no
  account quota): one with fair sharing on a quota table in moto's server (its own process, boto3 through
  AWS_ENDPOINT_URL_DYNAMODB: the production code path), one without fair sharing. Sequential agentic
  requests alternating between them; time to first event of each, the ratio, and the decision's own
  latency and round trips from the endpoint's EMF lines.

    PYTHONPATH=. .venv/bin/python bench/fair_share.py noisy [--account-rpm 600] [--seconds 200]
    PYTHONPATH=. .venv/bin/python bench/fair_share.py dynamodb [--requests 200]

Only 127.0.0.1 is loaded; every loop is bounded by its duration or request count.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import append_result  # noqa: E402
from bench.robustness import free_port, percentile  # noqa: E402
from client.commands.local import RUN_SH, endpoint_environment  # noqa: E402
from client.local_processes import stop, wait_ready  # noqa: E402
from contract.settings import QuotaSettings, Retriever, TenantSettings  # noqa: E402
from local.emulator import kb_id_for, start_emulator  # noqa: E402

CALLER = "arn:aws:iam::000000000000:user/bench"
QUESTION = {"question": "How do I rotate an API key?", "mode": "agentic"}
HEADING = "## Fair share of the agentic quota (bench/fair_share.py)"


def machine() -> str:
    """The heading of a result: date, cores, architecture, Python."""
    return (
        f"{dt.date.today()}: nproc {os.cpu_count()} (shared), {platform.machine()}, Python {platform.python_version()}"
    )


def settings_for(tenant: str, quota: QuotaSettings | None) -> TenantSettings:
    retrievers = [Retriever(alias, kb_id_for(alias), f"the sample corpus' {alias}") for alias in ("docs", "tickets")]
    return TenantSettings(tenant=tenant, environment="bench", retrievers=retrievers, quota=quota)


@contextlib.contextmanager
def endpoint(settings: TenantSettings, emulator_env: dict[str, str], log: Path, **extra: Any) -> Iterator[str]:
    """One endpoint process through lambdas/run.sh, as `akb local` starts it; yields its URL."""
    port = free_port()
    quota_path = extra.pop("quota_path", None)
    env = endpoint_environment(settings, port, emulator_env, CALLER, quota_path=quota_path)
    env.update({key: str(value) for key, value in extra.items()})
    with log.open("w") as out:
        child = subprocess.Popen([str(RUN_SH)], env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            if not wait_ready(url, child, timeout=90):
                raise RuntimeError(f"the endpoint did not start: {log.read_text()[-2000:]}")
            yield url
        finally:
            stop(child)


@dataclass
class Outcome:
    status: int
    first_event_ms: float | None = None
    code: str | None = None  # error code (HTTP body or error event)
    complete: bool = False


async def ask(client: httpx.AsyncClient, url: str) -> Outcome:
    started = time.perf_counter()
    try:
        async with client.stream("POST", f"{url}/v1/query", json=QUESTION) as response:
            if response.status_code != 200:
                body = json.loads(await response.aread())
                return Outcome(response.status_code, code=body.get("error", {}).get("code"))
            outcome, event = Outcome(200), None
            async for line in response.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                    if outcome.first_event_ms is None:
                        outcome.first_event_ms = (time.perf_counter() - started) * 1000
                elif line.startswith("data: ") and event in ("error", "done"):
                    data = json.loads(line[6:])
                    outcome.code = outcome.code or data.get("code")
                    outcome.complete = event == "done" and outcome.code is None
            return outcome
    except httpx.HTTPError as error:
        return Outcome(0, code=type(error).__name__)


async def send_at_rate(client: httpx.AsyncClient, url: str, per_minute: float, seconds: float) -> list[Outcome]:
    """Requests at fixed intervals (open loop: a slow answer never delays the next request)."""
    interval, tasks = 60 / per_minute, []
    start = time.monotonic()
    for index in range(int(seconds * per_minute / 60)):
        await asyncio.sleep(max(0.0, start + index * interval - time.monotonic()))
        tasks.append(asyncio.create_task(ask(client, url)))
    return list(await asyncio.gather(*tasks))


@dataclass
class Scenario:
    name: str
    b: list[Outcome]
    a: list[Outcome] = field(default_factory=list)
    emulator: dict[str, Any] = field(default_factory=dict)
    decisions: list[tuple[str, int]] = field(default_factory=list)  # (path, round trips)
    b_check_ms: list[float] = field(default_factory=list)  # B's fair-share decisions, as the endpoint timed them


async def load(url: str, per_minute: float, seconds: float) -> list[Outcome]:
    limits = httpx.Limits(max_connections=2000, max_keepalive_connections=200, keepalive_expiry=2.0)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120, connect=30), limits=limits) as client:
        return await send_at_rate(client, url, per_minute, seconds)


def _load_in_child(url: str, per_minute: float, seconds: float, sender: Connection) -> None:
    sender.send(asyncio.run(load(url, per_minute, seconds)))
    sender.close()


def traffic(urls: dict[str, str], rates: dict[str, float], seconds: float) -> dict[str, list[Outcome]]:
    """B's requests from this process, every other tenant's from a process of its own: measuring B's time
    to first event never waits on the parsing of A's answers."""
    children = {}
    for tenant in rates:
        if tenant != "tenant-b":
            receiver, sender = multiprocessing.Pipe(duplex=False)
            job = (urls[tenant], rates[tenant], seconds, sender)
            process = multiprocessing.Process(target=_load_in_child, args=job)
            process.start()
            children[tenant] = (process, receiver)
    results = {"tenant-b": asyncio.run(load(urls["tenant-b"], rates["tenant-b"], seconds))}
    for tenant, (process, receiver) in children.items():
        results[tenant] = receiver.recv()
        process.join(timeout=60)
    return results


def emf_values(log: Path, name: str) -> list[float]:
    values = []
    for line in log.read_text().splitlines():
        if name in line and line.startswith("{"):
            with contextlib.suppress(ValueError):
                values += json.loads(line).get(name, [])
    return values


def quota_records(log: Path) -> list[dict[str, Any]]:
    """The endpoint's `quota` log records: one per fair-share decision."""
    found = []
    for line in log.read_text().splitlines():
        if '"quota"' in line and line.startswith("{"):
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if record.get("message") == "quota":
                    found.append(record)
    return found


def decision_ms(log: Path) -> list[float]:
    """How long each fair-share decision took, as the endpoint timed it."""
    return [float(record["check_ms"]) for record in quota_records(log)]


def decisions(log: Path) -> list[tuple[str, int]]:
    """(path, round trips) of every fair-share decision."""
    return [(record["quota_path"], int(record["round_trips"])) for record in quota_records(log)]


def run_scenario(name: str, args: argparse.Namespace, fair: bool, with_a: bool, work: Path) -> Scenario:
    """One round of a scenario: a fresh emulator, fresh endpoints, fresh buckets."""
    work = Path(tempfile.mkdtemp(dir=work))
    share = args.account_rpm / 2
    shares = {"tenant-a": share, "tenant-b": share}
    bursts = dict.fromkeys(shares, float(args.account_rpm))
    quotas = {t: QuotaSettings.for_tenant(t, args.account_rpm, shares, bursts, 10.0) if fair else None for t in shares}
    store = work / f"{name}.quota.sqlite3"
    with start_emulator(port=0, delay_ms=args.delay_ms, account_rpm=args.account_rpm) as emulator:
        logs = {t: work / f"{name}-{t}.log" for t in shares}
        with contextlib.ExitStack() as stack:
            urls = {
                t: stack.enter_context(endpoint(settings_for(t, quotas[t]), emulator.env, logs[t], quota_path=store))
                for t in (shares if with_a else ["tenant-b"])
            }
            rates = {"tenant-b": share} | ({"tenant-a": 5 * share} if with_a else {})
            outcomes = traffic(urls, rates, args.seconds / args.rounds)
        made = [d for t in urls for d in decisions(logs[t])]
        checks = decision_ms(logs["tenant-b"]) if fair else []
        quota = emulator.account_quota()
        return Scenario(name, outcomes["tenant-b"], outcomes.get("tenant-a", []), quota, made, checks)


def merged(rounds: list[Scenario]) -> Scenario:
    """One scenario's rounds as one: outcomes, decisions and emulator counts added up."""
    first = rounds[0]
    emulator = {key: sum(r.emulator.get(key) or 0 for r in rounds) for key in ("admitted", "throttled")}
    return Scenario(
        first.name,
        [o for r in rounds for o in r.b],
        [o for r in rounds for o in r.a],
        emulator,
        [d for r in rounds for d in r.decisions],
        [c for r in rounds for c in r.b_check_ms],
    )


def b_row(scenario: Scenario, alone_p50: float) -> str:
    b = scenario.b
    ok = [o for o in b if o.status == 200 and o.complete]
    ttfe = [o.first_event_ms for o in ok if o.first_event_ms is not None]
    p50, p95 = percentile(ttfe, 50), percentile(ttfe, 95)
    codes = Counter(o.code or str(o.status) for o in b if not (o.status == 200 and o.complete))
    failures = ", ".join(f"{code} {count}" for code, count in codes.most_common()) or "none"
    return (
        f"| {scenario.name} | {len(b)} | {100 * len(ok) / len(b):.2f}% | {p50:.0f} / {p95:.0f} | "
        f"{p50 / alone_p50:.2f} | {failures} |"
    )


def a_line(scenario: Scenario) -> str:
    if not scenario.a:
        return ""
    a = Counter("answered" if o.status == 200 and o.complete else (o.code or str(o.status)) for o in scenario.a)
    got = ", ".join(f"{key} {count}" for key, count in a.most_common())
    return (
        f"- {scenario.name}: A sent {len(scenario.a)} ({got}); the emulator admitted "
        f"{scenario.emulator.get('admitted')} and throttled {scenario.emulator.get('throttled')}"
        + round_trips_note(scenario.decisions)
    )


def round_trips_note(made: list[tuple[str, int]]) -> str:
    admitted = [trips for path, trips in made if path != "refused"]
    refused = [trips for path, trips in made if path == "refused"]
    if not made:
        return ""
    return (
        f"; {len(made)} quota decisions: admitted {len(admitted)}, round trips mean "
        f"{statistics.mean(admitted) if admitted else 0:.2f} (exactly one in "
        f"{100 * admitted.count(1) / max(1, len(admitted)):.1f}%); refused {len(refused)}, round trips mean "
        f"{statistics.mean(refused) if refused else 0:.2f} (none: decided from what the endpoint last saw, in "
        f"{100 * refused.count(0) / max(1, len(refused)):.1f}%)"
    )


def noisy(args: argparse.Namespace) -> str:
    plans = [
        ("B alone", True, False),
        ("A 5x + B, fair sharing on", True, True),
        ("A 5x + B, fair sharing off", False, True),
    ]
    rounds: dict[str, list[Scenario]] = {name: [] for name, _, _ in plans}
    with tempfile.TemporaryDirectory(prefix="akb-fair-share-") as tmp:
        for _ in range(args.rounds):  # interleaved, so a change in the machine's load touches every scenario
            for name, fair, with_a in plans:
                rounds[name].append(run_scenario(name, args, fair=fair, with_a=with_a, work=Path(tmp)))
    alone, on, off = (merged(rounds[name]) for name, _, _ in plans)
    ok = [o.first_event_ms for o in alone.b if o.status == 200 and o.complete and o.first_event_ms is not None]
    alone_p50 = percentile(ok, 50)
    share = args.account_rpm / 2
    rows = "\n".join(b_row(s, alone_p50) for s in (alone, on, off))
    notes = "\n".join(line for line in (a_line(on), a_line(off)) if line)
    return f"""### {machine()}

Emulator with `--account-rpm {args.account_rpm}` ({args.delay_ms:g} ms between events), tenants A and B each
guaranteed {share:g} agentic requests per minute (burst limit: the whole account); A sends {5 * share:g} a minute
(5x its share), B {share:g} (its share), one request every fixed interval, for {args.seconds:g} s per scenario in
{args.rounds} interleaved rounds (each round: a fresh emulator, endpoints and buckets). B's success: HTTP 200 and a
`done` without an error; time to first event measured by the client. B's fair-share decision (`check_ms` of its
`quota` log records): alone p50 / p95 {percentile(alone.b_check_ms, 50):.1f} / {percentile(alone.b_check_ms, 95):.1f}
ms, beside the noisy tenant {percentile(on.b_check_ms, 50):.1f} / {percentile(on.b_check_ms, 95):.1f} ms.

| scenario | B requests | B success | B time to first event p50 / p95 ms | p50 ratio to B alone | B failures |
|---|---:|---:|---:|---:|---|
{rows}

{notes}

Command: `PYTHONPATH=. .venv/bin/python bench/fair_share.py noisy --account-rpm {args.account_rpm} \
--seconds {args.seconds:g} --rounds {args.rounds}`
"""


@contextlib.contextmanager
def moto_server() -> Iterator[str]:
    port = free_port()
    child = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(f"{url}/moto-api/", timeout=1)
                break
            time.sleep(0.2)
        yield url
    finally:
        stop(child)


def quota_table(url: str) -> str:
    from tests.dynamodb_server import create_quota_table, dynamodb_client

    return create_quota_table(dynamodb_client(url))


async def alternate(urls: dict[str, str], requests: int, warmup: int = 5) -> dict[str, list[float]]:
    """Sequential requests, alternating between the endpoints (order swapped every round)."""
    ttfe: dict[str, list[float]] = {name: [] for name in urls}
    async with httpx.AsyncClient(timeout=60) as client:
        for index in range(requests + warmup):
            order = list(urls) if index % 2 == 0 else list(reversed(urls))
            for name in order:
                outcome = await ask(client, urls[name])
                if outcome.status != 200 or outcome.first_event_ms is None:
                    raise RuntimeError(f"{name}: {outcome}")
                if index >= warmup:
                    ttfe[name].append(outcome.first_event_ms)
    return ttfe


def dynamodb(args: argparse.Namespace) -> str:
    quota = QuotaSettings.for_tenant(
        "tenant-a", 6000, {"tenant-a": 3000, "tenant-b": 3000}, {"tenant-a": 6000, "tenant-b": 6000}, 10
    )
    with tempfile.TemporaryDirectory(prefix="akb-fair-share-") as tmp, moto_server() as moto:
        table, work = quota_table(moto), Path(tmp)
        dynamo = {"AKB_QUOTA_TABLE": table, "AWS_ENDPOINT_URL_DYNAMODB": moto}
        with start_emulator(port=0, delay_ms=0) as emulator, contextlib.ExitStack() as stack:
            urls = {
                "without fair sharing": stack.enter_context(
                    endpoint(settings_for("tenant-a", None), emulator.env, work / "off.log")
                ),
                "fair sharing on DynamoDB (moto)": stack.enter_context(
                    endpoint(settings_for("tenant-a", quota), emulator.env, work / "on.log", **dynamo)
                ),
            }
            ttfe = asyncio.run(alternate(urls, args.requests))
        check_ms = emf_values(work / "on.log", "QuotaCheckMs")[5:]
        trips = emf_values(work / "on.log", "QuotaRoundTrips")[5:]
    base, with_quota = (statistics.median(values) for values in ttfe.values())
    rows = "\n".join(
        f"| {name} | {len(values)} | {statistics.median(values):.1f} / {percentile(values, 95):.1f} |"
        for name, values in ttfe.items()
    )
    return f"""### {machine()}

Two endpoint processes (lambdas/run.sh) against one emulator (0 ms between events), {args.requests} sequential agentic
requests each, alternating (after 5 warm-up requests each); fair sharing's buckets in moto's DynamoDB server (its own
process; the endpoint's boto3 reaches it through AWS_ENDPOINT_URL_DYNAMODB, one TransactWriteItems per decision).

| endpoint | requests | time to first event p50 / p95 ms |
|---|---:|---:|
{rows}

Added by the DynamoDB path: {with_quota - base:.1f} ms at the median, ratio {with_quota / base:.2f} (with / without).
The decision itself (QuotaCheckMs): p50 {percentile(check_ms, 50):.1f} ms, p95 {percentile(check_ms, 95):.1f} ms;
round trips per decision: mean {statistics.mean(trips):.2f}, one round trip in {100 * trips.count(1) / len(trips):.1f}%.
moto is a Python stand-in: DynamoDB's own latency in a region is not measured here.

Command: `PYTHONPATH=. .venv/bin/python bench/fair_share.py dynamodb --requests {args.requests}`
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to bench/RESULTS.md")
    commands = parser.add_subparsers(dest="command", required=True)
    noisy_parser = commands.add_parser("noisy")
    noisy_parser.add_argument("--account-rpm", type=int, default=600)
    noisy_parser.add_argument("--seconds", type=float, default=200)
    noisy_parser.add_argument("--delay-ms", type=float, default=20)
    noisy_parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds per scenario")
    dynamodb_parser = commands.add_parser("dynamodb")
    dynamodb_parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    text = noisy(args) if args.command == "noisy" else dynamodb(args)
    print(text)
    if not args.no_record:
        append_result(HEADING, text)


if __name__ == "__main__":
    main()
