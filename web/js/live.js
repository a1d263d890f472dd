// The live feed (/api/events): server-sent events read with fetch (which can send the
// session header; EventSource cannot). Each event carries what changed (the note as
// it is now, the counts, the provider's health), so the page reads nothing back after
// one. When the feed ends the page says the service is offline, drops its access (the
// next connection proves the service first: api.js, proof.js) and connects again after
// 0.5 s, doubling to 10 s; every (re)connection catches up on what was missed (the
// list, the open view, a note saved while the service was away), and the service
// sends the last counts and health first.
//
// Each event handled is announced as an `inkling:event` DOM event with how long its
// handler took (the benchmark's "page's work per event").

import * as api from "./api.js";
import { showRecoveryToast } from "./banners.js";
import { clearUnreachable } from "./dom.js";
import { saveWhenBack } from "./capture.js";
import { loadNotes, noteChanged } from "./notes.js";
import { loadDetail } from "./note-view.js";
import { loadTags } from "./tags.js";
import { loadTrash } from "./trash.js";
import { state, update } from "./store.js";

const handlers = {
  counts(counts) {
    update((s) => (s.service.counts = counts));
  },
  ollama_status(health) {
    const wasDown = state.service.health && state.service.health.state !== "ready";
    update((s) => (s.service.health = health));
    if (wasDown && health.state === "ready") showRecoveryToast();
  },
  note_changed(data) {
    noteChanged(data.note);
  },
  note_slow(slow) {
    update((s) => {
      s.service.slow = new Map(s.service.slow);
      s.service.slow.set(slow.note_id, slow);
    });
  },
  model_pull(data) {
    update((s) => (s.service.pull = data));
  },
  notes_changed() {
    // Many at once (a retry-all): one reload.
    loadNotes();
    const view = state.place.view;
    if (view === "trash") loadTrash();
    if (view === "tags") loadTags();
    if (view === "note") loadDetail();
  },
};

// One frame of text/event-stream: its event name and data, or null for a comment.
function parseFrame(frame) {
  let event = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    if (field === "data") data.push(value);
  }
  return data.length ? { event, data: data.join("\n") } : null;
}

function handle(frame) {
  const handler = frame && handlers[frame.event];
  if (!handler) return;
  const started = performance.now();
  // A page bug in one handler must not end the feed (and so the updates).
  try {
    handler(JSON.parse(frame.data));
  } catch (error) {
    console.error(error);
  }
  document.dispatchEvent(new CustomEvent("inkling:event", { detail: { event: frame.event, ms: performance.now() - started } }));
}

function setOffline(offline) {
  if (state.service.offline === offline) return;
  update((s) => (s.service.offline = offline));
}

// After a failed attempt the next waits longer, up to 10 s (a restart of the service
// takes a second or two; a stopped one is not worth more than a try every 10 s).
let retryMs = 500;

/// Reads the live feed until it ends, then connects again. While there is no feed the
/// page says the service is not running; the draft stays in the box.
export async function connectLive() {
  for (;;) {
    try {
      const response = await api.events();
      if (!response) return; // signed out
      if (response.ok && response.body) {
        retryMs = 500;
        setOffline(false);
        // Reachable again: "isn't reachable" under the capture box is no longer true.
        clearUnreachable();
        saveWhenBack();
        // Once the list is loaded afresh, the page is live: said on <html> (styles and
        // the browser tests wait for it; until then the list may be loaded again).
        loadNotes().then(
          () => (document.documentElement.dataset.live = "connected"),
          () => {},
        );
        if (state.place.view === "trash") loadTrash();
        if (state.place.view === "note") loadDetail();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          let end;
          while ((end = buffered.indexOf("\n\n")) >= 0) {
            handle(parseFrame(buffered.slice(0, end)));
            buffered = buffered.slice(end + 2);
          }
        }
      }
    } catch (error) {
      // The service is not there (yet), or what answers did not prove it is inkling:
      // try again below.
    }
    // Whatever answers next proves itself before it is sent anything.
    delete document.documentElement.dataset.live;
    api.connectionLost();
    setOffline(true);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
    retryMs = Math.min(retryMs * 2, 10000);
  }
}
