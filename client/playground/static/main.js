// The page's wiring: reads the tenant, builds the request from the form, runs Ask or Compare, and keeps
// what the answers teach (aliases seen, metadata keys) for the next question. Everything is keyboard
// operable with native controls; Ctrl+Enter (or ⌘+Enter) in the form asks.

import { Comparison } from "./compare.js";
import { el, token } from "./dom.js";
import { FilterBuilder } from "./filter-builder.js";
import { PassageDialog } from "./passage.js";
import { RunView } from "./run-view.js";
import { streamQuery } from "./stream.js";

const $ = (selector) => document.querySelector(selector);
const state = { tenant: null, controller: null, sessionId: null, learnedAliases: new Set(), metadataKeys: new Set() };

const passage = new PassageDialog($("#passage"));
const openPassage = (results, index, opener) => passage.open(results, index, opener);
const filters = new FilterBuilder({
  rows: $("#filter-rows"),
  add: $("#filter-add"),
  join: $("#filter-join"),
  json: $("#filter-json"),
  preview: $("#filter-preview"),
  error: $("#filter-error"),
  summary: $("#filter-summary"),
});

function describeTarget(tenant) {
  const who = tenant.tenant ? `Tenant ${tenant.tenant} (${tenant.environment})` : "Endpoint given by URL";
  const signing = tenant.signed ? `signed with your AWS credentials (SigV4, ${tenant.region || "region from the URL"})` : "unsigned (local)";
  return `${who} · ${tenant.url} · ${tenant.source} · ${signing}`;
}

function kbItem(alias, description, seen) {
  const id = `kb-${alias.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const hintId = `${id}-hint`;
  return el(
    "li",
    {},
    el("label", {}, el("input", { type: "checkbox", name: "kb", value: alias, id, "aria-describedby": hintId }), alias),
    el("span", { id: hintId, className: "hint" }, seen ? "seen in an answer (no description: the endpoint was given by URL)" : description),
  );
}

function showTenant(tenant) {
  state.tenant = tenant;
  $("#target").textContent = describeTarget(tenant);
  document.title = tenant.tenant ? `akb playground · ${tenant.tenant}` : "akb playground";
  $("#kb-list").replaceChildren(...tenant.knowledgeBases.map((kb) => kbItem(kb.alias, kb.description, false)));
  $("#kb-typed").hidden = tenant.knowledgeBases.length > 0;
  const mode = document.querySelector(`input[name="mode"][value="${tenant.defaultMode}"]`) || document.querySelector('input[name="mode"]');
  mode.checked = true;
  if (tenant.tenant) mode.closest("label").append(el("span", { className: "hint" }, " (the tenant's default)"));
  if (tenant.maxAgentIteration !== null) $("#max-iterations-hint").textContent = `Empty: the tenant's default, ${tenant.maxAgentIteration} (also its cap: above it the endpoint refuses).`;
  if (tenant.maxResults !== null) $("#max-results-hint").textContent = `Empty: the tenant's default, ${tenant.maxResults} (also its cap).`;
  $("#generate").checked = tenant.generateResponse;
  if (tenant.conversations === false) {
    $("#session-unavailable").hidden = false;
    $("#session-controls").hidden = true;
  }
}

function learn(results, traces) {
  const aliases = [...results.map((item) => item.knowledgeBase), ...traces.flatMap((event) => (event.subQueries || []).flatMap((sub) => sub.knowledgeBases || []))];
  if (state.tenant && !state.tenant.knowledgeBases.length) {
    for (const alias of aliases) {
      if (alias && !state.learnedAliases.has(alias)) {
        state.learnedAliases.add(alias);
        $("#kb-list").append(kbItem(alias, "", true));
      }
    }
  }
  for (const item of results) {
    for (const key of Object.keys(item.metadata || {})) {
      if (!key.startsWith("x-amz-bedrock-kb-") && !state.metadataKeys.has(key)) {
        state.metadataKeys.add(key);
        $("#metadata-keys").append(el("option", { value: key }));
      }
    }
  }
}

function integerField(input, name) {
  input.removeAttribute("aria-invalid");
  if (input.value.trim() === "") return undefined;
  const value = Number(input.value);
  if (!Number.isInteger(value)) {
    input.setAttribute("aria-invalid", "true");
    throw Object.assign(new Error(`${name} must be a whole number`), { field: input });
  }
  return value;
}

function chosenAliases() {
  const ticked = [...document.querySelectorAll('input[name="kb"]:checked')].map((box) => box.value);
  const typed = $("#kb-typed").hidden ? [] : $("#kb-aliases").value.split(",").map((alias) => alias.trim()).filter(Boolean);
  return [...new Set([...ticked, ...typed])];
}

/** The endpoint's request body from the form; throws an Error with `.field` when something is wrong. */
function requestBody() {
  const question = $("#question");
  question.removeAttribute("aria-invalid");
  if (!question.value.trim()) {
    question.setAttribute("aria-invalid", "true");
    throw Object.assign(new Error("Write a question first."), { field: question });
  }
  const body = { question: question.value };
  const mode = document.querySelector('input[name="mode"]:checked');
  if (mode) body.mode = mode.value;
  const aliases = chosenAliases();
  if (aliases.length) body.knowledgeBases = aliases;
  const { filter, problem, field } = filters.value();
  if (problem) {
    $("#filter-section").open = true;
    throw Object.assign(new Error(problem), { field });
  }
  if (filter) body.filter = filter;
  const iterations = integerField($("#max-iterations"), "Planner iterations");
  if (iterations !== undefined) body.maxAgentIteration = iterations;
  const results = integerField($("#max-results"), "Results per knowledge base");
  if (results !== undefined) body.maxResults = results;
  if ($("#generate").checked !== state.tenant.generateResponse) body.generateResponse = $("#generate").checked;
  if ($("#user-id").value.trim()) body.userId = $("#user-id").value.trim();
  if ($("#session-on").checked && !$("#session-controls").hidden) {
    body.sessionId = state.sessionId || newSession();
    if ($("#session-no-save").checked) body.persistence = "none";
  }
  return body;
}

function newSession() {
  state.sessionId = crypto.randomUUID();
  $("#session-id").textContent = state.sessionId;
  return state.sessionId;
}

function formProblem(error) {
  $("#compare-error").textContent = "";
  const box = $("#form-error") || el("p", { id: "form-error", className: "field-error", role: "alert" });
  $(".actions").before(box);
  box.textContent = error.message;
  if (error.field) error.field.focus();
}

function running(on, controller = null) {
  state.controller = controller;
  $("#stop").disabled = !on;
  $("#ask").disabled = on;
  $("#compare").disabled = on;
}

async function runInto(view, body, signal) {
  view.start();
  let stopped = false;
  try {
    await streamQuery(body, { signal, onFrame: (type, data) => view.handle(type, data) });
  } catch (error) {
    if (error.name === "AbortError") stopped = true;
    else view.handle("failure", { stage: "playground", code: "network", message: `The playground server could not be reached: ${error.message}` });
  }
  view.finish(stopped);
}

/** On a narrow window the results are below the form: scroll them up (focus stays on the button). */
function bringIntoView(section) {
  if (section.getBoundingClientRect().top > window.innerHeight * 0.6) section.scrollIntoView({ block: "start" });
}

function capFor(body) {
  return body.maxAgentIteration !== undefined ? body.maxAgentIteration : state.tenant.maxAgentIteration;
}

/** The request body, or null once the form says what is wrong (focus on the field). */
function checkedBody() {
  try {
    const body = requestBody();
    if ($("#form-error")) $("#form-error").textContent = "";
    return body;
  } catch (error) {
    formProblem(error);
    return null;
  }
}

async function ask() {
  const body = checkedBody();
  if (!body) return;
  $("#comparison").hidden = true;
  $("#single").hidden = false;
  bringIntoView($("#single"));
  const view = new RunView($("#single-run"), { cap: capFor(body), onCite: openPassage, onResults: learn });
  const controller = new AbortController();
  running(true, controller);
  await runInto(view, body, controller.signal);
  running(false);
}

const comparison = new Comparison({ columns: $("#compare-columns"), table: $("#overlap-table"), pending: $("#overlap-pending"), onCite: openPassage, onResults: learn });

async function compare() {
  const modes = [...document.querySelectorAll('input[name="compare-mode"]:checked')].map((box) => box.value);
  if (modes.length < 2) {
    $("#compare-error").textContent = "Tick two or three modes to compare.";
    document.querySelector('input[name="compare-mode"]').focus();
    return;
  }
  const body = checkedBody();
  if (!body) return;
  $("#compare-error").textContent = "";
  delete body.sessionId; // a comparison is not a turn of the conversation
  delete body.persistence;
  $("#single").hidden = true;
  $("#comparison").hidden = false;
  bringIntoView($("#comparison"));
  const controller = new AbortController();
  running(true, controller);
  const views = comparison.layout(modes, capFor(body));
  await Promise.all(views.map((entry) => runInto(entry.view, { ...body, mode: entry.mode }, controller.signal)));
  comparison.settle();
  running(false);
}

$("#ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  ask();
});
$("#ask-form").addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !$("#ask").disabled) {
    event.preventDefault();
    ask();
  }
});
$("#compare").addEventListener("click", compare);
$(".skip-link").addEventListener("click", (event) => {
  event.preventDefault();
  $("#question").focus();
});
$("#stop").addEventListener("click", () => state.controller && state.controller.abort());
$("#session-new").addEventListener("click", newSession);
$("#session-on").addEventListener("change", () => {
  if ($("#session-on").checked && !state.sessionId) newSession();
});

async function loadTenant() {
  const response = await fetch("/api/tenant", { headers: { "x-playground-token": token() } });
  if (!response.ok) {
    $("#target").textContent = `The playground server refused to describe the tenant (HTTP ${response.status}): reload the address akb playground printed.`;
    return;
  }
  showTenant(await response.json());
  document.body.dataset.ready = "true";
}

loadTenant();
