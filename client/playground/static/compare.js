// Compare: the same question in two or three modes at once, one column each, then the overlap of the
// documents their sources came from. Times are measured here, in the browser, from sending the request:
// "first event" when the first endpoint event arrived, "answer" when the answer was complete (its
// `result`, or `done` without one).

import { el, ms, usd } from "./dom.js";
import { cacheWords, RunView } from "./run-view.js";

function metricRows(view) {
  const m = view.metrics();
  const cost = m.cost === undefined ? "–" : `${usd(m.cost)}${m.costExcludesPlanner ? " (excludes the planner model)" : ""}`;
  return [
    ["Time to first event", ms(m.firstEventMs)],
    ["Time to answer", ms(m.answerMs)],
    ["Estimated cost", cost],
    ["Iterations", m.iterations === undefined ? "–" : String(m.iterations)],
    ["Stop reason", m.stopReason],
    ["Cache", view.done ? cacheWords(view.done) : "–"],
    ["Sources", `${m.documents.size} documents`],
  ].flatMap(([term, value]) => [el("dt", {}, term), el("dd", { dataset: { metric: term } }, value)]);
}

/** Pairs (and, with three modes, all three) with the documents they share. */
export function overlaps(columns) {
  const rows = [];
  const pairs = [];
  for (let i = 0; i < columns.length; i += 1) for (let j = i + 1; j < columns.length; j += 1) pairs.push([columns[i], columns[j]]);
  const groups = columns.length > 2 ? [...pairs, columns] : pairs;
  for (const group of groups) {
    const sets = group.map((column) => column.documents);
    const union = new Set(sets.flatMap((set) => [...set]));
    const shared = [...union].filter((key) => sets.every((set) => set.has(key)));
    rows.push({ modes: group.map((column) => column.mode), shared: shared.length, distinct: union.size, percent: union.size ? Math.round((100 * shared.length) / union.size) : 0 });
  }
  return rows;
}

export class Comparison {
  constructor({ columns, table, pending, onCite, onResults }) {
    Object.assign(this, { columns, table, pending, onCite, onResults });
  }

  /** One column per mode; returns [{mode, view, metrics}] for `run(view, mode)` to fill. */
  layout(modes, cap) {
    this.table.hidden = true;
    this.pending.hidden = false;
    this.pending.textContent = "Shown when every column has finished.";
    this.views = modes.map((mode) => {
      const headingId = `compare-${mode}`;
      const metrics = el("dl", { className: "facts metrics", "aria-label": `${mode}: measurements` });
      const body = el("div");
      const column = el("section", { className: "column", "aria-labelledby": headingId, dataset: { mode } }, el("h3", { id: headingId }, mode), metrics, body);
      const view = new RunView(body, { cap, compact: true, onCite: this.onCite, onResults: this.onResults });
      return { mode, view, metrics, column };
    });
    this.columns.replaceChildren(...this.views.map((entry) => entry.column));
    return this.views;
  }

  /** Every column finished: their measurements, and the documents they share. */
  settle() {
    for (const entry of this.views) entry.metrics.replaceChildren(...metricRows(entry.view));
    const columns = this.views.map((entry) => ({ mode: entry.mode, documents: entry.view.metrics().documents }));
    const everywhere = new Set([...columns[0].documents].filter((key) => columns.every((column) => column.documents.has(key))));
    for (const entry of this.views) entry.view.markShared(everywhere, `in all ${columns.length} modes`);
    const body = this.table.querySelector("tbody");
    body.replaceChildren(
      ...overlaps(columns).map((row) => el("tr", {}, el("th", { scope: "row" }, row.modes.join(" & ")), el("td", {}, String(row.shared)), el("td", {}, String(row.distinct)), el("td", {}, `${row.percent}%`))),
    );
    this.table.hidden = false;
    this.pending.hidden = true;
  }
}
