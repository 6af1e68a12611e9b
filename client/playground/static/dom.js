// Small DOM helpers shared by the page's modules. Text always goes in as text nodes (never innerHTML),
// so nothing an endpoint or a document says can become markup.

/** el("p", {className: "hint"}, "text", childNode, ...): an element with properties and children. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "className") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** This run's token, embedded in the page by the server; sent back on every /api/ call. */
export function token() {
  return document.querySelector('meta[name="akb-playground-token"]').content;
}

let counter = 0;
/** A document-unique id with a readable prefix (labels and aria-labelledby need ids). */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

export function ms(value) {
  return value === null || value === undefined ? "–" : `${Math.round(value)} ms`;
}

export function seconds(milliseconds) {
  return `${(milliseconds / 1000).toFixed(1)} s`;
}

export function usd(value) {
  return value === null || value === undefined ? "–" : `$${value.toFixed(4)}`;
}

const SOURCE_URI = "x-amz-bedrock-kb-source-uri";

/** Where a result comes from: its document id, else its source URI. */
export function documentOf(item) {
  return item.documentId || (item.metadata && item.metadata[SOURCE_URI]) || "–";
}

export function sourceUri(item) {
  return (item.metadata && item.metadata[SOURCE_URI]) || null;
}

/** The document a result belongs to, as one string: what compare's overlap counts. */
export function documentKey(item) {
  return `${item.knowledgeBase}/${documentOf(item)}`;
}

export function snippet(text, limit = 160) {
  const flat = (text || "").replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1).trimEnd()}…`;
}

/** A non-text result (image, audio, ...) as a line of text, as `akb ask` prints it. */
export function contentOf(item) {
  if (item.text || !item.mimeType || item.contentType === "TEXT") return item.text || "";
  const size = item.byteSize !== undefined && item.byteSize !== null ? `, ${item.byteSize} bytes` : "";
  return `[${(item.contentType || "OTHER").toLowerCase()} result: ${item.mimeType}${size}]`;
}
