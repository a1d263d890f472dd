// inkling's notes page: start-up and wiring, the entry module. Plain JavaScript
// modules, no build step, no external library: the page must work offline, served from
// the binary, under a Content-Security-Policy that allows only this origin's scripts.
// The modules are web/js/<name>.js, served at /assets/<run>/<name>.js (<run> fresh for
// each start of the service: src/http/routes/page.rs), so they import each other as
// "./<name>.js".
//
// The modules, by what they own: store.js (the state, and the one update that
// schedules a render), api.js (the session and every API path), i18n.js (words),
// navigation.js (the view and the address), keyed-list.js (the one list renderer),
// card.js (a note's card, a pure view), notes.js (the list and its paging), note-view.js
// (one note), related.js (a note's related notes), ask.js (the Ask box), edit.js,
// capture.js, voice.js (the microphone button) and wav.js (a recording as WAV), banners.js, trash.js, tags.js, stats.js, transfer.js, live.js (the live
// feed), keys.js, facts.js (the service's rules, as it sends them), dom.js (element
// makers), proof.js (the page's key, the proofs it trades with the service, no service
// workers).

import * as api from "./api.js";
import { removeServiceWorkers } from "./proof.js";
import { applyStrings } from "./i18n.js";
import { $ } from "./dom.js";
import { wireAsk } from "./ask.js";
import { wireBanners } from "./banners.js";
import { restoreDraft, wireCapture } from "./capture.js";
import { wireKeys } from "./keys.js";
import { connectLive } from "./live.js";
import { goBack, readAddress, setSearch, showView } from "./navigation.js";
import { beginListLoad, showList, wireNotes } from "./notes.js";
import { wireTransfer } from "./transfer.js";
import { wireTrash } from "./trash.js";
import { wireVoice } from "./voice.js";
import "./note-view.js";
import "./stats.js";
import "./tags.js";
import { state, update } from "./store.js";

// The session ended (expired, or `inkling logout --all`): say how to open the page.
api.onSignedOut(() => {
  $("app").hidden = true;
  $("views").hidden = true;
  $("no-session").hidden = false;
});

function applyStatus(status) {
  update(({ service }) => {
    service.counts = status.counts;
    service.expiryDays = status.expiry_days;
    service.maxAttempts = status.max_attempts || service.maxAttempts;
    service.limits = status.limits;
    if (status.provider) service.health = status.provider;
    service.modelServer = status.model_server || "ollama";
    const slow = new Map(service.slow);
    for (const note of (status.worker && status.worker.slow_notes) || []) slow.set(note.note_id, note);
    service.slow = slow;
  });
}

function wireControls() {
  for (const tab of document.querySelectorAll("#views button[data-view]")) {
    tab.addEventListener("click", () => showView(tab.dataset.view, { push: true }));
  }
  $("help-open").addEventListener("click", () => $("help").showModal());
  $("help-close").addEventListener("click", () => $("help").close());
  $("back").addEventListener("click", goBack);
  wireCapture();
  wireVoice();
  wireBanners();
  wireNotes();
  wireTrash();
  wireTransfer();
  wireKeys();
  wireAsk();
  // Results as you type: the list follows the box once typing pauses.
  let typing = null;
  $("search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => setSearch($("search").value.trim()), 150);
  });
}

// inkling has no service worker: one here was registered by another program's page
// while inkling was stopped. Each is removed before anything else; a page loaded
// through one is loaded again without it. Whether the page is being loaded again.
async function leaveServiceWorkers() {
  const controlled = Boolean(navigator.serviceWorker && navigator.serviceWorker.controller);
  await removeServiceWorkers().catch((error) => console.error(error));
  if (!controlled || (await navigator.serviceWorker.getRegistrations()).length) return false;
  location.reload();
  return true;
}

async function start() {
  if (await leaveServiceWorkers()) return;
  // The strings, the status and the first page are asked for at once: the first cards
  // wait for one round trip, not three in a row.
  const strings = api.strings();
  const params = new URLSearchParams(location.search);
  // `inkling open` and the tray give a one-time code: the only way in by address. A
  // token in the address is not used (an address is seen by `ps` and kept in the
  // history: the token would open every note for good), only dropped from the bar.
  const code = params.get("code");
  if (code) await api.openSession({ code });
  if (params.has("code") || params.has("token")) {
    params.delete("code");
    params.delete("token");
    history.replaceState(null, "", params.size ? `/?${params}` : "/");
  }
  readAddress();
  const firstPage = beginListLoad();
  let status;
  let all;
  let page;
  try {
    [all, status, page] = await Promise.all([strings, api.status(), firstPage]);
  } catch (error) {
    if (error instanceof api.NoSession) {
      applyStrings(await strings, navigator.language && navigator.language.startsWith("ko") ? "ko" : "en");
      return;
    }
    throw error;
  }
  applyStrings(all, status.locale);
  $("app").hidden = false;
  $("views").hidden = false;
  applyStatus(status);
  // The cards first; what only matters once a person acts comes after.
  showList(page);
  wireControls();
  // A thought half typed survives a reload or a crash, and the capture box is where
  // typing goes.
  restoreDraft();
  showView(state.place.view, { address: false });
  if (state.place.view === "inbox") $("capture-body").focus();
  connectLive();
}

start().catch((error) => {
  console.error(error);
});
