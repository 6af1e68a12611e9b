"""The gate's report: a table in the terminal, and in `--out` `gate.md` (with the charts `akb eval` draws),
`gate.json` and `gate-junit.xml` (one test case per figure and mode, for CI systems that keep test reports even
when the step fails, like CodeBuild's report groups: docs/pipeline.md).

Each row: the mode, the figure, its value, the threshold, the baseline and the bound its tolerance gives, and
the verdict. Every failed row says which bound it crossed, so the line that fails a promotion names the figure.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from client.evaluation.charts import COST_VS_RECALL, RECALL_BY_HOPS
from client.evaluation.gate import Check, GateResult

GATE_MARKDOWN = "gate.md"
GATE_JSON = "gate.json"
GATE_JUNIT = "gate-junit.xml"
COLUMNS = ("mode", "figure", "value", "threshold", "baseline", "tolerance bound", "verdict")


def _cell(value: float | None, check: Check) -> str:
    if value is None:
        return "-"
    prefix = ">= " if check.direction == "min" else "<= "
    return prefix + f"{value:.4g}"


def rows(result: GateResult) -> list[tuple[str, ...]]:
    table: list[tuple[str, ...]] = []
    for check in result.checks:
        value = "-" if check.value is None else f"{check.value:.4g}"
        baseline = "-" if check.baseline is None else f"{check.baseline:.4g}"
        bounds = (_cell(check.threshold, check), baseline, _cell(check.allowed, check))
        table.append((check.mode, check.label, value, *bounds, check.verdict))
    for mode, count in result.errors.items():
        table.append(
            (mode, "Failed requests", str(count), "<= 0", "-", "-", "PASS" if not count else "FAIL (requests)")
        )
    return table


def verdict_line(result: GateResult) -> str:
    if result.passed:
        return "quality gate: PASS"
    return f"quality gate: FAIL ({len(result.regressions())} regression(s))"


def render(result: GateResult, console: Any, title: str) -> None:
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for name in COLUMNS:
        table.add_column(
            name, justify="right" if name in ("value", "threshold", "baseline", "tolerance bound") else "left"
        )
    for row in rows(result):
        style = None if row[-1] == "PASS" else "red"
        table.add_row(*row, style=style)
    console.print(table)
    if result.baseline_note:
        console.print(f"baseline: {result.baseline_note}")
    for line in result.regressions():
        console.print(f"[red]regressed: {line}[/red]")
    console.print(f"[bold]{verdict_line(result)}[/bold]")


def markdown(result: GateResult, meta: dict[str, Any]) -> str:
    lines = [
        f"# Quality gate: {meta['tenant']} in {meta['environment']}",
        "",
        f"**{verdict_line(result)}** — target {meta['target']}, golden set `{meta['goldenSet']}` "
        f"({meta['questions']} questions), {meta['generatedAt']}.",
        "",
    ]
    if meta.get("disclaimer"):
        lines += [f"> {meta['disclaimer']}", ""]
    lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows(result)]
    lines.append("")
    if result.baseline_note:
        lines += [f"Baseline: {result.baseline_note}", ""]
    if result.regressions():
        lines += ["Regressions:", "", *(f"- {line}" for line in result.regressions()), ""]
    lines += [
        f"![Recall by hop count per mode]({RECALL_BY_HOPS})",
        "",
        f"![Cost against recall per mode]({COST_VS_RECALL})",
        "",
        "Per question: `records.jsonl`; every metric: `report.json` (docs/evaluation.md).",
        "",
    ]
    return "\n".join(lines)


def as_json(result: GateResult, meta: dict[str, Any]) -> dict[str, Any]:
    return {
        **meta,
        "passed": result.passed,
        "baselineNote": result.baseline_note,
        "checks": [
            {
                "mode": c.mode,
                "figure": c.figure,
                "value": c.value,
                "threshold": c.threshold,
                "baseline": c.baseline,
                "toleranceBound": c.allowed,
                "direction": c.direction,
                "passed": c.passed,
                "problems": list(c.problems),
            }
            for c in result.checks
        ],
        "failedRequests": result.errors,
        "regressions": result.regressions(),
    }


def junit(result: GateResult, meta: dict[str, Any]) -> bytes:
    """JUnit XML: a suite per run, a case per figure and mode (and per mode's failed requests)."""
    failures = [c for c in result.checks if not c.passed]
    errored = {mode: count for mode, count in result.errors.items() if count}
    suite = ElementTree.Element(
        "testsuite",
        name=f"quality-gate {meta['environment']}/{meta['tenant']}",
        tests=str(len(result.checks) + len(result.errors)),
        failures=str(len(failures) + len(errored)),
    )
    for check in result.checks:
        case = ElementTree.SubElement(suite, "testcase", classname=check.mode, name=check.label)
        if not check.passed:
            ElementTree.SubElement(case, "failure", message="; ".join(check.problems))
    for mode, count in result.errors.items():
        case = ElementTree.SubElement(suite, "testcase", classname=mode, name="Failed requests")
        if count:
            ElementTree.SubElement(case, "failure", message=f"{count} request(s) failed")
    return ElementTree.tostring(suite, encoding="utf-8", xml_declaration=True)


def write(result: GateResult, meta: dict[str, Any], out_dir: Path) -> list[Path]:
    """gate.md, gate.json and gate-junit.xml in `out_dir`; returns their paths."""
    paths = [out_dir / GATE_MARKDOWN, out_dir / GATE_JSON, out_dir / GATE_JUNIT]
    paths[0].write_text(markdown(result, meta), encoding="utf-8")
    paths[1].write_text(json.dumps(as_json(result, meta), indent=2) + "\n", encoding="utf-8")
    paths[2].write_bytes(junit(result, meta))
    return paths
