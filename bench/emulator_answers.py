"""The emulator's answers on the sample questions, per corpus tenant: does its planner stop, and do its
answers answer?

For each tenant (default: acme and globex, config/tenants/) this starts the emulator and the tenant's
endpoint the way `akb eval --local --tenant T` does (lambdas/run.sh, the tenant's settings and caps),
asks the 50 sample questions (local/eval/sample.jsonl) in agentic mode, and reports:

- complete rate: share of questions whose `done.stopReason` is `complete` within the tenant's cap
  (`retrieval.max_agent_iteration`), i.e. the planner said its evidence was sufficient;
- iterations per question by hop count (the dataset's `hops`), from `done.iterations`;
- sources per answer: distinct results the answer cites (mean and max), and results returned;
- Recall@5 and MRR over the answerable questions (client/evaluation/scores.py, as `akb eval`), over
  all 50 (what `akb eval --local --tenant T` prints) and over the tenant's own questions (those whose
  gold documents live in its knowledge bases);
- unanswerable questions answered with the "could not find" sentence (abstained in words).

The emulator is a stand-in for Bedrock: these numbers describe it, not the service.

    PYTHONPATH=. .venv/bin/python bench/emulator_answers.py [--tenant acme --tenant globex] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.endpoint_client import Client  # noqa: E402
from client.evaluation.local_target import local_endpoint  # noqa: E402
from client.evaluation.scores import judge, rank_documents, recall_at, reciprocal_rank  # noqa: E402
from contract.events import DoneEvent, ResultEvent  # noqa: E402
from schema import load_project  # noqa: E402
from schema.eval_dataset import EvalItem, load_dataset  # noqa: E402

SAMPLE = ROOT / "local" / "eval" / "sample.jsonl"
NOT_FOUND_PREFIX = "I could not find"


@dataclass
class Outcome:
    item: EvalItem
    stop_reason: str
    iterations: int
    cited: int
    results: int
    recall5: float | None
    rr: float | None
    answer: str
    own: bool  # the gold documents live in this tenant's knowledge bases


def _ask(client: Client, item: EvalItem, aliases: set[str]) -> Outcome:
    done: DoneEvent | None = None
    result: ResultEvent | None = None
    for event in client.query(item.question, mode="agentic"):
        if isinstance(event, DoneEvent):
            done = event
        elif isinstance(event, ResultEvent):
            result = event
    assert done is not None and result is not None, f"{item.id}: no done or result"
    cited = {n for citation in result.citations for n in citation.results}
    recall5 = rr = None
    if item.answerable:
        judged = judge(item.documents, item.spans, rank_documents(result.results))
        recall5, rr = recall_at(judged, 5), reciprocal_rank(judged)
    gold = [g if isinstance(g, str) else g[0] for g in item.documents]
    return Outcome(
        item,
        done.stopReason,
        done.iterations,
        len(cited),
        len(result.results),
        recall5,
        rr,
        result.answer or "",
        own=bool(gold) and all(g.split("/", 1)[0] in aliases for g in gold),
    )


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def summarize(tenant: str, cap: int, outcomes: list[Outcome]) -> dict[str, Any]:
    by_hops: dict[int, list[int]] = defaultdict(list)
    for o in outcomes:
        by_hops[o.item.hops].append(o.iterations)
    answerable = [o for o in outcomes if o.item.answerable]
    own = [o for o in answerable if o.own]
    answered = [o for o in outcomes if o.answer and not o.answer.startswith(NOT_FOUND_PREFIX)]
    unanswerable = [o for o in outcomes if not o.item.answerable]
    return {
        "tenant": tenant,
        "cap": cap,
        "questions": len(outcomes),
        "completeRate": round(sum(o.stop_reason == "complete" for o in outcomes) / len(outcomes), 3),
        "stopReasons": dict(sorted(_count(o.stop_reason for o in outcomes).items())),
        "iterationsByHops": {str(h): _mean([float(i) for i in v]) for h, v in sorted(by_hops.items())},
        "citedSourcesPerAnswer": _mean([float(o.cited) for o in answered]),
        "citedSourcesMax": max((o.cited for o in answered), default=0),
        "resultsPerAnswer": _mean([float(o.results) for o in outcomes]),
        "recall5": _mean([o.recall5 for o in answerable if o.recall5 is not None]),
        "mrr": _mean([o.rr for o in answerable if o.rr is not None]),
        "ownQuestions": len(own),
        "recall5Own": _mean([o.recall5 for o in own if o.recall5 is not None]),
        "mrrOwn": _mean([o.rr for o in own if o.rr is not None]),
        "unanswerableSaidNotFound": sum(o.answer.startswith(NOT_FOUND_PREFIX) for o in unanswerable),
        "unanswerable": len(unanswerable),
    }


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        counts[value] += 1
    return dict(counts)


def run_tenant(tenant: str, items: list[EvalItem], config_dir: Path) -> dict[str, Any]:
    project = load_project(config_dir, "dev")
    settings = project.tenants[tenant]
    aliases = {kb.alias for kb in settings.knowledge_bases}
    with (
        tempfile.TemporaryDirectory() as scratch,
        local_endpoint(config_dir, Path(scratch) / "endpoint.log", "dev", tenant) as url,
        Client(url) as client,
    ):
        outcomes = [_ask(client, item, aliases) for item in items]
    return summarize(tenant, settings.retrieval.max_agent_iteration, outcomes)


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| tenant (cap) | complete | iterations by hops (0/1/2/3) | cited sources per answer (max) "
        "| results per answer | Recall@5 all / own | MRR all / own | unanswerable said so |",
        "|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        hops = " / ".join(str(r["iterationsByHops"].get(h, "-")) for h in ("0", "1", "2", "3"))
        lines.append(
            f"| {r['tenant']} ({r['cap']}) | {r['completeRate']:.0%} | {hops} "
            f"| {r['citedSourcesPerAnswer']} ({r['citedSourcesMax']}) | {r['resultsPerAnswer']} "
            f"| {r['recall5']} / {r['recall5Own']} | {r['mrr']} / {r['mrrOwn']} "
            f"| {r['unanswerableSaidNotFound']} of {r['unanswerable']} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenant", action="append", help="Tenant (repeatable). Default: acme, globex.")
    parser.add_argument("--dataset", type=Path, default=SAMPLE)
    parser.add_argument("--config", type=Path, default=ROOT / "config")
    parser.add_argument("--json", type=Path, help="Also write the summaries as JSON here.")
    args = parser.parse_args()
    items = load_dataset(args.dataset)
    rows = [run_tenant(tenant, items, args.config) for tenant in args.tenant or ["acme", "globex"]]
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    print(markdown(rows))


if __name__ == "__main__":
    main()
