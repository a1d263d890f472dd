// inkling inbox page. Plain JavaScript, no build step, no external library: the page
// must work offline, served from the binary.
//
// Data comes from the local API with the page's session (src/sessions.rs), kept in this
// origin's localStorage and sent as `Authorization: Bearer` (never a cookie: browsers
// send those to every port of 127.0.0.1). Live changes arrive as server-sent events
// from /api/events, read with fetch (which can send the header; EventSource cannot),
// and each carries what changed (the note as it is now, the counts), so the page reads
// nothing back after an event.
// Note text is always inserted with textContent, never as HTML.
"use strict";

const PAGE_SIZE = 50;
const SEARCH_SIZE = 100;

const state = {
  strings: {},
  locale: "en",
  counts: { pending: 0, failed: 0, expired: 0 },
  health: null, // {state: "ready" | "model_missing" | "not_running", ...}
  slow: new Map(), // note id → {timeouts, request_timeout_ms, next_deadline_ms}: notes the AI takes too long on
  pull: null, // the model download: {state: "running" | "done" | "failed", status, completed, total, error}
  filter: { tag: null, expired: false },
  // The words in the search box: while there are any, the list is their hits, best
  // first, one page (a search is ranked, not paged by date).
  search: "",
  view: "inbox",
  // The note being edited in place: its card is kept as it is (the form, what is
  // typed, the focus) while live events re-render the list around it.
  editing: null,
  notes: [], // the inbox list, newest first
  hasMore: false,
  expiryDays: 30,
  // Counts and the provider's health come only from live events (the service sends
  // the last ones when the feed connects), in order on one connection: nothing can
  // overtake them. A list, though, is asked for on another connection and can be
  // overtaken by a note's event: `listLoads` numbers list loads (only the newest
  // applies), and `changedDuringLoad` keeps the notes that changed while one was in
  // flight, applied over the list once it is in.
  listLoads: 0,
  changedDuringLoad: null,
};

const $ = (id) => document.getElementById(id);

function t(key, values = {}) {
  let text = state.strings[key] ?? key;
  for (const [name, value] of Object.entries(values)) {
    text = text.split(`{${name}}`).join(String(value));
  }
  return text;
}

// ----- the API -------------------------------------------------------------------

class NoSession extends Error {}

const SESSION_KEY = "inkling.session";
// The capture box's text not saved yet.
const DRAFT_KEY = "inkling.draft";

function session() {
  return localStorage.getItem(SESSION_KEY);
}

function withSession(headers = {}) {
  const held = session();
  return held ? { ...headers, Authorization: `Bearer ${held}` } : headers;
}

// The session ended (expired, or `inkling logout --all`): say how to open the page.
function signedOut() {
  localStorage.removeItem(SESSION_KEY);
  $("app").hidden = true;
  $("views").hidden = true;
  $("no-session").hidden = false;
}

async function api(path, options = {}) {
  const init = { credentials: "omit", ...options };
  init.headers = withSession();
  if (options.json !== undefined) {
    init.method = init.method || "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(options.json);
  }
  const response = await fetch(path, init);
  if (response.status === 401) {
    signedOut();
    throw new NoSession();
  }
  const type = response.headers.get("content-type") || "";
  // NDJSON (a download's progress) is read as text: it is followed on the live feed.
  const body = type.includes("application/json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error(body && body.error ? body.error : `HTTP ${response.status}`);
  return body;
}

// ----- start-up --------------------------------------------------------------------

async function start() {
  const all = await (await fetch("/assets/i18n.json")).json();
  const params = new URLSearchParams(location.search);
  // `inkling open` and the tray give a one-time code; scripts may give the token.
  const code = params.get("code");
  const token = params.get("token");
  if (code || token) {
    // Trade it for a session, kept in this origin's storage, then drop it from the
    // address bar. A used or stale code keeps the session the page may already hold.
    const response = await fetch("/session", {
      method: "POST",
      credentials: "omit",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(code ? { code } : { token }),
    });
    if (response.ok) {
      // The session this page held, if any, is replaced: end it rather than leave it
      // to expire (each `inkling open` makes a new one).
      const old = session();
      localStorage.setItem(SESSION_KEY, (await response.json()).session);
      if (old) {
        await fetch("/api/session/end", {
          method: "POST",
          credentials: "omit",
          headers: { Authorization: `Bearer ${old}`, "Content-Type": "application/json" },
          body: "{}",
        }).catch(() => {});
      }
    }
    history.replaceState(null, "", "/");
  }
  let status;
  try {
    status = await api("/api/status");
  } catch (error) {
    if (error instanceof NoSession) {
      applyStrings(all, navigator.language && navigator.language.startsWith("ko") ? "ko" : "en");
      return;
    }
    throw error;
  }
  applyStrings(all, status.locale);
  $("app").hidden = false;
  $("views").hidden = false;
  applyStatus(status);
  wireControls();
  // A thought half typed survives a reload or a crash (this origin's storage), and
  // the capture box is where typing goes.
  $("capture-body").value = localStorage.getItem(DRAFT_KEY) || "";
  $("capture-body").focus();
  await loadNotes();
  connectLive();
}

function applyStrings(all, locale) {
  state.locale = all[locale] ? locale : "en";
  state.strings = all[state.locale];
  document.documentElement.lang = state.locale;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of document.querySelectorAll("[data-i18n-placeholder]")) {
    element.placeholder = t(element.dataset.i18nPlaceholder);
  }
}

function applyStatus(status) {
  state.counts = status.counts;
  state.expiryDays = status.expiry_days;
  if (status.provider) state.health = status.provider;
  for (const slow of (status.worker && status.worker.slow_notes) || []) state.slow.set(slow.note_id, slow);
  renderBanners();
}

// What a slow note says: how long, how often, what next, what to do.
function slowText(slow) {
  const minutes = (ms) => Math.max(1, Math.round(ms / 60000));
  return t("slowNote", {
    n: slow.timeouts,
    first: minutes(slow.request_timeout_ms),
    next: minutes(slow.next_deadline_ms),
  });
}

// ----- banners ---------------------------------------------------------------------

function renderBanners() {
  const { pending, failed, expired } = state.counts;
  const health = state.health;

  const ollama = $("ollama-banner");
  ollama.hidden = !health || health.state === "ready";
  const pull = state.pull;
  const pulling = pull && pull.state === "running";
  const progress = $("pull-progress");
  progress.hidden = !pulling;
  $("pull-model").hidden = !(health && health.state === "model_missing") || pulling;
  if (health && health.state === "model_missing") {
    const text = ollama.querySelector(".text");
    $("pull-model").textContent = t(pull && pull.state === "failed" ? "pullAgain" : "pullModel", {
      model: health.model,
    });
    if (pulling) {
      const share = pull.total ? pull.completed / pull.total : 0;
      progress.value = share;
      progress.setAttribute("aria-label", t("pullProgressLabel", { model: health.model }));
      text.textContent = t("pulling", { model: health.model, percent: Math.floor(share * 100) });
    } else if (pull && pull.state === "failed") {
      text.textContent = t("pullFailed", { model: health.model, error: pull.error });
    } else {
      text.textContent = t("ollamaModelMissing", { model: health.model });
    }
  } else if (health && health.state === "not_running") {
    ollama.querySelector(".text").textContent = t("ollamaNotRunning", { detail: health.detail });
  }

  $("pending-banner").hidden = pending === 0;
  $("pending-banner").textContent =
    t("pending", { n: pending }) + (state.slow.size ? ` ${t("slowBanner", { n: state.slow.size })}` : "");

  $("failed-banner").hidden = failed === 0;
  $("failed-banner").querySelector(".text").textContent = t("failed", { n: failed });

  $("expiry-banner").hidden = expired === 0;
  $("expiry-banner").querySelector(".text").textContent = t("expired", { n: expired });

  const chip = $("filter-chip");
  chip.hidden = !state.filter.tag && !state.filter.expired;
  chip.querySelector(".text").textContent = state.filter.tag
    ? t("filterTag", { tag: state.filter.tag })
    : t("filterExpired");
}

function showRecoveryToast() {
  const toast = $("recovery-toast");
  toast.textContent = t("recovered");
  toast.classList.remove("fading");
  toast.hidden = false;
  setTimeout(() => toast.classList.add("fading"), 3000);
  setTimeout(() => {
    toast.hidden = true;
    toast.classList.remove("fading");
  }, 4000);
}

// ----- notes -----------------------------------------------------------------------

function listQuery(before) {
  const query = new URLSearchParams({ limit: String(state.search ? SEARCH_SIZE : PAGE_SIZE) });
  if (state.filter.tag) query.set("tag", state.filter.tag);
  if (state.filter.expired) query.set("expired", "true");
  if (state.search) query.set("q", state.search);
  else if (before) query.set("before", before);
  return `/api/notes?${query}`;
}

async function loadNotes() {
  const asked = ++state.listLoads;
  state.changedDuringLoad = new Map();
  const notes = await api(listQuery());
  if (asked !== state.listLoads) return; // a newer load is on its way
  const changed = state.changedDuringLoad;
  state.changedDuringLoad = null;
  state.notes = notes;
  state.hasMore = !state.search && notes.length === PAGE_SIZE;
  // The list may show these as they were before their change.
  for (const note of changed.values()) placeNote(note);
  renderNotes();
}

async function loadMore() {
  const last = state.notes[state.notes.length - 1];
  if (!last) return;
  const asked = state.listLoads;
  const more = await api(listQuery(last.id));
  if (asked !== state.listLoads) return; // the list was loaded anew meanwhile
  state.notes = state.notes.concat(more);
  state.hasMore = more.length === PAGE_SIZE;
  renderNotes();
}

function headline(note) {
  if (note.title) return note.title;
  const first = note.body.split("\n").find((line) => line.trim()) || note.body;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}

function button(label, onClick, className) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  element.addEventListener("click", onClick);
  return element;
}

function noteElement(note, inTrash) {
  if (!inTrash && state.editing === note.id) {
    const open = $("notes").querySelector(`li[data-id="${CSS.escape(note.id)}"]`);
    if (open) return open;
  }
  const item = document.createElement("li");
  item.className = "note";
  item.dataset.id = note.id;
  item.dataset.status = note.ai_status;

  const title = document.createElement("h3");
  title.textContent = headline(note);
  item.append(title);

  if (note.summary) {
    const summary = document.createElement("p");
    summary.className = "summary";
    summary.textContent = note.summary;
    item.append(summary);
  }
  if (note.ai_read_chars != null && note.ai_status === "done") {
    // A note longer than the model reads at once: its AI fields come from its beginning.
    const part = document.createElement("p");
    part.className = "read-part";
    part.textContent = t("readPart", { n: note.ai_read_chars.toLocaleString(state.locale) });
    item.append(part);
  }
  if (note.snippet) {
    // A search hit: the piece of its body that matched, the words marked.
    const snippet = document.createElement("p");
    snippet.className = "body snippet";
    for (const part of note.snippet) {
      if (part.matched) {
        const mark = document.createElement("mark");
        mark.textContent = part.text;
        snippet.append(mark);
      } else {
        snippet.append(document.createTextNode(part.text));
      }
    }
    item.append(snippet);
  } else if (note.title || note.body.trim().includes("\n") || headline(note) !== note.body.trim()) {
    const body = document.createElement("p");
    body.className = "body";
    body.textContent = note.body;
    item.append(body);
  }

  const meta = document.createElement("div");
  meta.className = "meta";
  const badge = document.createElement("span");
  badge.className = `badge ${note.ai_status}`;
  badge.textContent = t(
    { pending: "badgePending", done: "badgeDone", failed: "badgeFailed" }[note.ai_status],
  );
  const slow = note.ai_status === "pending" && state.slow.get(note.id);
  if (slow) {
    badge.classList.add("slow");
    badge.textContent = t("badgeSlow");
    const why = document.createElement("p");
    why.className = "slow-note";
    why.textContent = slowText(slow);
    item.insertBefore(why, item.querySelector(".meta"));
  }
  meta.append(badge);
  for (const tag of note.tags) {
    meta.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag"));
  }
  const time = document.createElement("time");
  time.dateTime = note.created_at;
  time.textContent = new Date(note.created_at).toLocaleString(state.locale);
  meta.append(time);
  const spacer = document.createElement("span");
  spacer.className = "spacer";
  meta.append(spacer);
  if (inTrash) {
    meta.append(button(t("restore"), () => noteAction(note.id, "restore"), "restore"));
    meta.append(
      confirmingButton(t("deleteForever"), () => t("confirmDelete"), "delete", async () => {
        await api(`/api/notes/${encodeURIComponent(note.id)}`, { method: "DELETE" });
        loadTrash();
      }),
    );
  } else {
    if (state.filter.expired) {
      meta.append(button(t("keep"), () => noteAction(note.id, "keep"), "keep"));
    }
    meta.append(button(t("edit"), () => editNote(item, note), "edit"));
    // One note's AI again: redo a done one, retry a failed one, take a waiting one next.
    const again = { done: "redoAi", failed: "retryNote", pending: "aiNext" }[note.ai_status];
    meta.append(button(t(again), () => noteAction(note.id, "enrich"), "enrich"));
    meta.append(
      button(t("trash"), async () => {
        await noteAction(note.id, "trash");
        offerUndo(t("movedToTrash"), [note.id]);
      }, "trash"),
    );
  }
  item.append(meta);

  if (note.ai_status === "failed" && note.ai_error) {
    const error = document.createElement("p");
    error.className = "ai-error";
    error.textContent = note.ai_error;
    item.append(error);
  }
  return item;
}

function field(label, control) {
  const wrapper = document.createElement("label");
  wrapper.append(label, control);
  return wrapper;
}

/// Turns a note's card into a form: title, tags, body. Save sends only what changed
/// (a title or tags set here are the user's: the AI keeps off them; a changed body
/// goes back to the AI). Escape or Cancel puts the card back.
function editNote(item, note) {
  state.editing = note.id;
  const form = document.createElement("form");
  form.className = "edit";
  form.setAttribute("aria-label", t("editNoteLabel", { title: headline(note) }));
  const title = document.createElement("input");
  title.name = "title";
  title.maxLength = 200;
  title.value = note.title || "";
  const tags = document.createElement("input");
  tags.name = "tags";
  tags.value = note.tags.join(", ");
  const body = document.createElement("textarea");
  body.name = "body";
  body.value = note.body;
  body.rows = Math.min(20, Math.max(4, note.body.split("\n").length + 1));
  const error = document.createElement("p");
  error.className = "error";
  error.setAttribute("role", "alert");
  error.hidden = true;
  const actions = document.createElement("div");
  actions.className = "actions";
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = t("save");
  const close = () => {
    state.editing = null;
    renderNotes();
  };
  actions.append(button(t("cancel"), close, "cancel"), save);
  form.append(
    field(t("editTitle"), title),
    field(t("editTags"), tags),
    field(t("editBody"), body),
    error,
    actions,
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const change = {};
    if (body.value !== note.body) change.body = body.value;
    if (title.value.trim() && title.value.trim() !== (note.title || "")) change.title = title.value;
    const newTags = tags.value.split(",").map((tag) => tag.trim()).filter(Boolean);
    if (newTags.join(",") !== note.tags.join(",")) change.tags = newTags;
    if (Object.keys(change).length === 0) return close();
    try {
      const edited = await api(`/api/notes/${encodeURIComponent(note.id)}`, {
        method: "PATCH",
        json: change,
      });
      state.editing = null;
      answered(edited);
      renderNotes();
    } catch (failure) {
      if (failure instanceof NoSession) return;
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
  item.replaceChildren(form);
  body.focus();
}

// A button for what cannot be undone: the first click asks ("Really delete?"), a
// second click within 5 s does it; otherwise it goes back to its label.
function confirmingButton(label, question, className, action) {
  let armed = null;
  const element = button(label, async () => {
    if (!armed) {
      element.textContent = question();
      element.classList.add("armed");
      armed = setTimeout(() => {
        armed = null;
        element.textContent = label;
        element.classList.remove("armed");
      }, 5000);
      return;
    }
    clearTimeout(armed);
    armed = null;
    element.textContent = label;
    element.classList.remove("armed");
    await action();
  }, `${className} danger`);
  return element;
}

// "Moved to the trash. Undo": for 8 s, Undo restores what was just trashed.
let undoTimer = null;
function offerUndo(text, ids) {
  const toast = $("undo-toast");
  toast.querySelector(".text").textContent = text;
  toast.hidden = false;
  clearTimeout(undoTimer);
  undoTimer = setTimeout(() => (toast.hidden = true), 8000);
  $("undo").onclick = async () => {
    clearTimeout(undoTimer);
    toast.hidden = true;
    for (const id of ids) await noteAction(id, "restore");
  };
}

function renderNotes() {
  const list = $("notes");
  const items = state.notes.map((note) => noteElement(note, false));
  // The card being edited never leaves the page (it would lose its focus): the other
  // cards go, and the new ones are put in around it.
  const kept = new Set(items);
  for (const child of [...list.children]) {
    if (!kept.has(child)) child.remove();
  }
  items.forEach((item, index) => {
    if (list.children[index] !== item) list.insertBefore(item, list.children[index] || null);
  });
  $("notes-empty").hidden = state.notes.length > 0;
  $("notes-empty").textContent = t(state.search ? "searchNone" : "empty");
  $("load-more").hidden = !state.hasMore;
}

/// Expired: active, never kept, older than `expiry.days`.
function isExpired(note) {
  const age = Date.now() - Date.parse(note.created_at);
  return !note.deleted_at && !note.kept_at && age > state.expiryDays * 86_400_000;
}

function matchesFilter(note) {
  if (note.deleted_at) return false;
  if (state.filter.tag && !note.tags.includes(state.filter.tag)) return false;
  return !state.filter.expired || isExpired(note);
}

/// Puts a note as it is now into the list: in place, on top if it is new, out if it
/// left what the list shows.
function placeNote(note) {
  const index = state.notes.findIndex((n) => n.id === note.id);
  if (state.search) {
    // Hits stay where their rank put them, with their snippet; new notes wait for the
    // next search, and a note that left the view (trashed) leaves the hits.
    if (index < 0) return;
    if (matchesFilter(note)) state.notes[index] = { ...note, snippet: state.notes[index].snippet };
    else state.notes.splice(index, 1);
    return;
  }
  if (matchesFilter(note)) {
    if (index >= 0) state.notes[index] = note;
    else {
      // In its place by date (a new note on top, a restored one where it was); past
      // the loaded page only when there is no more to load.
      const newer = (n) => n.created_at > note.created_at || (n.created_at === note.created_at && n.id > note.id);
      const at = state.notes.findIndex((n) => !newer(n));
      if (at >= 0) state.notes.splice(at, 0, note);
      else if (!state.hasMore) state.notes.push(note);
    }
  } else if (index >= 0) {
    state.notes.splice(index, 1);
  }
}

/// A note from the answer to this page's own request (a capture, a trash): it
/// travelled on another connection than the events and may be older than what an
/// event already showed (a note enriched before the capture's answer came), so it
/// replaces only an older version.
function answered(note) {
  const shown = state.notes.find((n) => n.id === note.id);
  if (shown && shown.updated_at >= note.updated_at) return;
  noteChanged(note);
}

/// A note changed somewhere (this page, the CLI, the AI), and this is it now.
function noteChanged(note) {
  // Done, trashed or edited: a slow mark is over (the next timeout brings it back).
  if (state.slow.delete(note.id)) renderBanners();
  if (state.changedDuringLoad) state.changedDuringLoad.set(note.id, note);
  placeNote(note);
  renderNotes();
  if (state.view === "trash") loadTrash();
}

async function noteAction(id, action) {
  answered(await api(`/api/notes/${encodeURIComponent(id)}/${action}`, { json: {} }));
}

function setFilter(filter) {
  state.filter = filter;
  renderBanners();
  showView("inbox");
  loadNotes();
}

// ----- live updates ------------------------------------------------------------------

const live = {
  handlers: {
    counts(data) {
      state.counts = data;
      renderBanners();
    },
    ollama_status(health) {
      const wasDown = state.health && state.health.state !== "ready";
      state.health = health;
      if (wasDown && health.state === "ready") showRecoveryToast();
      renderBanners();
    },
    note_changed(data) {
      noteChanged(data.note);
    },
    note_slow(slow) {
      state.slow.set(slow.note_id, slow);
      renderNotes();
      renderBanners();
    },
    model_pull(data) {
      state.pull = data;
      renderBanners();
    },
    notes_changed() {
      // Many at once (a retry-all): one reload.
      loadNotes();
      if (state.view === "trash") loadTrash();
      if (state.view === "tags") loadTags();
    },
  },
  // After a failed attempt the next waits longer, up to 10 s (a restart of the service
  // takes a second or two; a stopped one is not worth more than a try every 10 s).
  retryMs: 500,
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

// Reads the live feed until it ends, then connects again (the service restarted, or
// stopped for a while). Every (re)connection first catches up on what was missed; the
// counts and the provider's health come as the feed's first events.
async function connectLive() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { credentials: "omit", headers: withSession() });
      if (response.status === 401) return signedOut();
      if (response.ok && response.body) {
        live.retryMs = 500;
        loadNotes();
        if (state.view === "trash") loadTrash();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffered += value;
          let end;
          while ((end = buffered.indexOf("\n\n")) >= 0) {
            const frame = parseFrame(buffered.slice(0, end));
            buffered = buffered.slice(end + 2);
            const handler = frame && live.handlers[frame.event];
            if (handler) handler(JSON.parse(frame.data));
          }
        }
      }
    } catch (error) {
      // The service is not there (yet): try again below.
    }
    await new Promise((resolve) => setTimeout(resolve, live.retryMs));
    live.retryMs = Math.min(live.retryMs * 2, 10000);
  }
}

// ----- views -------------------------------------------------------------------------

function showView(view) {
  state.view = view;
  for (const name of ["inbox", "tags", "trash", "stats"]) {
    $(`${name}-view`).hidden = name !== view;
  }
  for (const tab of document.querySelectorAll("#views button")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.view === view));
  }
  if (view === "trash") loadTrash();
  if (view === "stats") loadStats();
  if (view === "tags") loadTags();
}

/// The tags view: every tag with its count, a filter on click, and a rename box.
async function loadTags() {
  const tags = await api("/api/tags");
  $("tags-empty").hidden = tags.length > 0;
  $("tags").replaceChildren(
    ...tags.map(({ tag, count }) => {
      const row = document.createElement("li");
      row.dataset.tag = tag;
      row.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag"));
      const uses = document.createElement("span");
      uses.className = "count";
      uses.textContent = notesCount(count);
      row.append(uses);
      const form = document.createElement("form");
      const name = document.createElement("input");
      name.value = tag;
      name.maxLength = 32;
      name.setAttribute("aria-label", t("renameTo", { tag }));
      const rename = document.createElement("button");
      rename.type = "submit";
      rename.textContent = t("rename");
      form.append(name, rename);
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        if (!name.value.trim() || name.value.trim() === tag) return;
        try {
          const done = await api(`/api/tags/${encodeURIComponent(tag)}/rename`, {
            json: { to: name.value },
          });
          const values = { from: tag, to: done.tag, notes: notesCount(done.notes) };
          $("tags-result").textContent = t(done.merged ? "mergedTag" : "renamed", values);
          loadTags();
        } catch (failure) {
          if (!(failure instanceof NoSession)) $("tags-result").textContent = failure.message;
        }
      });
      row.append(form);
      return row;
    }),
  );
}

// ----- export and import ----------------------------------------------------------

/// Every note as inkling's JSON export, saved by the browser as a file. Fetched with
/// the session (a plain link would carry no credential).
async function exportNotes() {
  try {
    const response = await fetch("/api/notes/export?format=json", {
      credentials: "omit",
      headers: withSession(),
    });
    if (response.status === 401) return signedOut();
    const text = await response.text();
    if (!response.ok) throw new Error(JSON.parse(text).error || `HTTP ${response.status}`);
    const document_ = JSON.parse(text); // whole: the stream did not end early
    const file = `inkling-notes-${new Date().toISOString().slice(0, 10)}.json`;
    const blob = new Blob([text], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = file;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    const n = document_.notes.length;
    $("transfer-result").textContent = t(n === 1 ? "notesExported1" : "notesExportedN", { n, file });
  } catch (failure) {
    if (!(failure instanceof NoSession)) $("transfer-result").textContent = failure.message;
  }
}

/// Notes from files: an inkling JSON export (its notes as they are) or Markdown files
/// (parsed by the service, front matter included). Sent in requests under the
/// service's body limit; the first refusal stops, and says which file or note.
async function importNotes(files) {
  $("transfer-result").textContent = t("importing");
  const items = [];
  try {
    for (const file of files) {
      const text = await file.text();
      if (/\.json$/i.test(file.name)) {
        for (const note of JSON.parse(text).notes || []) items.push({ notes: note });
      } else {
        const modified_at = new Date(file.lastModified).toISOString();
        items.push({ markdown: { name: file.name, text, modified_at } });
      }
    }
    let imported = 0;
    let skipped = 0;
    let batch = { notes: [], markdown: [] };
    let size = 0;
    const send = async () => {
      if (!batch.notes.length && !batch.markdown.length) return;
      const answer = await api("/api/notes/import", { json: batch });
      imported += answer.imported;
      skipped += answer.skipped;
      batch = { notes: [], markdown: [] };
      size = 0;
    };
    for (const item of items) {
      const [kind, value] = Object.entries(item)[0];
      const length = new TextEncoder().encode(JSON.stringify(value)).length;
      if (size + length > IMPORT_BATCH_BYTES) await send();
      batch[kind].push(value);
      size += length;
    }
    await send();
    const values = { imported: notesCount(imported), skipped: notesCount(skipped) };
    $("transfer-result").textContent = t(skipped ? "notesImported" : "notesImportedNone", values);
  } catch (failure) {
    if (!(failure instanceof NoSession)) $("transfer-result").textContent = failure.message;
  }
}

/// Under the service's request limit (twice `http.max_body_bytes`, 128 KiB by default).
const IMPORT_BATCH_BYTES = 100_000;

function notesCount(n) {
  return n === 1 ? t("tagCount1") : t("tagCountN", { n });
}

async function loadTrash() {
  const notes = await api("/api/notes?trash=true&limit=500");
  $("trash-notes").replaceChildren(...notes.map((note) => noteElement(note, true)));
  $("trash-empty").hidden = notes.length > 0;
  document.querySelector(".trash-actions").hidden = notes.length === 0;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

async function loadStats() {
  const stats = await api("/api/stats?format=json");
  const days = Object.entries(stats.days).sort(([a], [b]) => (a < b ? -1 : 1));
  const head = document.createElement("tr");
  for (const column of state.strings.columns) {
    const th = document.createElement("th");
    th.textContent = column;
    head.append(th);
  }
  $("stats-table").tHead.replaceChildren(head);
  const rows = days
    .slice()
    .reverse()
    .map(([day, c]) => {
      const row = document.createElement("tr");
      const values = [day, c.captured, c.aiDone, c.aiFailedSchema, c.aiFailedOther, c.ollamaRechecks, c.aiRetries];
      for (const value of values) {
        const td = document.createElement("td");
        td.textContent = String(value);
        row.append(td);
      }
      return row;
    });
  if (!rows.length) {
    const row = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 7;
    td.textContent = t("noStats");
    row.append(td);
    rows.push(row);
  }
  $("stats-table").tBodies[0].replaceChildren(...rows);

  // The chart: captured per day as bars, AI done as a line, last 30 days.
  const recent = days.slice(-30);
  const chart = $("chart");
  chart.replaceChildren();
  const max = Math.max(1, ...recent.map(([, c]) => Math.max(c.captured, c.aiDone)));
  const width = 600 / Math.max(recent.length, 1);
  const y = (value) => 150 - (value / max) * 140;
  recent.forEach(([day, c], i) => {
    const bar = svg("rect", { class: "bar", x: i * width + 2, y: y(c.captured), width: Math.max(width - 4, 1), height: 150 - y(c.captured) });
    const title = svg("title", {});
    title.textContent = `${day}: ${c.captured} / ${c.aiDone}`;
    bar.append(title);
    chart.append(bar);
  });
  if (recent.length) {
    const points = recent.map(([, c], i) => `${i * width + width / 2},${y(c.aiDone)}`).join(" ");
    chart.append(svg("polyline", { class: "line", points }));
  }
}

// ----- controls ----------------------------------------------------------------------

function wireControls() {
  for (const tab of document.querySelectorAll("#views button")) {
    tab.addEventListener("click", () => showView(tab.dataset.view));
  }
  $("capture").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = $("capture-body").value;
    if (!body.trim()) return;
    try {
      const note = await api("/api/notes", { json: { body } });
      $("capture-body").value = "";
      localStorage.removeItem(DRAFT_KEY);
      $("capture-error").hidden = true;
      answered(note);
    } catch (error) {
      $("capture-error").textContent = error.message;
      $("capture-error").hidden = false;
    }
  });
  $("capture-body").addEventListener("input", () => {
    const draft = $("capture-body").value;
    if (draft) localStorage.setItem(DRAFT_KEY, draft);
    else localStorage.removeItem(DRAFT_KEY);
  });
  $("capture-body").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("capture").requestSubmit();
    }
  });
  $("retry").addEventListener("click", async () => {
    // Optimistic (docs/DESIGN.md, "The inbox page"): the banner goes at once; the real
    // counts follow live.
    state.counts.failed = 0;
    renderBanners();
    await api("/api/inbox/retry-all-failed", { json: {} });
  });
  $("pull-model").addEventListener("click", async () => {
    // Its steps come on the live feed (model_pull); the answer streams the same ones.
    state.pull = { state: "running", status: "starting" };
    renderBanners();
    try {
      await api("/api/ollama/pull", { json: {} });
    } catch (error) {
      if (error instanceof NoSession) return;
      state.pull = { state: "failed", error: error.message };
      renderBanners();
    }
  });
  $("recheck").addEventListener("click", async () => {
    state.health = await api("/api/ollama/recheck", { json: {} });
    renderBanners();
  });
  $("review-expired").addEventListener("click", () => setFilter({ tag: null, expired: true }));
  $("trash-expired").addEventListener("click", async () => {
    const moved = await api("/api/inbox/trash-expired", { json: {} });
    setFilter({ tag: null, expired: false });
    if (moved.count > 0) offerUndo(t("movedManyToTrash", { n: moved.count }), moved.ids);
  });
  const emptyTrash = confirmingButton(
    t("emptyTrash"),
    () => t("confirmEmpty", { n: $("trash-notes").children.length }),
    "empty-trash",
    async () => {
      await api("/api/trash/empty", { json: {} });
      loadTrash();
    },
  );
  emptyTrash.id = "empty-trash";
  $("empty-trash").replaceWith(emptyTrash);
  $("clear-filter").addEventListener("click", () => setFilter({ tag: null, expired: false }));
  // Results as you type: the list follows the box once typing pauses.
  let typing = null;
  $("search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const words = $("search").value.trim();
      if (words === state.search) return;
      state.search = words;
      showView("inbox");
      loadNotes();
    }, 150);
  });
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Escape" && $("search").value) {
      $("search").value = "";
      $("search").dispatchEvent(new Event("input"));
    }
  });
  // "/" goes to the search box, from anywhere but a text field.
  document.addEventListener("keydown", (event) => {
    const typingInto = event.target.closest && event.target.closest("input, textarea, select");
    if (event.key === "/" && !typingInto && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      $("search").focus();
    }
  });
  $("load-more").addEventListener("click", loadMore);
  $("export-notes").addEventListener("click", exportNotes);
  $("import-notes").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", async () => {
    const files = [...$("import-file").files];
    $("import-file").value = "";
    if (files.length) await importNotes(files);
  });
  $("export").addEventListener("click", async () => {
    const result = await api("/api/usage-log/export", { json: {} });
    $("export-result").textContent = t("exported", { path: result.path });
  });
}

start().catch((error) => {
  console.error(error);
});
