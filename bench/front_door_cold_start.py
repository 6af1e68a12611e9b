"""Issue 19's two measurements, each as a ratio to a baseline taken in the same run.

1. Endpoint init (fresh interpreter, bytecode present for every module): import uvicorn + the service,
   build the app from the environment,
   then the first request (POST /v1/query driven through the ASGI app, its whole SSE body read; boto3's
   client is created by that request) — for the code BEFORE the lazy-import cuts (`git archive
   <--before>`) and AFTER (this tree), against a bare boto3 client: `import boto3`, create the
   bedrock-agent-runtime client and read one AgenticRetrieveStream (the same upstream call). Each in
   `--repeats` fresh processes, alternating, median; the emulator (delay 0) runs in this process.
2. Time to first event through `lambdas/run.sh` (as in Lambda) with the local API-Gateway-shaped request
   context (`akb local --front-door api_gateway`) vs the function-URL path, alternating requests.

    PYTHONPATH=. .venv/bin/python bench/front_door_cold_start.py [--before main] [--repeats 9] [--runs 40]
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.endpoint_latency import HTTP, QUESTION, free_port, percentile, settings, wait_http  # noqa: E402
from client.commands.local import RUN_SH, endpoint_environment  # noqa: E402
from local.emulator import kb_id_for, start_emulator  # noqa: E402
from tests.endpoint_server import iter_frames  # noqa: E402

# The first request, through the app's ASGI interface (no HTTP client library to import and time). The
# start as run.sh makes it: through lambdas/endpoint/serve.py where the tree has it (the cycle collector
# held off until the app exists), else uvicorn's factory straight on asgi_app (trees before it).
ENDPOINT = (
    """
import time; t = time.perf_counter()
try:
    from lambdas.endpoint import serve
    serve.hold_collector()
except ImportError:
    serve = None
import asyncio, json
import uvicorn
from lambdas.endpoint import asgi_app
app = serve.app_from_environment() if serve else asgi_app.app_from_environment()
body = json.dumps({"question": QUESTION_LITERAL}).encode()
scope = {"type": "http", "method": "POST", "path": "/v1/query", "raw_path": b"/v1/query", "query_string": b"",
         "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
         "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 1)}
sent = []
async def receive():
    if sent: await asyncio.sleep(3600)
    sent.append(1); return {"type": "http.request", "body": body, "more_body": False}
chunks = []
async def send(message):
    chunks.append(message)
asyncio.run(app(scope, receive, send))
assert chunks[0]["status"] == 200 and b"event: done" in b"".join(c.get("body", b"") for c in chunks[1:])
print((time.perf_counter() - t) * 1000)
"""
).replace("QUESTION_LITERAL", repr(QUESTION))

BARE = """
import time; t = time.perf_counter()
import boto3
client = boto3.client("bedrock-agent-runtime", region_name="us-west-2")
stream = client.agentic_retrieve_stream(messages=[{"role": "user", "content": {"text": QUESTION_LITERAL}}],
    retrievers=[{"configuration": {"knowledgeBase": {"knowledgeBaseId": KB_LITERAL}}, "description": "docs"}],
    agenticRetrieveConfiguration={"foundationModelType": "MANAGED", "maxAgentIteration": 3})
events = list(stream["stream"])
print((time.perf_counter() - t) * 1000)
"""


def bare_code() -> str:
    """BARE with the question and the docs knowledge base's emulator id filled in."""
    return BARE.replace("QUESTION_LITERAL", repr(QUESTION)).replace("KB_LITERAL", repr(kb_id_for("docs")))


def tree_of(revision: str, into: Path) -> Path:
    """The repository at `revision` (git archive), for the 'before' measurement."""
    archive = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_sh_exports(tree: Path) -> dict[str, str]:
    """The `export NAME="${NAME:-value}"` defaults the tree's lambdas/run.sh sets before starting Python."""
    exports = {}
    for line in (tree / "lambdas" / "run.sh").read_text().splitlines():
        if line.startswith("export ") and ":-" in line and "PYTHONPATH" not in line:
            name = line.removeprefix("export ").split("=", 1)[0]
            exports[name] = line.split(":-", 1)[1].rstrip('}"')
    return exports


def cold_env(emulator_env: dict[str, str], pythonpath: Path) -> dict[str, str]:
    """A fresh interpreter's environment for `pythonpath`'s code. Bytecode is always written (and then
    read): a shell or Makefile exporting PYTHONDONTWRITEBYTECODE would otherwise make every run compile
    the trees that have none yet, and compare compilers, not code."""
    prefixes = ("AWS_", "AKB_", "PYDANTIC_", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(run_sh_exports(pythonpath))  # what Lambda's entry sets for this tree's code
    env.update(emulator_env)
    env.update(
        {
            "PYTHONPATH": str(pythonpath),
            "AKB_TENANT_SETTINGS": settings().to_json(),
            "AKB_LOCAL_MODE": "1",  # no adapter here: the local caller stands in for the verified one
            "AWS_REGION": "us-west-2",
            "AWS_ACCESS_KEY_ID": "x",
            "AWS_SECRET_ACCESS_KEY": "x",
        }
    )
    return env


def one(code: str, env: dict[str, str], cwd: Path) -> float:
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return float(done.stdout.strip().splitlines()[-1])


def init_times(before: Path, repeats: int) -> dict[str, float]:
    """label -> median ms; the three variants alternate so machine load hits them alike."""

    emulator = start_emulator(port=0, delay_ms=0)
    try:
        runs: dict[str, list[float]] = {"bare": [], "before": [], "after": []}
        bare = bare_code()
        for tree in (before, ROOT):  # bytecode for both trees: the runs time imports, not compilation
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "lambdas")], check=True)
        for _ in range(repeats + 1):
            runs["bare"].append(one(bare, cold_env(emulator.env, ROOT), ROOT))
            runs["before"].append(one(ENDPOINT, cold_env(emulator.env, before), before))
            runs["after"].append(one(ENDPOINT, cold_env(emulator.env, ROOT), ROOT))
    finally:
        emulator.stop()
    # The first round warms the OS file cache and is dropped; min beside the median (a loaded machine only adds).
    result = {label: statistics.median(values[1:]) for label, values in runs.items()}
    result |= {f"{label}_min": min(values[1:]) for label, values in runs.items()}
    return result


def first_event_ms(url: str) -> float:
    started = time.perf_counter()
    with HTTP.stream("POST", f"{url}/v1/query", json={"question": QUESTION}) as response:
        for _ in iter_frames(response):
            return (time.perf_counter() - started) * 1000
    raise RuntimeError("no event")


def start_endpoint(front_door: str, emulator_env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = endpoint_environment(
        settings(), port, emulator_env, "arn:aws:iam::123456789012:user/bench", front_door=front_door
    )
    child = subprocess.Popen([str(RUN_SH)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/healthz")
    return child, url


def first_events(runs: int) -> dict[str, list[float]]:
    emulator = start_emulator(port=0, delay_ms=0)
    children = []
    try:
        urls = {}
        for front_door in ("function_url", "api_gateway"):
            child, urls[front_door] = start_endpoint(front_door, emulator.env)
            children.append(child)
            first_event_ms(urls[front_door])  # warm: the first request's lazy imports are part 1's subject
        times: dict[str, list[float]] = {door: [] for door in urls}
        for _ in range(runs):
            for door, url in urls.items():
                times[door].append(first_event_ms(url))
        return times
    finally:
        for child in children:
            child.terminate()
            child.wait(timeout=10)
        emulator.stop()


def _row(label: str, key: str, init: dict[str, float]) -> str:
    median, low = init[key], init[f"{key}_min"]
    return f"| {label} | {median:.0f} / {low:.0f} | {median / init['bare']:.2f} / {low / init['bare_min']:.2f} |"


def report(init: dict[str, float], ttfe: dict[str, list[float]], repeats: int, runs: int, before: str) -> str:
    url, api = (statistics.median(ttfe[door]) for door in ("function_url", "api_gateway"))
    machine = f"nproc {os.cpu_count()} (shared), {platform.machine()}, Python {platform.python_version()}"
    return f"""## Front doors: endpoint init and the API-Gateway-shaped path (bench/front_door_cold_start.py)

### {time.strftime("%Y-%m-%d")}: {machine}

Endpoint init, fresh interpreter with bytecode for every module (imports, app, first request with its
boto3 client, whole SSE body read; emulator delay 0), median of {repeats} after one dropped warm-up round,
alternating; baseline: bare boto3 import + client + one AgenticRetrieveStream read whole, same run.

| code | init + first request, median / min (ms) | ratio to bare boto3, median / min |
|---|---:|---:|
{_row("bare boto3 client + the same call", "bare", init)}
{_row(f"before the cuts (`git archive {before}`)", "before", init)}
{_row("after the cuts (this tree)", "after", init)}

Time to first event through `lambdas/run.sh` (warm processes, {runs} requests each, alternating), ms p50 / p90:
function-URL path {url:.1f} / {percentile(ttfe["function_url"], 90):.1f}; API-Gateway-shaped path (local request
context, `akb local --front-door api_gateway`) {api:.1f} / {percentile(ttfe["api_gateway"], 90):.1f};
ratio API / URL (p50) {api / url:.2f}. Local only: API Gateway's own hop in AWS is not modelled.

Command: `PYTHONPATH=. .venv/bin/python bench/front_door_cold_start.py --before {before}`
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default="main", help="git revision without the cuts")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        init = init_times(tree_of(args.before, Path(scratch)), args.repeats)
    text = report(init, first_events(args.runs), args.repeats, args.runs, args.before)
    print(text)


if __name__ == "__main__":
    main()
