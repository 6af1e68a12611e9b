"""PNG charts of a report (matplotlib, Agg backend: no display needed, works in CI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

RECALL_BY_HOPS = "recall_by_hops.png"
COST_VS_RECALL = "cost_vs_recall.png"


def _title(report: dict[str, Any], text: str) -> str:
    """Charts leave the terminal: one from the emulator must say so on its face."""
    return text + (" (local emulator, not Bedrock)" if report.get("disclaimer") else "")


def _pyplot() -> Any:  # matplotlib.pyplot, imported on first use (it takes most of a second)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def recall_by_hops(report: dict[str, Any], path: Path, k: int | None = None) -> Path:
    """Grouped bars: Recall@k per hop count (answerable questions only), one bar per mode."""
    plt = _pyplot()
    k_key = str(k or report["ks"][0])
    hops = [h for h, per_mode in report["byHops"].items() if next(iter(per_mode.values()))["answerable"]]
    modes = report["modes"]
    width = 0.8 / max(1, len(modes))
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    for n, mode in enumerate(modes):
        values = [report["byHops"][h][mode]["recall"][k_key] or 0.0 for h in hops]
        positions = [x + (n - (len(modes) - 1) / 2) * width for x in range(len(hops))]
        bars = ax.bar(positions, values, width, label=mode)
        ax.bar_label(bars, labels=[f"{v:.2f}" for v in values], fontsize=7, padding=1)
    counts = [next(iter(report["byHops"][h].values()))["answerable"] for h in hops]
    ax.set_xticks(range(len(hops)), [f"{h} hop{'s' * (h != '1')}\n(n={c})" for h, c in zip(hops, counts, strict=True)])
    ax.set_ylim(0, 1.3)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(f"Recall@{k_key}")
    ax.set_title(_title(report, f"Recall@{k_key} by hop count"), fontsize=10)
    ax.legend(fontsize=8, loc="upper center", ncol=len(modes), frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def cost_vs_recall(report: dict[str, Any], path: Path, k: int | None = None) -> Path:
    """One point per mode: estimated cost per question against Recall@k."""
    plt = _pyplot()
    k_key = str(k or report["ks"][0])
    fig, ax = plt.subplots(figsize=(6, 3.6), dpi=100)
    unknown = []
    for mode in report["modes"]:
        summary = report["overall"][mode]
        cost, recall = summary["costUsdPerQuestion"], summary["recall"][k_key]
        if cost is None or recall is None:
            unknown.append(mode)
            continue
        ax.scatter([cost * 1000], [recall], s=60)
        ax.annotate(mode, (cost * 1000, recall), textcoords="offset points", xytext=(6, 4), fontsize=9)
    ax.set_xlabel("estimated cost per 1,000 questions (USD)")
    ax.set_ylabel(f"Recall@{k_key}")
    ax.set_ylim(0, 1.05)
    ax.set_xlim(left=0, right=ax.get_xlim()[1] * 1.15)  # room for the labels
    title = f"Cost vs Recall@{k_key}"
    if unknown:
        title += f" (no cost/recall: {', '.join(unknown)})"
    ax.set_title(_title(report, title), fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def write_charts(report: dict[str, Any], out_dir: Path) -> list[Path]:
    return [recall_by_hops(report, out_dir / RECALL_BY_HOPS), cost_vs_recall(report, out_dir / COST_VS_RECALL)]
