"""The result cache under a realistic replay: hit rate, latency, upstream calls and cost saved, wrong reuse.

Starts the emulator and the endpoint in this process (the endpoint's real app under uvicorn, its
cache in a SQLite file, as `akb local` runs it) and, in one run:

1. replay: N requests drawn from the sample questions (local/eval/sample.jsonl, plus one question
   whose best document carries an ACL) with Zipf-distributed repeats, three users (userContext
   from the caller) and a product filter on a fifth of them. A third of the way in, an ingestion
   of `docs` completes and is published (as `akb ingest` does); two thirds in, alice loses access
   to the ACL'd document. Every hit is checked against the source: the same request with
   `cache: bypass` must return the same results and answer, else it counts as wrong reuse;
2. near-duplicates: labelled pairs that must not share an entry (negation, other id, other date,
   other filter, other user, after a version change, after a revocation; and since issue 26 a
   superscript, a sharp s, a circled digit, a proper noun's capital, the same user name in another
   account), each from an empty cache: the second request of a pair must not be a hit. Pairs that
   should share one (spelling variants) are reported too, so the normalizer's reach is visible.

Cost saved is the endpoint's own estimate (`done.estimatedCostUsd`, list prices from config) of
the miss each hit replaced. The emulator is a stand-in for Bedrock: latencies are the emulator's
(its delay between events is set with --delay-ms), not Bedrock's.

    PYTHONPATH=. python bench/cache_replay.py [--requests 300] [--delay-ms 20] [--seed 7] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import random
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.results_file import append_result  # noqa: E402
from contract.settings import CacheSettings  # noqa: E402
from lambdas.endpoint.cache.setup import build_cache  # noqa: E402
from lambdas.endpoint.cache.store import SqliteStore, VersionMark  # noqa: E402
from local.emulator import kb_id_for, start_emulator  # noqa: E402
from tests.endpoint_server import context_header, emulator_client, iter_frames, start_endpoint, tenant_settings  # noqa: E402

SAMPLE = ROOT / "local" / "eval" / "sample.jsonl"
ACL_QUESTION = "What is on the 2025 roadmap?"  # its best document, internal/roadmap-2025.md, is ACL'd
ACL_DOCUMENT = "internal/roadmap-2025.md"
USERS = ("alice", "bob", "carol")
PRODUCT_FILTER = {"equals": {"key": "product", "value": "skyledger"}}
# (label, first request, second request): the second must NOT be served the first's entry.
MUST_DIFFER = [
    (
        "negation",
        {"question": "Can I change the webhook retry schedule?"},
        {"question": "Can I not change the webhook retry schedule?"},
    ),
    ("other id", {"question": "What does error ACME-2204 mean?"}, {"question": "What does error ACME-2205 mean?"}),
    ("other id (ticket)", {"question": "What happened in TCK-1183?"}, {"question": "What happened in TCK-1207?"}),
    (
        "other date",
        {"question": "What changed in the 2024-03 release?"},
        {"question": "What changed in the 2024-04 release?"},
    ),
    ("other version", {"question": "What is new in SkyLedger 4.2?"}, {"question": "What is new in SkyLedger 4.3?"}),
    (
        "other filter",
        {"question": "How many rows can one BulkExport contain?"},
        {"question": "How many rows can one BulkExport contain?", "filter": PRODUCT_FILTER},
    ),
    (
        "quoted string",
        {"question": 'Where is "Invalid Token" explained?'},
        {"question": 'Where is "invalid token" explained?'},
    ),
    # Issue 26: spellings that compatibility normalization or case folding used to merge.
    (
        "superscript",
        {"question": "What is 10\u00b2 in the export limits?"},
        {"question": "What is 102 in the export limits?"},
    ),
    ("cube", {"question": "Is the 2\u00b3 retry limit documented?"}, {"question": "Is the 23 retry limit documented?"}),
    ("sharp s", {"question": "Which Ma\u00dfe apply to uploads?"}, {"question": "Which Masse apply to uploads?"}),
    (
        "circled digit",
        {"question": "What is step \u2460 of key rotation?"},
        {"question": "What is step 1 of key rotation?"},
    ),
    ("proper noun case", {"question": "Who sells Polish pottery?"}, {"question": "Who sells polish pottery?"}),
]
# Spelling variants that may share an entry (reported, not required).
MAY_SHARE = [
    (
        {"question": "How do I rotate an API key without downtime?"},
        {"question": "how do I rotate an API key without downtime"},
    ),
    ({"question": "What does error ACME-2204 mean?"}, {"question": "What  does error ACME-2204 mean ?"}),
    ({"question": "How do I rotate an API key?"}, {"question": "\uff28ow do I rotate an \uff21\uff30\uff29 key\uff1f"}),
]


def caller(user: str) -> str:
    """acme-app's session for `user` (its trust policy pins session names), or `user` itself when it is an ARN."""
    return user if user.startswith("arn:") else f"arn:aws:sts::123456789012:assumed-role/acme-app/{user}"


class Counting:
    """A boto3 client whose calls are counted by operation (the emulator's journal keeps only 1,000)."""

    def __init__(self, client) -> None:
        self._client = client
        self.calls: dict[str, int] = {}

    def _count(self, name: str) -> None:
        self.calls[name] = self.calls.get(name, 0) + 1

    def get_paginator(self, operation: str):
        self._count(operation)
        return self._client.get_paginator(operation)

    def __getattr__(self, name: str):
        attribute = getattr(self._client, name)
        if not callable(attribute) or name.startswith("_"):
            return attribute

        def call(**kwargs):
            self._count(name)
            return attribute(**kwargs)

        return call


@dataclass
class Answer:
    outcome: str
    ttfe_ms: float
    answer_ms: float  # first `text` (or the `result` when there is no text): when the caller has an answer
    done_ms: float
    cost: float
    stop: str
    content: tuple  # (documents, answer): what a hit must match


@dataclass
class Tally:
    answers: list[Answer] = field(default_factory=list)
    wrong: int = 0
    checked: int = 0
    saved_usd: float = 0.0
    last_cost: dict[str, float] = field(default_factory=dict)


def ask(url: str, user: str, body: dict) -> Answer:
    headers = context_header(caller(user), request_id=str(uuid.uuid4()))
    started = time.monotonic()
    first = answered = None
    with httpx.stream("POST", f"{url}/v1/query", json=body, headers=headers, timeout=60) as response:
        frames = []
        for frame in iter_frames(response):
            first = first or time.monotonic()
            if frame.type in ("text", "result"):
                answered = answered or time.monotonic()
            frames.append(frame)
    ended = time.monotonic()
    done = frames[-1].data
    result = next((f.data for f in frames if f.type == "result"), {})
    documents = tuple(r.get("documentId") for r in result.get("results", []))
    return Answer(
        outcome=done.get("cache", "off"),
        ttfe_ms=((first or started) - started) * 1000,
        answer_ms=((answered or ended) - started) * 1000,
        done_ms=(ended - started) * 1000,
        cost=float(done.get("estimatedCostUsd") or 0.0),
        stop=done["stopReason"],
        content=(documents, result.get("answer")),
    )


def workload(requests: int, seed: int) -> list[tuple[str, dict]]:
    questions = [json.loads(line)["question"] for line in SAMPLE.read_text().splitlines() if line.strip()]
    questions.insert(3, ACL_QUESTION)  # a popular one: it must be asked before and after the revocation
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** 1.1 for rank in range(len(questions))]  # Zipf, s = 1.1
    out = []
    for _ in range(requests):
        body = {"question": rng.choices(questions, weights)[0]}
        if rng.random() < 0.2:
            body["filter"] = PRODUCT_FILTER
        out.append((rng.choice(USERS), body))
    return out


def publish_docs_ingestion(emulator, cache) -> None:
    """What `akb ingest` does when its job completes: the new version goes to the cache store at once."""
    (job,) = emulator.complete_ingestion(kb_id_for("docs"))["completed"]
    updated = dt.datetime.fromisoformat(job["updatedAt"]).timestamp()
    mark = VersionMark(job["knowledgeBaseId"], job["dataSourceId"], job["ingestionJobId"], updated)
    cache.store.publish_version("acme", mark)


def replay(url: str, emulator, cache, requests: int, seed: int) -> Tally:
    tally = Tally()
    plan = workload(requests, seed)
    for n, (user, body) in enumerate(plan):
        if n == len(plan) // 3:
            publish_docs_ingestion(emulator, cache)
        if n == 2 * len(plan) // 3:
            emulator.set_acl(kb_id_for("docs"), ACL_DOCUMENT, ["bob"])  # alice loses access, no new content
        answer = ask(url, user, body)
        tally.answers.append(answer)
        key = json.dumps([user, body], sort_keys=True)
        if answer.outcome == "miss":
            tally.last_cost[key] = answer.cost
        elif answer.outcome == "hit":
            tally.saved_usd += tally.last_cost.get(key, 0.0)
            fresh = ask(url, user, {**body, "cache": "bypass"})
            tally.checked += 1
            tally.wrong += fresh.content != answer.content
        time.sleep(0.02)  # let the miss's entry be stored (it is written after `done`), as real traffic would
    return tally


def near_duplicates(url: str, emulator, cache) -> list[tuple[str, bool]]:
    """(label, wrongly reused?) for each labelled pair, each from an empty cache."""
    outcomes = []
    for label, first, second in MUST_DIFFER:
        cache.store.flush("acme")
        ask(url, "alice", first)
        time.sleep(0.05)
        outcomes.append((label, ask(url, "alice", second).outcome == "hit"))
    for label, change in (("other user", None), ("after a version change", "version"), ("after a revocation", "acl")):
        cache.store.flush("acme")
        emulator.reset()
        ask(url, "alice", {"question": ACL_QUESTION})
        time.sleep(0.05)
        if change == "version":
            publish_docs_ingestion(emulator, cache)
        elif change == "acl":
            emulator.set_acl(kb_id_for("docs"), ACL_DOCUMENT, ["bob"])
        user = "bob" if change is None else "alice"
        outcomes.append((label, ask(url, user, {"question": ACL_QUESTION}).outcome == "hit"))
    cache.store.flush("acme")  # issue 26: IAM user alice of another account is not the tenant's alice
    ask(url, "arn:aws:iam::123456789012:user/alice", {"question": ACL_QUESTION})
    time.sleep(0.05)
    other = ask(url, "arn:aws:iam::444455556666:user/alice", {"question": ACL_QUESTION})
    outcomes.append(("same name, other account", other.outcome == "hit"))
    emulator.reset()
    return outcomes


def variants_shared(url: str, cache) -> int:
    shared = 0
    for first, second in MAY_SHARE:
        cache.store.flush("acme")
        ask(url, "alice", first)
        time.sleep(0.05)
        shared += ask(url, "alice", second).outcome == "hit"
    return shared


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def summary(tally: Tally, calls: dict[str, int], pairs: list[tuple[str, bool]], shared: int, args) -> dict:
    hits = [a for a in tally.answers if a.outcome == "hit"]
    misses = [a for a in tally.answers if a.outcome == "miss"]
    looked_up = len(hits) + len(misses)
    # Every request that is not a hit makes one AgenticRetrieveStream call (no faults are armed: no retries).
    upstream = sum(1 for a in tally.answers if a.outcome != "hit")
    control = {
        "ListDataSources": calls.get("list_data_sources", 0),
        "ListIngestionJobs": calls.get("list_ingestion_jobs", 0),
        "CheckIngestedDocumentAcl": calls.get("check_ingested_document_acl", 0),
    }
    latency = {
        measure: {
            outcome: (statistics.median(values) if values else float("nan"), percentile(values, 0.95))
            for outcome, values in (
                ("hit", [getattr(a, measure) for a in hits]),
                ("miss", [getattr(a, measure) for a in misses]),
            )
        }
        for measure in ("ttfe_ms", "answer_ms", "done_ms")
    }
    return {
        "requests": len(tally.answers),
        "hits": len(hits),
        "misses": len(misses),
        "bypass": sum(1 for a in tally.answers if a.outcome == "bypass"),
        "hit_rate": len(hits) / looked_up if looked_up else 0.0,
        "latency": latency,
        "agentic_calls_replay": upstream,  # the bypass checks of hits are the benchmark's, not traffic
        "control_calls": control,
        "saved_usd": tally.saved_usd,
        "spent_usd": sum(a.cost for a in misses),
        "wrong_checked": tally.checked,
        "wrong": tally.wrong,
        "pairs": pairs,
        "shared": shared,
        "args": vars(args),
    }


PLURAL = {"hit": "hits", "miss": "misses"}
LATENCY_ROWS = (
    ("ttfe_ms", "time to first event"),
    ("answer_ms", "time to the answer (first text)"),
    ("done_ms", "time to done"),
)


def _cells(runs: list[dict], cell) -> str:
    return " | ".join(cell(run) for run in runs)


def _latency_rows(runs: list[dict]) -> list[str]:
    rows = []
    for measure, label in LATENCY_ROWS:
        for outcome in ("hit", "miss"):
            rows.append(
                f"| {label}, {PLURAL[outcome]} p50 / p95 (ms) | "
                + _cells(runs, lambda r, m=measure, o=outcome: "{:.0f} / {:.0f}".format(*r["latency"][m][o]))
                + " |"
            )
        rows.append(
            f"| {label}: miss / hit p50 | "
            + _cells(runs, lambda r, m=measure: f"{r['latency'][m]['miss'][0] / r['latency'][m]['hit'][0]:.1f}x")
            + " |"
        )
    return rows


def report(runs: list[dict]) -> str:
    a, first = runs[0]["args"], runs[0]
    wrong_pairs = sum(1 for _, wrong in first["pairs"] if wrong)
    lines = [
        f"### {dt.date.today().isoformat()}: nproc 2 (shared), {platform.machine()}, "
        f"Python {platform.python_version()}",
        "",
        f"{a['requests']} requests per column (Zipf s=1.1 over 51 questions, users {', '.join(USERS)}, product "
        f"filter on ~20%), emulator delay {a['delay_ms']:g} ms between events, seed {a['seed']}; docs re-ingested "
        "(and published, as `akb ingest` does) after a third, alice's access to the roadmap revoked after two "
        "thirds. Cache in SQLite, as `akb local`. Columns: the tenant re-checks document ACLs on every hit "
        "(acme's setting), or not (`acl_recheck: none`, meant for knowledge bases without document ACLs; here "
        "it shows what the re-check prevents, since the revoked document does carry one).",
        "",
        "| measure | " + " | ".join(run["label"] for run in runs) + " |",
        "|---|" + "---|" * len(runs),
        "| hit rate (hits / lookups) | "
        + _cells(runs, lambda r: f"{100 * r['hit_rate']:.1f}% ({r['hits']} hits, {r['misses']} misses)")
        + " |",
        *_latency_rows(runs),
        "| AgenticRetrieveStream calls | "
        + _cells(runs, lambda r: f"{r['agentic_calls_replay']} ({r['requests'] - r['agentic_calls_replay']} avoided)")
        + " |",
        "| calls the cache made | "
        + _cells(runs, lambda r: ", ".join(f"{name} {count}" for name, count in r["control_calls"].items()))
        + " |",
        "| estimated cost spent / saved | "
        + _cells(runs, lambda r: f"${r['spent_usd']:.4f} / ${r['saved_usd']:.4f}")
        + " |",
        "| wrong reuse in the replay (a hit differs from the source now) | "
        + _cells(runs, lambda r: f"{r['wrong']} of {r['wrong_checked']} hits")
        + " |",
        "",
        f"Labelled near-duplicates, each pair from an empty cache (the second request must not be a hit): "
        f"**wrong reuse {wrong_pairs} of {len(first['pairs'])}** — "
        + "; ".join(f"{label}: {'WRONG REUSE' if wrong else 'miss'}" for label, wrong in first["pairs"])
        + f". Spelling variants that shared an entry: {first['shared']} of {len(MAY_SHARE)}.",
        "",
        "Cost saved is the endpoint's estimate (list prices from config) of the miss each hit replaced; the "
        "cache's own calls (ingestion-job reads, at most once a minute per knowledge base, and one "
        "CheckIngestedDocumentAcl per document of a hit) and its SQLite/DynamoDB requests are not priced. "
        "Latencies are the emulator's on a shared 2-core machine, not Bedrock's: the emulator sends its first "
        "event after one delay, so a miss's first event comes early while its answer waits for the whole "
        "planning loop.",
        "",
        f"Command: `PYTHONPATH=. .venv/bin/python bench/cache_replay.py --requests {a['requests']} "
        f"--delay-ms {a['delay_ms']:g} --seed {a['seed']}`",
        "",
    ]
    return "\n".join(lines)


def run(args, acl: bool) -> dict:
    with tempfile.TemporaryDirectory() as folder, start_emulator(delay_ms=args.delay_ms) as emulator:
        config = CacheSettings(acl_knowledge_bases=["docs", "tickets"] if acl else [])
        settings = tenant_settings(user_context="caller", cache=config)
        runtime, agent = Counting(emulator_client(emulator.url)), Counting(emulator.client("bedrock-agent"))
        cache = build_cache(settings, SqliteStore(Path(folder) / "cache.sqlite3"), lambda: runtime, lambda: agent)
        with start_endpoint(emulator, settings, cache=cache, write_metrics=lambda line: None) as endpoint:
            tally = replay(endpoint.url, emulator, cache, args.requests, args.seed)
            calls = {**runtime.calls, **agent.calls}
            pairs = near_duplicates(endpoint.url, emulator, cache) if acl else []
            shared = variants_shared(endpoint.url, cache) if acl else 0
    result = summary(tally, calls, pairs, shared, args)
    result["label"] = "ACL re-check on every hit (acme)" if acl else "ACL re-check off (`acl_recheck: none`)"
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-record", action="store_true", help="print only; do not append to bench/RESULTS.md")
    args = parser.parse_args()
    text = report([run(args, acl=True), run(args, acl=False)])
    print(text)
    if not args.no_record:
        append_result("## Result cache replay (bench/cache_replay.py)", text)


if __name__ == "__main__":
    main()
