"""Aggregates records into the JSON report and the terminal tables: per mode, by type, by hop count.

Retrieval metrics average over answerable questions (a failed request counts as an empty result:
a mode that errors cannot look better for it); abstention averages over unanswerable ones.
Latency is what this client measured (request to first event / to end of stream); cost is the
endpoint's own estimate from the `done` event.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from client.evaluation.runner import Record
from client.evaluation.scores import (
    Judged,
    complete_at,
    hit_at,
    mean,
    percentile,
    precision_at,
    recall_at,
    reciprocal_rank,
)
from schema.eval_dataset import EvalItem

REPORT_VERSION = 1


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def summarize(pairs: Sequence[tuple[EvalItem, Record]], ks: Sequence[int]) -> dict[str, Any]:
    """One group's numbers (a mode, or a mode within one type or hop count)."""
    answerable = [(i, r) for i, r in pairs if i.answerable]
    unanswerable = [(i, r) for i, r in pairs if not i.answerable]
    judged = [Judged(tuple(r.gold_ranks), tuple(r.relevant)) for _, r in answerable]
    ok = [r for _, r in pairs if r.error is None]
    costs = [r.cost_usd for r in ok if r.cost_usd is not None]

    def at_k(metric: Callable[[Judged, int], float]) -> dict[str, float | None]:
        return {str(k): _round(mean(metric(j, k) for j in judged)) for k in ks}

    return {
        "questions": len(pairs),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "errors": sum(1 for _, r in pairs if r.error is not None),
        "recall": at_k(recall_at),
        "precision": at_k(precision_at),
        "hit": at_k(hit_at),
        "completeness": at_k(complete_at),
        "mrr": _round(mean(reciprocal_rank(j) for j in judged)),
        "abstention": _round(mean(1.0 if r.abstained else 0.0 for _, r in unanswerable)),
        "falseAbstention": _round(mean(1.0 if r.abstained else 0.0 for _, r in answerable if r.error is None)),
        "iterations": _round(mean(r.iterations for r in ok if r.iterations is not None), 2),
        # Share of requests whose planner judged its evidence sufficient (stop reason `complete`).
        "completeStop": _round(mean(1.0 if r.stop_reason == "complete" else 0.0 for r in ok)),
        "citedSources": _round(mean(float(r.cited) for r in ok if r.answer), 2),
        "timeToFirstEventMsP50": _round(
            percentile((r.time_to_first_event_ms for r in ok if r.time_to_first_event_ms is not None), 50), 1
        ),
        "durationMsP50": _round(percentile((r.duration_ms for r in ok if r.duration_ms is not None), 50), 1),
        "durationMsP95": _round(percentile((r.duration_ms for r in ok if r.duration_ms is not None), 95), 1),
        "costUsdPerQuestion": _round(mean(costs), 6),
        "costUsdTotal": _round(sum(costs), 6) if costs else None,
    }


def build_report(
    items: Sequence[EvalItem],
    records: Sequence[Record],
    modes: Sequence[str],
    ks: Sequence[int],
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report: overall per mode, then by question type and by hop count."""
    by_key = {(r.id, r.mode): r for r in records}
    pairs = {mode: [(i, by_key[(i.id, mode)]) for i in items if (i.id, mode) in by_key] for mode in modes}

    def grouped(group_of: Callable[[EvalItem], Any]) -> dict[str, dict[str, Any]]:
        groups = sorted({group_of(i) for i in items}, key=lambda g: (isinstance(g, str), g))
        return {
            str(group): {mode: summarize([p for p in pairs[mode] if group_of(p[0]) == group], ks) for mode in modes}
            for group in groups
        }

    routed: dict[str, dict[str, int]] = {}
    for mode in modes:
        counts: dict[str, int] = {}
        for _, record in pairs[mode]:
            if record.routed_mode and record.routed_mode != mode:
                counts[record.routed_mode] = counts.get(record.routed_mode, 0) + 1
        if counts:
            routed[mode] = counts
    return {
        "version": REPORT_VERSION,
        "generatedAt": datetime.now(UTC).isoformat(timespec="seconds"),
        **(meta or {}),
        "ks": list(ks),
        "modes": list(modes),
        "questions": len(items),
        "overall": {mode: summarize(pairs[mode], ks) for mode in modes},
        "byType": grouped(lambda i: i.type),
        "byHops": grouped(lambda i: i.hops),
        "routedTo": routed,
    }


def _fmt(value: float | None, kind: str = "ratio") -> str:
    if value is None:
        return "-"
    if kind == "ms":
        return f"{value:,.0f}"
    if kind == "usd":
        return f"${value:.4f}"
    if kind == "n":
        return f"{value:.1f}"
    return f"{value:.2f}"


def render_tables(report: dict[str, Any], console: Any) -> None:
    """Rich tables: the per-mode summary, then recall by type and by hop count at the first k."""
    from rich.table import Table

    ks = [str(k) for k in report["ks"]]
    quality = Table(title=f"Retrieval quality by mode ({report['questions']} questions)", title_justify="left")
    for name in ("mode", "k", "Recall", "Precision", "Hit", "Complete", "MRR", "Abstain", "False abstain"):
        quality.add_column(name, justify="left" if name == "mode" else "right")
    cost = Table(title="Cost and latency by mode (latency measured by this client)", title_justify="left")
    for name in ("mode", "Iterations", "TTFE p50 ms", "p50 ms", "p95 ms", "$/question", "$ total", "errors"):
        cost.add_column(name, justify="left" if name == "mode" else "right")
    for mode, s in report["overall"].items():
        for n, k in enumerate(ks):
            quality.add_row(
                mode if n == 0 else "",
                k,
                *(_fmt(s[metric][k]) for metric in ("recall", "precision", "hit", "completeness")),
                *((_fmt(s["mrr"]), _fmt(s["abstention"]), _fmt(s["falseAbstention"])) if n == 0 else ("", "", "")),
            )
        cost.add_row(
            mode,
            _fmt(s["iterations"], "n"),
            _fmt(s["timeToFirstEventMsP50"], "ms"),
            _fmt(s["durationMsP50"], "ms"),
            _fmt(s["durationMsP95"], "ms"),
            _fmt(s["costUsdPerQuestion"], "usd"),
            _fmt(s["costUsdTotal"], "usd"),
            str(s["errors"]),
        )
    console.print(quality)
    console.print(cost)
    k = ks[0]
    for key, label in (("byType", "type"), ("byHops", "hops")):
        table = Table(title=f"Recall@{k} by {label} (n = questions in the group)", title_justify="left")
        table.add_column(label)
        table.add_column("n", justify="right")
        for mode in report["modes"]:
            table.add_column(mode, justify="right")
        for group, per_mode in report[key].items():
            first = next(iter(per_mode.values()))
            if first["answerable"]:
                row = [_fmt(per_mode[mode]["recall"][k]) for mode in report["modes"]]
            else:
                row = [f"abstain {_fmt(per_mode[mode]['abstention'])}" for mode in report["modes"]]
            table.add_row(group, str(first["questions"]), *row)
        console.print(table)
    for mode, counts in report.get("routedTo", {}).items():
        shares = ", ".join(f"{target} {count}" for target, count in sorted(counts.items()))
        console.print(f"{mode} routed: {shares}")
