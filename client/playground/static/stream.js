// The playground server's streaming route, read as it arrives: POST /api/query answers with
// Server-Sent Events (the endpoint's own events, plus `notes` and `failure`). EventSource cannot POST
// or send the token header, so the stream is read with fetch and parsed here (SSE framing: an
// `event:` line, `data:` lines, a blank line).

import { token } from "./dom.js";

/** Splits SSE text into frames; returns the frames and the unfinished rest. */
export function splitFrames(buffer) {
  const frames = [];
  let rest = buffer.replace(/\r\n/g, "\n");
  let cut;
  while ((cut = rest.indexOf("\n\n")) >= 0) {
    const frame = parseFrame(rest.slice(0, cut));
    if (frame) frames.push(frame);
    rest = rest.slice(cut + 2);
  }
  return { frames, rest };
}

function parseFrame(text) {
  let type = "message";
  const data = [];
  for (const line of text.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") type = value;
    else if (name === "data") data.push(value);
  }
  if (!data.length) return null;
  return { type, data: JSON.parse(data.join("\n")) };
}

/**
 * Sends one query and calls onFrame(type, data) for each frame the moment it is complete.
 * A refusal by the playground server itself (bad token, bad body) arrives as a `failure` frame too.
 * Rejects with an AbortError when `signal` aborts (Stop).
 */
export async function streamQuery(body, { signal, onFrame }) {
  const response = await fetch("/api/query", {
    method: "POST",
    headers: { "content-type": "application/json", "x-playground-token": token() },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    let error = { code: `http_${response.status}`, message: response.statusText };
    try {
      error = (await response.json()).error || error;
    } catch {
      // not JSON: keep the status line
    }
    onFrame("failure", { stage: "playground", status: response.status, ...error });
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    const split = splitFrames(buffer + value);
    buffer = split.rest;
    for (const frame of split.frames) onFrame(frame.type, frame.data);
  }
}
