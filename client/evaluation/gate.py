"""The quality gate's verdict: each figure of an `akb eval` report against the tenant's thresholds and its baseline.

Per checked mode, five figures (docs/evaluation.md, The quality gate): Recall@5, MRR and the complete rate must
not fall below their minimum nor more than `tolerance.max_drop` (absolute) below the baseline; the p95 time to
answer and the cost per question must not exceed their maximum nor rise more than the tolerance's percentage
above the baseline. A failed request fails the gate too: a gate that could not measure must not pass. A figure
with a bound but no value (no answerable question, no cost reported) fails: unmeasured is not good.

The baseline is the figures of the last promoted run (baseline_store.py), compared only when it was measured on
the same golden set: after the set changes, figures are not comparable until a run is promoted again.
Pure functions over plain data: the command (gate_command.py) fetches, prints and stores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from contract import metric_names as names
from schema.eval_dataset import EvalItem
from schema.quality_config import RECALL_K, Quality

BASELINE_VERSION = 1
Direction = Literal["min", "max"]


@dataclass(frozen=True)
class Figure:
    """One gated figure: its CloudWatch metric name, how to read it from a report's per-mode summary, which way is
    better, its threshold in the config, and how its baseline tolerance applies (absolute drop or percent rise)."""

    name: str
    label: str
    read: Callable[[dict[str, Any]], float | None]
    direction: Direction
    threshold: Callable[[Quality], float | None]
    unit: str = ""


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1000, 3)


FIGURES: tuple[Figure, ...] = (
    Figure(
        names.QUALITY_RECALL_AT_5,
        f"Recall@{RECALL_K}",
        lambda s: s["recall"].get(str(RECALL_K)),
        "min",
        lambda q: q.thresholds.min_recall_at_5,
    ),
    Figure(names.QUALITY_MRR, "MRR", lambda s: s["mrr"], "min", lambda q: q.thresholds.min_mrr),
    Figure(
        names.QUALITY_COMPLETE_RATE,
        "Complete rate",
        lambda s: s["completeStop"],
        "min",
        lambda q: q.thresholds.min_complete_rate,
    ),
    Figure(
        names.QUALITY_ANSWER_P95_SECONDS,
        "p95 time to answer",
        lambda s: _seconds(s["durationMsP95"]),
        "max",
        lambda q: q.thresholds.max_p95_seconds,
        " s",
    ),
    Figure(
        names.QUALITY_COST_PER_QUESTION,
        "Cost per question",
        lambda s: s["costUsdPerQuestion"],
        "max",
        lambda q: q.thresholds.max_cost_per_question_usd,
        " USD",
    ),
)
BY_NAME = {figure.name: figure for figure in FIGURES}


@dataclass(frozen=True)
class Check:
    """One figure of one mode: its value, bounds, and verdict (`problems` empty when it passes)."""

    mode: str
    figure: str
    label: str
    value: float | None
    threshold: float | None
    baseline: float | None
    allowed: float | None  # the bound the baseline and tolerance give (None: no comparable baseline)
    direction: Direction
    problems: tuple[str, ...] = ()
    crossed: tuple[str, ...] = ()  # which bounds it failed: "threshold", "baseline", "unmeasured"

    @property
    def passed(self) -> bool:
        return not self.problems

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else f"FAIL ({', '.join(self.crossed)})"


@dataclass(frozen=True)
class GateResult:
    checks: tuple[Check, ...]
    errors: dict[str, int]  # failed requests per mode
    golden_set: str  # the golden set's fingerprint
    baseline_note: str | None = None  # why the baseline was not compared, if it was not
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks) and not any(self.errors.values())

    def regressions(self) -> list[str]:
        """One line per failed check, naming the figure and the mode: what the command prints and exits on."""
        lines = [f"{c.label} ({c.mode}): {problem}" for c in self.checks for problem in c.problems]
        lines += [
            f"requests ({mode}): {count} failed; rerun the same command to retry only those"
            for mode, count in self.errors.items()
            if count
        ]
        return lines


def golden_set_fingerprint(items: Sequence[EvalItem]) -> str:
    """Changes whenever a question or its labels change (each item's own fingerprint, in order)."""
    digest = hashlib.sha256("\n".join(item.fingerprint() for item in items).encode("utf-8"))
    return digest.hexdigest()[:16]


def _fmt(value: float) -> str:
    return f"{value:.4g}"


def _allowed(figure: Figure, baseline: float | None, quality: Quality) -> float | None:
    """The bound the baseline sets: baseline - max_drop for a minimum, baseline x (1 + percent) for a maximum."""
    if baseline is None:
        return None
    tolerance = quality.tolerance
    if figure.direction == "min":
        return round(max(0.0, baseline - tolerance.max_drop), 6)
    percent = (
        tolerance.max_cost_increase_percent
        if figure.name == names.QUALITY_COST_PER_QUESTION
        else tolerance.max_latency_increase_percent
    )
    return round(baseline * (1 + percent / 100), 6)


def check_figure(
    mode: str, figure: Figure, value: float | None, baseline: float | None, quality: Quality, local: bool = False
) -> Check:
    """`local`: latency describes this machine, not the tenant: checked against its threshold, not the baseline."""
    threshold = figure.threshold(quality)
    allowed = None if local and figure.name == names.QUALITY_ANSWER_P95_SECONDS else _allowed(figure, baseline, quality)
    problems: list[str] = []
    crossed: list[str] = []
    worse = (lambda v, bound: v < bound) if figure.direction == "min" else (lambda v, bound: v > bound)
    word = "below" if figure.direction == "min" else "above"
    if value is None:
        if threshold is not None or allowed is not None:
            problems.append("not measured (no value in the report), so it cannot pass its bound")
            crossed.append("unmeasured")
    else:
        if threshold is not None and worse(value, threshold):
            problems.append(f"{_fmt(value)}{figure.unit} is {word} the threshold {_fmt(threshold)}{figure.unit}")
            crossed.append("threshold")
        if allowed is not None and baseline is not None and worse(value, allowed):
            reach = "down to" if figure.direction == "min" else "up to"
            problems.append(
                f"{_fmt(value)}{figure.unit} regressed against the baseline {_fmt(baseline)}{figure.unit} "
                f"(the tolerance allows {reach} {_fmt(allowed)}{figure.unit})"
            )
            crossed.append("baseline")
    bounds = (threshold, baseline, allowed, figure.direction)
    return Check(mode, figure.name, figure.label, value, *bounds, tuple(problems), tuple(crossed))


def comparable_baseline(baseline: dict[str, Any] | None, fingerprint: str) -> tuple[dict[str, Any] | None, str | None]:
    """The baseline's figures by mode if it was measured on this golden set, else None and why not."""
    if baseline is None:
        return None, "no baseline yet: promote a passing run with --promote-baseline"
    if baseline.get("version") != BASELINE_VERSION or not isinstance(baseline.get("modes"), dict):
        return None, "the stored baseline has an unknown format: promote a passing run to replace it"
    if baseline.get("goldenSet") != fingerprint:
        return None, "the baseline was measured on another golden set: promote a passing run to compare again"
    return baseline["modes"], None


def evaluate(
    report: dict[str, Any], quality: Quality, fingerprint: str, baseline: dict[str, Any] | None, local: bool = False
) -> GateResult:
    """Every figure of every checked mode against its threshold and the comparable baseline (`local`: check_figure)."""
    figures_by_mode, note = comparable_baseline(baseline, fingerprint)
    checks: list[Check] = []
    errors: dict[str, int] = {}
    for mode in quality.modes:
        summary = report["overall"].get(mode)
        if summary is None:
            raise ValueError(f"the report has no mode {mode}")
        errors[mode] = int(summary["errors"])
        previous = (figures_by_mode or {}).get(mode) or {}
        for figure in FIGURES:
            base = previous.get(figure.name)
            checks.append(check_figure(mode, figure, figure.read(summary), base, quality, local))
    return GateResult(tuple(checks), errors, fingerprint, note)


def baseline_record(result: GateResult, target: str) -> dict[str, Any]:
    """What --promote-baseline stores: the figures per mode, the golden set they were measured on, when and where."""
    modes: dict[str, dict[str, float]] = {}
    for check in result.checks:
        if check.value is not None:
            modes.setdefault(check.mode, {})[check.figure] = check.value
    return {
        "version": BASELINE_VERSION,
        "goldenSet": result.golden_set,
        "measuredAt": datetime.now(UTC).isoformat(timespec="seconds"),
        "target": target,
        "modes": modes,
    }
