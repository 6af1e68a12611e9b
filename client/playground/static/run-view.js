// One request on the page: its live trace, the answer as it streams (then with citation markers),
// the sources, and the `done` footer. Used once for Ask and once per column for Compare.

import { contentOf, documentKey, documentOf, el, ms, seconds, snippet, uid, usd } from "./dom.js";

const STATUS_WORDS = { IN_PROGRESS: "started", SUCCEEDED: "succeeded", FAILED: "failed" };
const ENDPOINT_EVENTS = new Set(["trace", "text", "result", "error", "done"]);

/** Code-point offsets (the endpoint's citations count Python characters, not UTF-16 units). */
export function markerPositions(answerLength, citations, resultCount) {
  const markers = new Map();
  for (const citation of citations || []) {
    const end = Math.min(Math.max(citation.end, 0), answerLength);
    const list = markers.get(end) || [];
    for (const index of citation.results || []) {
      if (index >= 0 && index < resultCount && !list.includes(index)) list.push(index);
    }
    markers.set(end, list);
  }
  return [...markers.entries()].filter(([, list]) => list.length).sort((a, b) => a[0] - b[0]);
}

function stepDetails(event) {
  const lines = [];
  for (const sub of event.subQueries || []) {
    lines.push(`query "${sub.text}" → ${(sub.knowledgeBases || []).join(", ") || "all knowledge bases"}`);
  }
  if (event.retrievedCount || (event.documents || []).length) {
    const from = (event.documents || []).length ? ` from ${event.documents.length} documents` : "";
    lines.push(`retrieved ${event.retrievedCount || 0}${from}`);
  }
  for (const failure of event.failures || []) lines.push(`failure: ${failure}`);
  for (const guard of (event.guardrail || []).filter((g) => g.action !== "NONE")) {
    lines.push(`guardrail ${guard.action}${guard.id ? ` (${guard.id}${guard.version ? ` v${guard.version}` : ""})` : ""}`);
  }
  for (const warning of event.warnings || []) lines.push(`warning: ${warning}`);
  for (const code of event.codeExecutions || []) lines.push(`code execution over ${(code.documents || []).join(", ") || "the evidence"}`);
  for (const memory of event.memoryRetrieves || []) lines.push(`memory "${memory.query}" → ${memory.namespace || memory.namespacePath || "memory"}`);
  if (event.appliedInstruction) lines.push(`instruction ${event.appliedInstruction.id}${event.appliedInstruction.version ? ` v${event.appliedInstruction.version}` : ""}`);
  if ((event.retrievalSources || []).length) {
    lines.push(`sources read: ${event.retrievalSources.map((s) => (s.retrievalType ? `${s.source} (${s.retrievalType})` : s.source)).join(", ")}`);
  }
  if (event.ageSeconds !== undefined && event.ageSeconds !== null) lines.push(`cached ${event.ageSeconds} s ago`);
  return lines;
}

/** The cache outcome in words; a hit says that the times and cost are the cache's, not a fresh answer's. */
export function cacheWords(done) {
  if (!done.cache) return "–";
  if (done.cache === "hit") return "hit — served from the result cache: times and cost are the cache's";
  return `${done.cache}${done.cacheReason ? ` (${done.cacheReason})` : ""}`;
}

export class RunView {
  /**
   * container: where to draw; cap: the iteration cap this request runs under (null: the tenant's, unknown);
   * compact: Compare's column (the trace folded); onCite(results, index, opener): open a passage.
   */
  constructor(container, { cap = null, compact = false, onCite = () => {}, onResults = () => {} } = {}) {
    Object.assign(this, { cap, compact, onCite, onResults });
    this.answerText = "";
    this.results = [];
    this.citations = [];
    this.done = null;
    this.failed = null;
    this.errors = [];
    this.plans = 0;
    this.steps = 0;
    this.firstEventMs = null;
    this.answerMs = null;
    this.build(container);
  }

  build(container) {
    this.phase = el("span", { className: "phase", role: "status" }, "Sending the question…");
    this.iterations = el("span", { className: "iterations" });
    this.elapsed = el("span", { className: "elapsed", role: "timer", "aria-label": "Time since the request" }, "0.0 s");
    this.failureBox = el("div", { className: "failure", role: "alert", hidden: true });
    this.trace = el("ol", { className: "trace", "aria-live": "polite", "aria-relevant": "additions" });
    this.incomplete = el("div", { className: "incomplete", hidden: true });
    this.answer = el("div", { className: "answer", "aria-live": "polite", "aria-busy": "true" });
    this.sources = el("ol", { className: "sources" });
    this.footer = el("dl", { className: "facts done", hidden: true, "aria-label": "How the request ended" });
    const footerBlock = this.compact ? el("details", { className: "done-section" }, el("summary", {}, "How it ended (done)"), this.footer) : this.footer;
    const [traceId, answerId, sourcesId] = [uid("trace"), uid("answer"), uid("sources")];
    this.traceSummary = el("span", {}, "Trace (0 steps)");
    const traceBlock = this.compact
      ? el("details", { className: "trace-section" }, el("summary", {}, this.traceSummary), this.trace)
      : el("section", { className: "trace-section", "aria-labelledby": traceId }, el("h3", { id: traceId }, "Trace"), this.trace);
    const answerBlock = el(
      "section",
      { className: "answer-section", "aria-labelledby": answerId },
      el("h3", { id: answerId }, "Answer"),
      this.incomplete,
      this.answer,
      footerBlock,
      el("h3", { id: sourcesId }, "Sources"),
      el("div", { role: "group", "aria-labelledby": sourcesId }, this.sources),
    );
    this.root = el(
      "div",
      { className: "run" },
      el("p", { className: "progress" }, this.phase, this.iterations, this.elapsed),
      this.failureBox,
      el("div", { className: "run-grid" }, traceBlock, answerBlock),
    );
    container.replaceChildren(this.root);
  }

  start() {
    this.t0 = performance.now();
    this.ticker = setInterval(() => {
      this.elapsed.textContent = seconds(performance.now() - this.t0);
    }, 100);
    this.showIterations();
  }

  handle(type, data) {
    if (ENDPOINT_EVENTS.has(type) && this.firstEventMs === null) this.firstEventMs = performance.now() - this.t0;
    const handler = { trace: this.onTrace, text: this.onText, result: this.onResult, error: this.onError, done: this.onDone, notes: this.onNotes, failure: this.onFailure }[type];
    if (handler) handler.call(this, data);
  }

  showIterations() {
    if (this.done && this.done.mode === "retrieve") {
      this.iterations.textContent = "no planner (retrieve mode)";
      return;
    }
    const cap = this.cap === null || this.cap === undefined ? "the tenant's cap" : String(this.cap);
    this.iterations.textContent = `iteration ${this.plans} of ${cap}`;
  }

  onTrace(event) {
    this.steps += 1;
    if (event.step === "Planning" && event.status === "IN_PROGRESS") {
      this.plans += 1;
      this.showIterations();
    }
    this.phase.textContent = `${event.step} ${STATUS_WORDS[event.status] || event.status.toLowerCase()}`;
    const details = stepDetails(event);
    this.trace.append(
      el(
        "li",
        { className: "step", dataset: { status: event.status, step: event.step } },
        el("span", { className: "badge" }, STATUS_WORDS[event.status] || event.status),
        " ",
        el("strong", {}, event.step),
        " ",
        el("span", { className: "ms" }, `at ${ms(event.elapsedMs)}`),
        event.message ? el("div", { className: "message" }, event.message) : null,
        details.length ? el("ul", {}, details.map((line) => el("li", {}, line))) : null,
      ),
    );
    this.traceSummary.textContent = `Trace (${this.steps} steps)`;
    this.onResults([], [event]);
  }

  onText(event) {
    if (!this.answerText) this.phase.textContent = "Writing the answer…";
    this.answerText += event.delta;
    this.answer.textContent = this.answerText;
  }

  onResult(event) {
    this.answerMs = performance.now() - this.t0;
    this.results = event.results || [];
    this.citations = event.citations || [];
    if (!this.answerText && event.answer) this.answerText = event.answer;
    this.renderAnswer();
    this.renderSources();
    if (event.note) this.answer.after(el("p", { className: "hint" }, event.note));
    this.onResults(this.results, []);
  }

  renderAnswer() {
    const chars = Array.from(this.answerText);
    const nodes = [];
    let position = 0;
    for (const [end, indexes] of markerPositions(chars.length, this.citations, this.results.length)) {
      nodes.push(chars.slice(position, end).join(""));
      for (const index of indexes) nodes.push(this.citeButton(index));
      position = end;
    }
    nodes.push(chars.slice(position).join(""));
    if (!this.answerText) nodes.push(el("span", { className: "hint" }, "No answer text (results only)."));
    this.answer.replaceChildren(...nodes);
  }

  citeButton(index) {
    const item = this.results[index];
    const button = el(
      "button",
      { type: "button", className: "cite", "aria-label": `Source ${index + 1}: ${item.knowledgeBase}, ${documentOf(item)}` },
      `[${index + 1}]`,
    );
    button.addEventListener("click", () => this.onCite(this.results, index, button));
    return button;
  }

  renderSources() {
    this.sources.replaceChildren(
      ...this.results.map((item, index) => {
        const open = el("button", { type: "button", className: "source-open" }, `[${index + 1}] ${item.knowledgeBase} · ${documentOf(item)}`);
        open.addEventListener("click", () => this.onCite(this.results, index, open));
        return el("li", { dataset: { document: documentKey(item) } }, open, el("p", { className: "snippet" }, snippet(contentOf(item))));
      }),
    );
    if (!this.results.length) this.sources.append(el("li", { className: "hint" }, "No sources."));
  }

  markShared(sharedKeys, label) {
    for (const li of this.sources.querySelectorAll("li[data-document]")) {
      if (sharedKeys.has(li.dataset.document)) li.append(el("span", { className: "shared" }, label));
    }
  }

  onError(event) {
    this.errors.push(event);
    this.showFailure(`Error in the stream: ${event.code}`, event.message, event.retryable ? "Retryable: the same request may succeed later." : null, event.code);
  }

  onDone(done) {
    this.done = done;
    if (this.answerMs === null) this.answerMs = performance.now() - this.t0;
    this.phase.textContent = `Finished: ${done.stopReason}`;
    this.plans = done.iterations;
    this.showIterations();
    if (done.stopReason !== "complete") this.markIncomplete(`Possibly incomplete (stop reason: ${done.stopReason})`, []);
    this.renderFooter(done);
  }

  onNotes(data) {
    if (this.done && this.done.stopReason !== "complete") this.markIncomplete(null, data.notes || []);
    else for (const note of data.notes || []) this.footer.before(el("p", { className: "hint" }, note));
  }

  markIncomplete(title, notes) {
    this.root.classList.add("is-incomplete");
    this.incomplete.hidden = false;
    if (title) this.incomplete.replaceChildren(el("strong", {}, title));
    for (const note of notes) this.incomplete.append(el("p", {}, note));
  }

  onFailure(failure) {
    this.failed = failure;
    this.phase.textContent = failure.stage === "refused" ? "Refused" : "Failed";
    const status = failure.status ? `HTTP ${failure.status} ` : "";
    const titles = {
      refused: `Refused before streaming: ${status}${failure.code}`,
      playground: `The playground refused the request: ${status}${failure.code}`,
      stream: `The stream broke off: ${failure.code}`,
    };
    const retry = failure.retryAfter !== undefined && failure.retryAfter !== null ? `Retry after ${failure.retryAfter} s.` : null;
    this.showFailure(titles[failure.stage] || `${failure.stage}: ${failure.code}`, failure.message, retry, failure.code);
    this.markIncomplete("No complete answer", []);
  }

  showFailure(title, message, extra, code) {
    this.failureBox.hidden = false;
    const lines = [el("p", { dataset: code ? { code } : undefined }, el("strong", {}, title))];
    if (message) lines.push(el("p", {}, message));
    if (extra) lines.push(el("p", {}, extra));
    this.failureBox.append(...lines);
  }

  renderFooter(done) {
    const rows = [
      ["Stop reason", done.stopReason === "complete" ? "complete" : `${done.stopReason} — possibly incomplete`],
      ["Iterations", `${done.iterations}${this.cap !== null && this.cap !== undefined ? ` of ${this.cap}` : ""}`],
      ["First event", `${ms(done.timeToFirstEventMs)} at the endpoint, ${ms(this.firstEventMs)} here`],
      ["Duration", `${ms(done.durationMs)} at the endpoint, answer complete after ${ms(this.answerMs)} here`],
      ["Estimated cost", `${usd(done.estimatedCostUsd)}${done.estimatedCostExcludesPlannerModel ? " — excludes the planner model's tokens (CUSTOM planner)" : ""}`],
      ["Mode", done.mode],
      ["Cache", cacheWords(done)],
    ];
    if (done.memory) rows.push(["Session", done.memory.unbound ? `answered WITHOUT the session: ${done.memory.unbound}` : `${done.memory.sessionId} (${done.memory.persistence === "none" ? "turn not saved" : "turn saved"})`]);
    if ((done.failedKnowledgeBases || []).length) rows.push(["Failed knowledge bases", done.failedKnowledgeBases.join(", ")]);
    if (done.nextToken) rows.push(["More results", "another page exists (akb ask --more 1)"]);
    rows.push(["Request id", el("code", {}, done.requestId)]);
    this.footer.replaceChildren(...rows.flatMap(([term, value]) => [el("dt", {}, term), el("dd", { dataset: { fact: term } }, value)]));
    this.footer.hidden = false;
  }

  /** The request is over: the stream ended, failed or was stopped. */
  finish(stopped = false) {
    clearInterval(this.ticker);
    this.elapsed.textContent = seconds(performance.now() - this.t0);
    this.answer.setAttribute("aria-busy", "false");
    if (!this.done && !this.failed) {
      this.onFailure({ stage: stopped ? "stopped" : "stream", code: stopped ? "stopped" : "stream_interrupted", message: stopped ? "You stopped the request; the endpoint was told to stop too." : "The stream ended before its done event." });
    }
  }

  metrics() {
    const done = this.done || {};
    return {
      firstEventMs: this.firstEventMs,
      answerMs: this.answerMs,
      durationMs: done.durationMs,
      cost: done.estimatedCostUsd,
      costExcludesPlanner: Boolean(done.estimatedCostExcludesPlannerModel),
      iterations: done.iterations,
      stopReason: done.stopReason || (this.failed ? this.failed.code : "–"),
      cache: done.cache,
      documents: new Set(this.results.map(documentKey)),
    };
  }
}
