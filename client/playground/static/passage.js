// The passage dialog: what a citation marker or a source opens. It shows the cited passage, where it
// comes from (knowledge base, document, source URI, metadata), and its document: the whole text when
// the playground can read it (an `akb local` corpus, and only documents this run's answers returned),
// otherwise the passages of that document the answer retrieved.

import { contentOf, documentKey, documentOf, el, sourceUri, token } from "./dom.js";

const SOURCE_URI = "x-amz-bedrock-kb-source-uri";

/** The passage's span in the document: its words in order, any whitespace between them. */
export function findPassage(documentText, passage) {
  const words = (passage || "").split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const pattern = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+");
  const match = new RegExp(pattern).exec(documentText);
  return match ? { start: match.index, end: match.index + match[0].length } : null;
}

async function wholeDocument(item) {
  if (!item.documentId) return { problem: "This source names no document id." };
  const query = new URLSearchParams({ kb: item.knowledgeBase, id: item.documentId });
  const response = await fetch(`/api/document?${query}`, { headers: { "x-playground-token": token() } });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) return { problem: (body.error && body.error.message) || `HTTP ${response.status}` };
  return { text: body.text };
}

function pairs(rows) {
  return rows.flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]);
}

function facts(item) {
  const rows = [
    ["Knowledge base", item.knowledgeBase],
    ["Document", documentOf(item)],
  ];
  if (sourceUri(item)) rows.push(["Source URI", el("code", {}, sourceUri(item))]);
  if (item.mimeType) rows.push(["Content", `${item.contentType || ""} ${item.mimeType}`.trim()]);
  const metadata = Object.entries(item.metadata || {}).filter(([key]) => key !== SOURCE_URI);
  const nodes = pairs(rows);
  if (metadata.length) {
    const values = metadata.map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]);
    nodes.push(el("dt", {}, "Metadata"), el("dd", {}, el("details", {}, el("summary", {}, `${metadata.length} attributes`), el("dl", { className: "facts" }, pairs(values)))));
  }
  return nodes;
}

export class PassageDialog {
  constructor(dialog) {
    this.dialog = dialog;
    this.title = dialog.querySelector("#passage-title");
    this.facts = dialog.querySelector("#passage-facts");
    this.text = dialog.querySelector("#passage-text");
    this.note = dialog.querySelector("#passage-document-note");
    this.document = dialog.querySelector("#passage-document");
    dialog.querySelector("#passage-close").addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      if (this.opener && this.opener.isConnected) this.opener.focus(); // back where the reader was
    });
  }

  async open(results, index, opener) {
    const item = results[index];
    this.opener = opener;
    this.title.textContent = `Source ${index + 1}: ${item.knowledgeBase} · ${documentOf(item)}`;
    this.facts.replaceChildren(...facts(item));
    this.text.textContent = contentOf(item);
    this.note.textContent = "Loading the document…";
    this.document.replaceChildren();
    this.dialog.showModal();
    this.dialog.querySelector("#passage-close").focus();
    const whole = await wholeDocument(item);
    if (whole.text !== undefined) this.showWhole(whole.text, item.text);
    else this.showRetrieved(results, item, whole.problem);
  }

  showWhole(text, passage) {
    const span = findPassage(text, passage);
    if (!span) {
      this.note.textContent = "The whole document (the passage's words were not found in it in order).";
      this.document.textContent = text;
      return;
    }
    this.note.textContent = "The whole document; the cited passage is highlighted.";
    const mark = el("mark", {}, text.slice(span.start, span.end));
    this.document.replaceChildren(text.slice(0, span.start), mark, text.slice(span.end));
    this.document.scrollTop = Math.max(0, mark.offsetTop - this.document.offsetTop - 16); // the box scrolls, not the page
  }

  showRetrieved(results, item, problem) {
    const siblings = results.filter((other) => documentKey(other) === documentKey(item));
    this.note.textContent = `${problem} The passages of this document that this answer retrieved (${siblings.length}):`;
    this.document.replaceChildren(
      el("ol", {}, siblings.map((other) => el("li", {}, other === item ? el("mark", {}, contentOf(other)) : contentOf(other)))),
    );
  }
}
