// The metadata filter builder: rows of {key, operator, value} combined with andAll/orAll, or the filter
// written as JSON. It produces the endpoint's `filter` field, Bedrock's RetrievalFilter (docs/endpoint.md);
// the endpoint checks it and names the spot when something is wrong, and that message is shown as is.

import { el, uid } from "./dom.js";

// Every attribute operator of RetrievalFilter and the value it takes (docs/endpoint.md, the `filter` row).
// tests/client/playground checks this list against the endpoint's own (lambdas/endpoint/filters.py).
export const OPERATORS = {
  equals: { kind: "scalar", hint: "the value equals" },
  notEquals: { kind: "scalar", hint: "the value differs" },
  greaterThan: { kind: "number", hint: "a number above" },
  greaterThanOrEquals: { kind: "number", hint: "a number at least" },
  lessThan: { kind: "number", hint: "a number below" },
  lessThanOrEquals: { kind: "number", hint: "a number at most" },
  in: { kind: "list", hint: "one of a comma-separated list" },
  notIn: { kind: "list", hint: "none of a comma-separated list" },
  startsWith: { kind: "text", hint: "text starting with" },
  listContains: { kind: "scalar", hint: "a list attribute containing" },
  stringContains: { kind: "text", hint: "text containing" },
};
const TYPES_BY_KIND = { scalar: ["text", "number", "boolean"], number: ["number"], text: ["text"], list: ["text", "number"] };
const TYPE_LABELS = { text: "text", number: "number", boolean: "true / false" };

function typed(raw, type, where) {
  const text = raw.trim();
  if (type === "number") {
    const number = Number(text);
    if (text === "" || !Number.isFinite(number)) throw new Error(`${where}: "${raw}" is not a number`);
    return number;
  }
  if (type === "boolean") {
    if (text !== "true" && text !== "false") throw new Error(`${where}: write true or false`);
    return text === "true";
  }
  return raw;
}

export class FilterBuilder {
  constructor({ rows, add, join, json, preview, error, summary, onChange = () => {} }) {
    Object.assign(this, { rows, join, json, preview, error, summary, onChange });
    add.addEventListener("click", () => {
      const row = this.addRow();
      row.querySelector("input").focus();
    });
    join.addEventListener("change", () => this.update());
    json.addEventListener("input", () => this.update());
    this.update();
  }

  addRow() {
    const ids = { key: uid("filter-key"), op: uid("filter-op"), value: uid("filter-value"), type: uid("filter-type"), hint: uid("filter-hint") };
    const operator = el("select", { id: ids.op, "aria-describedby": ids.hint }, Object.keys(OPERATORS).map((name) => el("option", { value: name }, name)));
    const type = el("select", { id: ids.type });
    const legend = el("legend");
    const remove = el("button", { type: "button", className: "remove" });
    const hint = el("p", { id: ids.hint, className: "hint wide" });
    const row = el(
      "li",
      {},
      el(
        "fieldset",
        { className: "filter-row" },
        legend,
        el("div", { className: "field" }, el("label", { for: ids.key }, "Key"), el("input", { id: ids.key, type: "text", list: "metadata-keys", autocomplete: "off", spellcheck: "false", className: "filter-key" })),
        el("div", { className: "field" }, el("label", { for: ids.op }, "Operator"), operator),
        el("div", { className: "field" }, el("label", { for: ids.value }, "Value"), el("input", { id: ids.value, type: "text", autocomplete: "off", spellcheck: "false", className: "filter-value" })),
        el("div", { className: "field" }, el("label", { for: ids.type }, "Value type"), type),
        hint,
        remove,
      ),
    );
    const syncTypes = () => {
      const spec = OPERATORS[operator.value];
      const current = type.value;
      type.replaceChildren(...TYPES_BY_KIND[spec.kind].map((name) => el("option", { value: name }, TYPE_LABELS[name])));
      if (TYPES_BY_KIND[spec.kind].includes(current)) type.value = current;
      type.disabled = TYPES_BY_KIND[spec.kind].length === 1;
      hint.textContent = `${operator.value}: ${spec.hint}.`;
    };
    operator.addEventListener("change", () => {
      syncTypes();
      this.update();
    });
    row.addEventListener("input", () => this.update());
    type.addEventListener("change", () => this.update());
    remove.addEventListener("click", () => {
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      this.renumber();
      this.update();
      (next ? next.querySelector("input") : this.rows.closest(".panel-body").querySelector("#filter-add")).focus();
    });
    syncTypes();
    this.rows.append(row);
    this.renumber();
    this.update();
    return row;
  }

  renumber() {
    [...this.rows.children].forEach((row, index) => {
      row.querySelector("legend").textContent = `Condition ${index + 1}`;
      row.querySelector("button.remove").textContent = `Remove condition ${index + 1}`;
    });
  }

  conditions() {
    const conditions = [];
    [...this.rows.children].forEach((row, index) => {
      const where = `Condition ${index + 1}`;
      const [key, value] = [row.querySelector(".filter-key"), row.querySelector(".filter-value")];
      const [operator, type] = row.querySelectorAll("select");
      if (!key.value.trim() && !value.value.trim()) return; // an empty row is not a condition
      try {
        if (!key.value.trim()) throw Object.assign(new Error(`${where}: the key is empty`), { field: key });
        const spec = OPERATORS[operator.value];
        let parsed;
        try {
          if (spec.kind === "list") {
            const items = value.value.split(",").map((item) => item.trim()).filter(Boolean);
            if (!items.length) throw new Error(`${where}: list at least one value, separated by commas`);
            parsed = items.map((item) => typed(item, type.value, where));
          } else {
            if (spec.kind === "text" && !value.value) throw new Error(`${where}: the text is empty`);
            parsed = typed(value.value, type.value, where);
          }
        } catch (problem) {
          throw Object.assign(problem, { field: value });
        }
        conditions.push({ [operator.value]: { key: key.value.trim(), value: parsed } });
      } catch (problem) {
        problem.field.setAttribute("aria-invalid", "true");
        throw problem;
      }
    });
    return conditions;
  }

  /** { filter, problem }: the filter to send (null: none), or what is wrong with it. */
  value() {
    for (const field of this.rows.querySelectorAll("[aria-invalid]")) field.removeAttribute("aria-invalid");
    this.json.removeAttribute("aria-invalid");
    if (this.json.value.trim()) {
      try {
        const parsed = JSON.parse(this.json.value);
        if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("it must be a JSON object, e.g. {\"equals\": {\"key\": \"team\", \"value\": \"api\"}}");
        return { filter: parsed, problem: null, source: "JSON" };
      } catch (problem) {
        this.json.setAttribute("aria-invalid", "true");
        return { filter: null, problem: `The JSON filter: ${problem.message}`, field: this.json };
      }
    }
    try {
      const conditions = this.conditions();
      if (!conditions.length) return { filter: null, problem: null, source: "none" };
      if (conditions.length === 1) return { filter: conditions[0], problem: null, source: "1 condition" };
      return { filter: { [this.join.value]: conditions }, problem: null, source: `${conditions.length} conditions` };
    } catch (problem) {
      return { filter: null, problem: problem.message, field: problem.field };
    }
  }

  update() {
    const { filter, problem, source } = this.value();
    this.preview.textContent = filter ? JSON.stringify(filter) : "no filter";
    this.error.textContent = problem || "";
    this.summary.textContent = problem ? "(has a problem)" : `(${source})`;
    this.onChange();
  }
}
