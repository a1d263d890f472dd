// inkling's notes page. Plain JavaScript, no build step, no external library: the page
// must work offline, served from the binary.
//
// Data comes from the local API with the page's session (src/sessions.rs), kept in this
// origin's localStorage and sent as `Authorization: Bearer` (never a cookie: browsers
// send those to every port of 127.0.0.1). Live changes arrive as server-sent events
// from /api/events, read with fetch (which can send the header; EventSource cannot),
// and each carries what changed (the note as it is now, the counts), so the page reads
// nothing back after an event, and patches only the card of the note that changed.
//
// Note text is inserted with textContent. The one HTML the page inserts is a note's
// rendered body, which the service made with pulldown-cmark and cleaned with ammonia
// (src/render.rs).
//
// Where the page is (the view, the note open, the tag filter, the search) lives in the
// address: Back, reload and bookmarks work (`readAddress`, `writeAddress`).
"use strict";

// The first page is small, so the first cards come quickly; the pages loaded while
// scrolling are larger, so the end of a long list is fewer loads away.
const PAGE_SIZE = 50;
const MORE_SIZE = 200;
const SEARCH_SIZE = 100;
// How far below the screen the next page starts loading, in pixels.
const LOAD_AHEAD_PX = 1200;

const state = {
  strings: {},
  locale: "en",
  plurals: new Intl.PluralRules("en"),
  counts: { pending: 0, failed: 0, expired: 0 },
  health: null, // {state: "ready" | "model_missing" | "not_running", ...}
  slow: new Map(), // note id → {timeouts, request_timeout_ms, next_deadline_ms}: notes the AI takes too long on
  pull: null, // the model download: {state: "running" | "done" | "failed", status, completed, total, error}
  // A retry-all in flight: how many were sent back, and the failed count it started
  // from, so the banner can say "Retrying 3 notes…" and then "2 notes failed again".
  retry: null,
  failedAgain: false,
  // Banners put away by the person: banner id → what it said then. One comes back
  // when it has something new to say (more failed notes, another Ollama state).
  dismissed: new Map(),
  offline: false,
  filter: { tag: null, expired: false },
  // The words in the search box: while there are any, the list is their hits, best
  // first, one page (a search is ranked, not paged by date).
  search: "",
  view: "inbox",
  // The note open in the detail view (its id), and what the service said about it.
  open: null,
  detail: null,
  // The note being edited in place: its card is kept as it is (the form, what is
  // typed, the focus) while live events patch the list around it.
  editing: null,
  // The card j/k moved to (a note id).
  selected: null,
  notes: [], // the inbox list, newest first
  hasMore: false,
  loadingMore: false,
  buttonNear: false,
  expiryDays: 30,
  maxAttempts: 3,
  // Counts and the provider's health come only from live events (the service sends
  // the last ones when the feed connects), in order on one connection: nothing can
  // overtake them. A list, though, is asked for on another connection and can be
  // overtaken by a note's event: `listLoads` numbers list loads (only the newest
  // applies), and `changedDuringLoad` keeps the notes that changed while one was in
  // flight, applied over the list once it is in.
  listLoads: 0,
  changedDuringLoad: null,
};

// The cards on the page: note id → {note, element}. A card is made again only when its
// note changed (a new object from an event or an answer).
const cards = new Map();

const $ = (id) => document.getElementById(id);

/// A string in the page's language. A plural string is an object of Intl.PluralRules
/// categories ("one", "other"), chosen by `values.n`; numbers are written the
/// locale's way.
function t(key, values = {}) {
  let text = state.strings[key] ?? key;
  if (text && typeof text === "object" && !Array.isArray(text)) {
    text = text[state.plurals.select(Number(values.n ?? 0))] ?? text.other;
  }
  for (const [name, value] of Object.entries(values)) {
    const shown = typeof value === "number" ? value.toLocaleString(state.locale) : String(value);
    text = text.split(`{${name}}`).join(shown);
  }
  return text;
}

// ----- the API -------------------------------------------------------------------

class NoSession extends Error {}

/// A request that got an answer other than success: its HTTP status and the service's
/// own words, which go behind "Details".
class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

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
  if (!response.ok) {
    throw new ApiFailure(response.status, body && body.error ? body.error : `HTTP ${response.status}`);
  }
  return body;
}

/// Runs a button's action; if it fails, says so in plain words (with the detail behind
/// the toggle) rather than leaving the click without an answer.
function guarded(action) {
  return async (...args) => {
    try {
      await action(...args);
    } catch (failure) {
      if (failure instanceof NoSession) return;
      showProblem(t("actionFailed"), failure.message);
    }
  };
}

/// A problem the person should know about, in the capture error line (it is under the
/// box, where the eyes are).
function showProblem(text, detail) {
  const line = $("capture-error");
  line.querySelector(".text").textContent = text;
  setDetail(line, detail);
  line.hidden = false;
}

/// Puts `detail` behind an element's "Details" toggle (hidden when there is none).
function setDetail(element, detail) {
  const more = element.querySelector("details.more");
  if (!more) return;
  more.hidden = !detail;
  more.querySelector(".detail").textContent = detail || "";
}

// ----- start-up --------------------------------------------------------------------

async function start() {
  // The strings, the status and the first page are asked for at once: the first cards
  // wait for one round trip, not three in a row.
  const strings = fetch("/assets/i18n.json").then((response) => response.json());
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
    [all, status, page] = await Promise.all([strings, api("/api/status"), firstPage]);
  } catch (error) {
    if (error instanceof NoSession) {
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
  // A thought half typed survives a reload or a crash (this origin's storage), and
  // the capture box is where typing goes.
  $("capture-body").value = localStorage.getItem(DRAFT_KEY) || "";
  showView(state.view, { address: false });
  if (state.view === "inbox") $("capture-body").focus();
  connectLive();
}

function applyStrings(all, locale) {
  state.locale = all[locale] ? locale : "en";
  state.strings = all[state.locale];
  state.plurals = new Intl.PluralRules(state.locale);
  document.documentElement.lang = state.locale;
  for (const element of document.querySelectorAll("[data-i18n]")) {
    element.textContent = t(element.dataset.i18n);
  }
  for (const element of document.querySelectorAll("[data-i18n-placeholder]")) {
    element.placeholder = t(element.dataset.i18nPlaceholder);
  }
  for (const element of document.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
  const keys = $("help-keys");
  keys.replaceChildren();
  for (const [key, what] of state.strings.keys) {
    const term = document.createElement("dt");
    const kbd = document.createElement("kbd");
    kbd.textContent = key;
    term.append(kbd);
    const description = document.createElement("dd");
    description.textContent = what;
    keys.append(term, description);
  }
}

function applyStatus(status) {
  state.counts = status.counts;
  state.expiryDays = status.expiry_days;
  state.maxAttempts = status.max_attempts || state.maxAttempts;
  if (status.provider) state.health = status.provider;
  for (const slow of (status.worker && status.worker.slow_notes) || []) state.slow.set(slow.note_id, slow);
  renderBanners();
}

// ----- the address -------------------------------------------------------------------

/// Where the address says the page is: `?note=ID`, `?view=trash|tags|stats`,
/// `?tag=cooking`, `?expired=1`, `?q=words`.
function readAddress() {
  const params = new URLSearchParams(location.search);
  state.open = params.get("note");
  const view = params.get("view");
  state.view = state.open ? "note" : ["tags", "trash", "stats"].includes(view) ? view : "inbox";
  state.filter = { tag: params.get("tag"), expired: params.get("expired") === "1" };
  state.search = (params.get("q") || "").trim();
  $("search").value = state.search;
}

/// Puts where the page is into the address: a new history entry (`push`) for a move a
/// person would go Back from (opening a note, another view, a filter), or in place.
function writeAddress(push) {
  const params = new URLSearchParams();
  if (state.view === "note" && state.open) params.set("note", state.open);
  else if (state.view !== "inbox") params.set("view", state.view);
  if (state.filter.tag) params.set("tag", state.filter.tag);
  if (state.filter.expired) params.set("expired", "1");
  if (state.search) params.set("q", state.search);
  const address = params.size ? `/?${params}` : "/";
  if (address === location.pathname + location.search) return;
  if (push) history.pushState(null, "", address);
  else history.replaceState(null, "", address);
}

window.addEventListener("popstate", () => {
  const before = listKey();
  readAddress();
  showView(state.view, { address: false });
  renderBanners();
  if (listKey() !== before) loadNotes();
});

/// What decides which notes the list holds.
function listKey() {
  return JSON.stringify([state.filter, state.search]);
}

// ----- banners ---------------------------------------------------------------------

/// Shows a banner unless it was dismissed while saying the same (`says`).
function showBanner(id, visible, says) {
  const banner = $(id);
  // What was dismissed is over (gone, or saying something else): it may come back.
  if (!visible || (state.dismissed.has(id) && state.dismissed.get(id) !== says)) {
    state.dismissed.delete(id);
  }
  banner.hidden = !visible || state.dismissed.get(id) === says;
  banner.dataset.says = says;
}

function renderBanners() {
  const { pending, failed, expired } = state.counts;
  const health = state.health;
  const down = Boolean(health && health.state !== "ready");

  $("offline-banner").hidden = !state.offline;

  const ollama = $("ollama-banner");
  const text = ollama.querySelector(".text");
  const pull = state.pull;
  const pulling = pull && pull.state === "running";
  const progress = $("pull-progress");
  const missing = Boolean(health && health.state === "model_missing");
  progress.hidden = !pulling;
  $("pull-model").hidden = !missing || pulling;
  $("recheck").hidden = !down || missing;
  // While Ollama is down nothing is being processed: the waiting notes are said here,
  // and the "working on" line stays away.
  const waiting = pending ? ` ${t("waitingForOllama", { n: pending })}` : "";
  if (missing) {
    $("pull-model").textContent = t(pull && pull.state === "failed" ? "pullAgain" : "pullModel", {
      model: health.model,
    });
    if (pulling) {
      const share = pull.total ? pull.completed / pull.total : 0;
      progress.value = share;
      progress.setAttribute("aria-label", t("pullProgressLabel", { model: health.model }));
      text.textContent = t("pulling", { model: health.model, percent: Math.floor(share * 100) });
      setDetail(ollama, "");
    } else if (pull && pull.state === "failed") {
      text.textContent = t("pullFailed", { model: health.model });
      setDetail(ollama, t("pullFailedDetail", { error: pull.error }));
    } else {
      text.textContent = t("ollamaModelMissing", { model: health.model }) + waiting;
      setDetail(ollama, t("modelMissingDetail", { model: health.model }));
    }
  } else if (down) {
    text.textContent = t("ollamaNotRunning") + waiting;
    setDetail(ollama, t("notRunningDetail", { detail: health.detail }));
  }
  showBanner("ollama-banner", down, down ? health.state : "");

  const slow = state.slow.size ? ` ${t("slowBanner", { n: state.slow.size })}` : "";
  const retrying = state.retry && pending > 0;
  const pendingText = retrying ? t("retrying", { n: state.retry.sent }) : t("pending", { n: pending }) + slow;
  $("pending-banner").querySelector(".text").textContent = pendingText;
  showBanner("pending-banner", pending > 0 && !down, "pending");

  // After a retry-all, notes that fail again are said as such, until none is failed.
  if (state.retry && pending === 0) {
    state.failedAgain = failed > 0;
    state.retry = null;
  }
  if (failed === 0) state.failedAgain = false;
  const again = (state.retry || state.failedAgain) && failed > 0;
  $("failed-banner").querySelector(".text").textContent = t(again ? "failedAgain" : "failed", { n: failed });
  showBanner("failed-banner", failed > 0, String(failed));

  $("expiry-banner").querySelector(".text").textContent = t("expired", { n: expired, days: state.expiryDays });
  setDetail($("expiry-banner"), t("expiredDetail", { days: state.expiryDays }));
  showBanner("expiry-banner", expired > 0, String(expired));

  const chip = $("filter-chip");
  chip.hidden = !state.filter.tag && !state.filter.expired;
  chip.querySelector(".text").textContent = filterName();
}

function filterName() {
  return state.filter.tag ? t("filterTag", { tag: state.filter.tag }) : t("filterExpired");
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
  const size = state.search ? SEARCH_SIZE : before ? MORE_SIZE : PAGE_SIZE;
  const query = new URLSearchParams({ limit: String(size) });
  if (state.filter.tag) query.set("tag", state.filter.tag);
  if (state.filter.expired) query.set("expired", "true");
  if (state.search) query.set("q", state.search);
  else if (before) query.set("before", before);
  return `/api/notes?${query}`;
}

async function loadNotes() {
  await finishListLoad(beginListLoad());
}

/// Asks for the list's first page; `finishListLoad` shows it.
function beginListLoad() {
  const asked = ++state.listLoads;
  state.changedDuringLoad = new Map();
  return api(listQuery()).then((notes) => ({ asked, notes }));
}

async function finishListLoad(loading) {
  showList(await loading);
}

/// Shows a list load's first page, unless a newer load was asked for since.
function showList({ asked, notes }) {
  if (asked !== state.listLoads) return; // a newer load is on its way
  const changed = state.changedDuringLoad;
  state.changedDuringLoad = null;
  state.notes = notes;
  state.hasMore = !state.search && notes.length === PAGE_SIZE;
  // The list may show these as they were before their change.
  for (const note of changed.values()) placeNote(note);
  renderNotes();
  // For the browser tests' benchmark (docs/PERFORMANCE.md): when the first cards were there.
  if (!performance.getEntriesByName("inkling:first-cards").length) performance.mark("inkling:first-cards");
  recheckNearTheEnd();
}

/// The next page, appended: the cards already there stay as they are.
async function loadMore() {
  const last = state.notes[state.notes.length - 1];
  if (!last || state.loadingMore || !state.hasMore) return;
  state.loadingMore = true;
  try {
    const asked = state.listLoads;
    const more = await api(listQuery(last.id));
    if (asked !== state.listLoads) return; // the list was loaded anew meanwhile
    const known = new Set(state.notes.map((note) => note.id));
    state.notes = state.notes.concat(more.filter((note) => !known.has(note.id)));
    state.hasMore = more.length === MORE_SIZE;
    renderNotes();
  } finally {
    state.loadingMore = false;
  }
  recheckNearTheEnd();
}

/// Scrolling near the end loads the next page (the "Load more" button stays for
/// keyboards and for a page too short to scroll). The browser says when the button
/// comes within reach (an IntersectionObserver: no layout forced while scrolling);
/// after a page is in, it is asked again, as the button may still be within reach.
const nearTheEnd = new IntersectionObserver(
  (entries) => {
    state.buttonNear = entries[entries.length - 1].isIntersecting;
    if (state.buttonNear) loadMoreIfNear();
  },
  { rootMargin: `0px 0px ${LOAD_AHEAD_PX}px 0px` },
);

/// Asks the observer anew: it answers at once whether the button is within reach now.
function recheckNearTheEnd() {
  nearTheEnd.unobserve($("load-more"));
  nearTheEnd.observe($("load-more"));
}

function loadMoreIfNear() {
  if (!state.hasMore || state.view !== "inbox" || state.loadingMore || !state.buttonNear) return;
  loadMore();
}

function headline(note) {
  if (note.title) return note.title;
  const first = note.body.split("\n").find((line) => line.trim()) || note.body;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first.trim();
}

function button(label, onClick, className, ariaLabel) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  if (ariaLabel) element.setAttribute("aria-label", ariaLabel);
  element.addEventListener("click", guarded(onClick));
  return element;
}

/// "5 min ago", "yesterday", or the date for anything older than a week.
function relativeTime(iso) {
  const then = Date.parse(iso);
  const seconds = Math.round((then - Date.now()) / 1000);
  const words = new Intl.RelativeTimeFormat(state.locale, { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 45) return t("justNow");
  if (abs < 3600) return words.format(Math.round(seconds / 60), "minute");
  if (abs < 86_400) return words.format(Math.round(seconds / 3600), "hour");
  if (abs < 7 * 86_400) return words.format(Math.round(seconds / 86_400), "day");
  return new Date(then).toLocaleDateString(state.locale, { year: "numeric", month: "short", day: "numeric" });
}

function timeElement(iso) {
  const time = document.createElement("time");
  time.dateTime = iso;
  time.textContent = relativeTime(iso);
  time.title = new Date(iso).toLocaleString(state.locale);
  return time;
}

/// The summary says something the card does not already: the body is more than a
/// couple of lines, and the summary is not the body again.
function summaryAdds(note) {
  const body = note.body.trim();
  return Boolean(note.summary) && body.length > 160 && !body.startsWith(note.summary.trim());
}

/// What the AI's failure on a note was, in plain words; the stored error ("schema:
/// the model's answer…") goes behind "Details".
function failureText(note, tries) {
  const reason = (note.ai_error || "").split(":")[0];
  return t(reason === "schema" ? "aiUnusable" : "aiProblem", { n: tries });
}

function details(detail) {
  const more = document.createElement("details");
  more.className = "more";
  const summary = document.createElement("summary");
  summary.textContent = t("details");
  const text = document.createElement("p");
  text.className = "detail";
  text.textContent = detail;
  more.append(summary, text);
  return more;
}

function paragraph(className, text) {
  const element = document.createElement("p");
  element.className = className;
  element.textContent = text;
  return element;
}

/// The address of one note.
function noteAddress(id) {
  const params = new URLSearchParams({ note: id });
  return `/?${params}`;
}

/// A note's card. `item`: the card to fill again in place (a live change): the same
/// element keeps its place, its focus and the size the browser remembers for it, so
/// nothing below it moves.
function noteElement(note, inTrash, item = document.createElement("li")) {
  item.replaceChildren();
  item.className = "note";
  item.dataset.id = note.id;
  item.dataset.status = note.ai_status;
  if (state.selected === note.id) item.classList.add("selected");
  const name = headline(note);

  const title = document.createElement("h3");
  const open = document.createElement("a");
  open.href = noteAddress(note.id);
  open.className = "open";
  open.textContent = name;
  open.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    openNote(note.id);
  });
  title.append(open);
  item.append(title);

  if (summaryAdds(note) && !note.snippet) item.append(paragraph("summary", note.summary));
  if (note.ai_read_chars != null && note.ai_status === "done") {
    // A note longer than the model reads at once: its AI fields come from its beginning.
    item.append(paragraph("read-part", t("readPart", { n: note.ai_read_chars })));
  }
  if (note.snippet) {
    // A search hit: the piece of its body that matched, the words marked.
    const snippet = paragraph("preview snippet", "");
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
  } else if (note.body.trim() !== name) {
    // The body, a few lines of it, unless the headline already is the whole of it.
    const preview = paragraph("preview", note.body.trim());
    item.append(preview);
    const lines = note.body.trim().split("\n").length;
    if (lines > 3 || note.body.length > 240) {
      preview.classList.add("clamped");
      const more = button(t("showMore"), () => {
        const clamped = preview.classList.toggle("clamped");
        more.textContent = t(clamped ? "showMore" : "showLess");
        more.setAttribute("aria-expanded", String(!clamped));
      }, "show-more");
      more.setAttribute("aria-expanded", "false");
      item.append(more);
    }
  }

  const slow = note.ai_status === "pending" && state.slow.get(note.id);
  if (slow) item.append(paragraph("slow-note", slowText(slow)));
  if (note.ai_status === "failed" && note.ai_error) {
    item.append(paragraph("ai-error", failureText(note, state.maxAttempts)), details(note.ai_error));
  }

  const meta = document.createElement("div");
  meta.className = "meta";
  // A badge only when the note is not done: done is the normal case.
  if (note.ai_status !== "done") {
    const badge = document.createElement("span");
    badge.className = `badge ${note.ai_status}`;
    badge.textContent = t({ pending: "badgePending", failed: "badgeFailed" }[note.ai_status]);
    if (slow) {
      badge.classList.add("slow");
      badge.textContent = t("badgeSlow");
    }
    meta.append(badge);
  }
  for (const tag of note.tags) {
    meta.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag", t("filterByTag", { tag })));
  }
  meta.append(timeElement(note.created_at));
  const spacer = document.createElement("span");
  spacer.className = "spacer";
  meta.append(spacer);
  const named = { title: name };
  if (inTrash) {
    meta.append(button(t("restore"), () => noteAction(note.id, "restore"), "restore", t("restoreNote", named)));
    meta.append(deleteButton(note, named, loadTrash));
  } else {
    if (state.filter.expired) {
      meta.append(button(t("keep"), () => noteAction(note.id, "keep"), "keep", t("keepNote", named)));
    }
    meta.append(button(t("edit"), () => editNote(item, note, renderNotes), "edit", t("editNote", named)));
    meta.append(aiButton(note, named));
    meta.append(button(t("trash"), () => trashNote(note), "trash", t("trashNote", named)));
  }
  item.append(meta);
  return item;
}

/// One note's AI again: redo a done one, retry a failed one, take a waiting one next.
function aiButton(note, named) {
  const [label, aria] = {
    done: ["redoAi", "redoAiNote"],
    failed: ["retryNote", "retryNoteLabel"],
    pending: ["aiNext", "aiNextNote"],
  }[note.ai_status];
  return button(t(label), () => noteAction(note.id, "enrich"), "enrich", t(aria, named));
}

function deleteButton(note, named, after) {
  const element = confirmingButton(t("deleteForever"), () => t("confirmDelete"), "delete", async () => {
    await api(`/api/notes/${encodeURIComponent(note.id)}`, { method: "DELETE" });
    after();
  });
  element.setAttribute("aria-label", t("deleteNote", named));
  return element;
}

async function trashNote(note) {
  await noteAction(note.id, "trash");
  offerUndo(t("movedToTrash"), [note.id]);
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

function field(label, control) {
  const wrapper = document.createElement("label");
  wrapper.append(label, control);
  return wrapper;
}

/// Turns a card (or the open note) into a form: title, tags, body. Save sends only what
/// changed (a title or tags set here are the user's: the AI keeps off them; a changed
/// body goes back to the AI). Escape or Cancel puts it back (`done`).
function editNote(container, note, done) {
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
  const error = paragraph("error", "");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const actions = document.createElement("div");
  actions.className = "actions";
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = t("save");
  const close = () => {
    state.editing = null;
    remake(note.id);
    done();
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
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
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
      remake(note.id);
      answered(edited);
      done();
    } catch (failure) {
      if (failure instanceof NoSession) return;
      error.textContent = failure instanceof ApiFailure ? failure.message : t("actionFailed");
      error.hidden = false;
    }
  });
  container.replaceChildren(form);
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
  $("undo").onclick = guarded(async () => {
    clearTimeout(undoTimer);
    toast.hidden = true;
    for (const id of ids) await noteAction(id, "restore");
  });
}

/// Brings the list on the page in line with `state.notes`, touching only what differs:
/// a card whose note changed is made again, a new one is put in its place, a gone one
/// is taken out. The card being edited is never replaced (it would lose what is typed
/// and the focus).
function renderNotes() {
  const list = $("notes");
  const wanted = new Set();
  let cursor = list.firstElementChild;
  for (const note of state.notes) {
    wanted.add(note.id);
    let card = cards.get(note.id);
    if (!card) {
      card = { note, element: noteElement(note, false) };
      cards.set(note.id, card);
    } else if (card.note !== note && state.editing !== note.id) {
      noteElement(note, false, card.element);
      card.note = note;
    }
    if (card.element !== cursor) list.insertBefore(card.element, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const [id, card] of cards) {
    if (!wanted.has(id)) {
      card.element.remove();
      cards.delete(id);
    }
  }
  // Written only when it changes: this runs on every live event.
  const empty = t(state.search ? "searchNone" : "empty");
  $("notes-empty").hidden = state.notes.length > 0;
  if ($("notes-empty").textContent !== empty) $("notes-empty").textContent = empty;
  $("load-more").hidden = !state.hasMore;
}

/// The card of this note is made again at the next render (a slow mark came, an edit
/// form closed), in its place.
function remake(id) {
  const card = cards.get(id);
  if (card) card.note = null;
}

/// Relative times ("5 min ago") written again, nothing else touched.
function refreshTimes() {
  for (const time of document.querySelectorAll(".note time")) time.textContent = relativeTime(time.dateTime);
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
/// left what the list shows. A note older than the pages loaded is left out: it is
/// there when its page is.
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
  if (state.view === "note" && state.open === note.id && state.editing !== note.id) loadDetail();
}

async function noteAction(id, action) {
  answered(await api(`/api/notes/${encodeURIComponent(id)}/${action}`, { json: {} }));
}

function setFilter(filter) {
  state.filter = filter;
  state.search = "";
  $("search").value = "";
  renderBanners();
  showView("inbox", { push: true });
  loadNotes();
}

// ----- one note ----------------------------------------------------------------------

function openNote(id) {
  state.open = id;
  showView("note", { push: true });
}

async function loadDetail() {
  const id = state.open;
  const article = $("note-detail");
  let detail;
  try {
    detail = await api(`/api/notes/${encodeURIComponent(id)}`);
  } catch (failure) {
    if (failure instanceof NoSession || state.open !== id) return;
    article.replaceChildren(
      paragraph("empty", failure.status === 404 ? t("noteMissing") : t("actionFailed")),
    );
    return;
  }
  if (state.open !== id || state.view !== "note") return;
  state.detail = detail;
  renderDetail(detail);
}

function renderDetail(note) {
  const article = $("note-detail");
  article.dataset.id = note.id;
  article.dataset.status = note.ai_status;
  const name = headline(note);
  const named = { title: name };
  const heading = document.createElement("h2");
  heading.textContent = name;
  heading.tabIndex = -1;
  const when = paragraph("hint", t("created", { when: relativeTime(note.created_at) }));
  if (note.updated_at !== note.created_at) when.append(` · ${t("edited", { when: relativeTime(note.updated_at) })}`);

  // The body as the service rendered and cleaned it (src/render.rs). Its checklist
  // items tick: each tick is an edit of the body.
  const rendered = document.createElement("div");
  rendered.className = "rendered";
  rendered.innerHTML = note.body_html;
  [...rendered.querySelectorAll("input[type=checkbox]")].forEach((box, index) => {
    box.disabled = Boolean(note.deleted_at);
    box.setAttribute("aria-label", (box.parentElement.textContent || "").trim() || String(index + 1));
    box.addEventListener("change", guarded(async () => {
      const ticked = await api(`/api/notes/${encodeURIComponent(note.id)}/tasks/${index}`, {
        json: { done: box.checked },
      });
      answered(ticked);
    }));
  });

  const ai = document.createElement("section");
  ai.className = "ai-section";
  const aiHeading = document.createElement("h3");
  aiHeading.textContent = t("aiSection");
  const facts = document.createElement("dl");
  const fact = (label, value, source) => {
    const term = document.createElement("dt");
    term.textContent = label;
    const description = document.createElement("dd");
    description.append(value);
    if (source) description.append(" ", Object.assign(document.createElement("span"), { className: "source", textContent: `(${source})` }));
    facts.append(term, description);
  };
  const fromAi = (byUser) => {
    if (byUser) return t("byYou");
    return note.ai_read_chars != null ? `${t("byAi")}, ${t("fromFirst", { n: note.ai_read_chars })}` : t("byAi");
  };
  if (note.title) fact(t("aiTitle"), note.title, fromAi(note.title_set_by_user));
  const tags = document.createElement("span");
  for (const tag of note.tags) {
    tags.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag", t("filterByTag", { tag })), " ");
  }
  if (!note.tags.length) tags.textContent = t("noTags");
  fact(t("aiTags"), tags, note.tags.length ? fromAi(note.tags_set_by_user) : null);
  if (note.summary) fact(t("aiSummary"), note.summary, fromAi(false));
  ai.append(aiHeading, facts);
  const progress = note.ai;
  if (note.ai_status === "done") ai.append(paragraph("hint", t("aiDoneState")));
  if (note.ai_status === "pending") {
    const line = progress.attempts
      ? t("aiPendingState", { n: progress.attempts, max: progress.max_attempts })
      : t("aiPendingFresh");
    const waits = progress.next_run_at && Date.parse(progress.next_run_at) > Date.now() + 1000;
    ai.append(paragraph("hint", waits ? `${line} ${t("aiNextRun", { when: relativeTime(progress.next_run_at) })}` : line));
    if (progress.slow_timeouts) ai.append(paragraph("slow-note", t("aiSlowCount", { n: progress.slow_timeouts })));
  }
  if (note.ai_status === "failed") {
    ai.append(paragraph("ai-error", `${t("aiFailedState")} ${failureText(note, progress.attempts)}`));
    if (note.ai_error) ai.append(details(note.ai_error));
  }

  const actions = document.createElement("div");
  actions.className = "detail-actions";
  const back = () => renderDetail(state.detail);
  if (note.deleted_at) {
    actions.append(paragraph("hint", t("inTrash", { when: relativeTime(note.deleted_at) })));
    actions.append(button(t("restore"), () => noteAction(note.id, "restore"), "restore", t("restoreNote", named)));
  } else {
    actions.append(
      button(t("edit"), () => editNote(article, state.detail, back), "edit", t("editNote", named)),
      aiButton(note, named),
      button(t("trash"), () => trashNote(note), "trash", t("trashNote", named)),
    );
  }
  actions.append(deleteButton(note, named, () => goBack()));
  article.replaceChildren(heading, when, rendered, ai, actions);
}

/// Back to the list: the browser's Back when the list is what came before, or the
/// list itself when the note was opened from its address.
function goBack() {
  if (history.state && history.state.fromList) history.back();
  else {
    state.open = null;
    showView("inbox", { push: true });
  }
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
      remake(slow.note_id);
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
      if (state.view === "note") loadDetail();
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

function setOffline(offline) {
  if (state.offline === offline) return;
  state.offline = offline;
  renderBanners();
}

// Reads the live feed until it ends, then connects again (the service restarted, or
// stopped for a while). Every (re)connection first catches up on what was missed; the
// counts and the provider's health come as the feed's first events. While there is no
// feed the page says the service is not running; the draft stays in the box.
async function connectLive() {
  for (;;) {
    try {
      const response = await fetch("/api/events", { credentials: "omit", headers: withSession() });
      if (response.status === 401) return signedOut();
      if (response.ok && response.body) {
        live.retryMs = 500;
        setOffline(false);
        loadNotes();
        if (state.view === "trash") loadTrash();
        if (state.view === "note") loadDetail();
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
            // A page bug in one handler must not end the feed (and so the updates).
            if (handler) {
              try {
                handler(JSON.parse(frame.data));
              } catch (error) {
                console.error(error);
              }
            }
          }
        }
      }
    } catch (error) {
      // The service is not there (yet): try again below.
    }
    setOffline(true);
    await new Promise((resolve) => setTimeout(resolve, live.retryMs));
    live.retryMs = Math.min(live.retryMs * 2, 10000);
  }
}

// ----- views -------------------------------------------------------------------------

/// Shows one view. `push`: a new history entry (a move a person goes Back from);
/// `address: false`: the address already says it (start-up, Back).
function showView(view, { push = false, address = true } = {}) {
  const fromList = state.view === "inbox" && view === "note";
  state.view = view;
  if (view !== "note") {
    state.open = null;
    state.detail = null;
  }
  for (const name of ["inbox", "tags", "trash", "stats", "note"]) {
    $(`${name}-view`).hidden = name !== view;
  }
  // The capture box belongs to the notes list, where a saved note shows up.
  $("capture").hidden = view !== "inbox";
  for (const tab of document.querySelectorAll("#views button[data-view]")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.view === view || (view === "note" && tab.dataset.view === "inbox")));
  }
  if (address) {
    writeAddress(push);
    if (fromList && push) history.replaceState({ fromList: true }, "", location.href);
  }
  if (view === "trash") loadTrash();
  if (view === "stats") loadStats();
  if (view === "tags") loadTags();
  if (view === "note") {
    $("note-detail").replaceChildren();
    loadDetail().then(() => {
      const heading = $("note-detail").querySelector("h2");
      if (heading) heading.focus();
    });
  }
  if (view === "inbox") recheckNearTheEnd();
  if (view === "inbox" && state.selected) {
    const card = cards.get(state.selected);
    if (card) card.element.querySelector("a.open").focus();
  }
}

/// The tags view: every tag with its count, a filter on click, and a rename box.
async function loadTags() {
  const tags = await api("/api/tags");
  $("tags-empty").hidden = tags.length > 0;
  $("tags").replaceChildren(
    ...tags.map(({ tag, count }) => {
      const row = document.createElement("li");
      row.dataset.tag = tag;
      row.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag", t("filterByTag", { tag })));
      const uses = document.createElement("span");
      uses.className = "count";
      uses.textContent = t("notesCount", { n: count });
      row.append(uses);
      const form = document.createElement("form");
      const name = document.createElement("input");
      name.value = tag;
      name.maxLength = 32;
      name.setAttribute("aria-label", t("renameTo", { tag }));
      const rename = document.createElement("button");
      rename.type = "submit";
      rename.textContent = t("rename");
      rename.setAttribute("aria-label", `${t("rename")}: #${tag}`);
      form.append(name, rename);
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        if (!name.value.trim() || name.value.trim() === tag) return;
        try {
          const done = await api(`/api/tags/${encodeURIComponent(tag)}/rename`, {
            json: { to: name.value },
          });
          const values = { from: tag, to: done.tag, notes: t("notesCount", { n: done.notes }) };
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
    $("transfer-result").textContent = t("notesExported", { n: document_.notes.length, file });
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
    const values = { imported: t("notesCount", { n: imported }), skipped: t("notesCount", { n: skipped }) };
    $("transfer-result").textContent = t(skipped ? "notesImported" : "notesImportedNone", values);
  } catch (failure) {
    if (!(failure instanceof NoSession)) $("transfer-result").textContent = failure.message;
  }
}

/// Under the service's request limit (twice `http.max_body_bytes`, 128 KiB by default).
const IMPORT_BATCH_BYTES = 100_000;

async function loadTrash() {
  const notes = await api("/api/notes?trash=true&limit=500");
  $("trash-notes").replaceChildren(...notes.map((note) => noteElement(note, true)));
  $("trash-empty").hidden = notes.length > 0;
  document.querySelector(".trash-actions").hidden = notes.length === 0;
}

// ----- the stats view ---------------------------------------------------------------

const SVG = "http://www.w3.org/2000/svg";

function svg(name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/// The last `n` days as "YYYY-MM-DD" (UTC, as the usage log counts them), oldest first.
function lastDays(n) {
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  return Array.from({ length: n }, (_, i) => new Date(today - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/// A day as a person reads it: "Dec 2" / "12월 2일".
function shortDay(day) {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString(state.locale, { month: "short", day: "numeric", timeZone: "UTC" });
}

async function loadStats() {
  const [stats, tags, waiting] = await Promise.all([
    api("/api/stats?format=json"),
    api("/api/tags"),
    api("/api/notes?status=pending&limit=500"),
  ]);
  const counted = (day) => stats.days[day] || { captured: 0, aiDone: 0 };

  // At a glance: this week, the top tags, the oldest note still waiting.
  const week = lastDays(7).map(counted);
  const sum = (days, key) => days.reduce((total, day) => total + (day[key] || 0), 0);
  $("stat-week").textContent = t("thisWeekValue", { n: sum(week, "captured") });
  $("stat-week-ai").textContent = t("thisWeekAi", { n: sum(week, "aiDone") });
  const top = $("stat-tags");
  top.replaceChildren();
  for (const { tag, count } of tags.slice(0, 5)) {
    top.append(button(`#${tag}`, () => setFilter({ tag, expired: false }), "tag", t("filterByTag", { tag })), ` ${count.toLocaleString(state.locale)} `);
  }
  if (!tags.length) top.textContent = t("tagsEmpty");
  const oldest = waiting[waiting.length - 1];
  const oldestCell = $("stat-oldest");
  oldestCell.replaceChildren();
  if (oldest) {
    const link = document.createElement("a");
    link.href = noteAddress(oldest.id);
    link.textContent = headline(oldest);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openNote(oldest.id);
    });
    oldestCell.append(link, " · ", timeElement(oldest.created_at));
  } else {
    oldestCell.textContent = t("nothingWaiting");
  }

  drawChart(lastDays(30).map((day) => [day, counted(day)]));
  diagnosticsTable(stats);
}

/// Notes written per day as bars, the AI's per day as a line, every one of the last 30
/// days on the axis (a day with none is a gap, so day one reads as one bar), with a
/// scale and dates, and the same said in words for a screen reader.
function drawChart(days) {
  const chart = $("chart");
  chart.replaceChildren();
  const [left, right, top, bottom] = [34, 592, 12, 150];
  const max = Math.max(1, ...days.map(([, c]) => Math.max(c.captured, c.aiDone)));
  // A round top for the scale: 1, 2, 5, 10, 20, 50…
  const step = [1, 2, 5].map((m) => m * 10 ** Math.floor(Math.log10(max))).find((s) => s * Math.ceil(max / s) >= max);
  const ceiling = Math.max(step, Math.ceil(max / step) * step);
  const slot = (right - left) / days.length;
  const y = (value) => bottom - (value / ceiling) * (bottom - top);
  for (const value of [0, ceiling / 2, ceiling]) {
    chart.append(svg("line", { class: "axis", x1: left, x2: right, y1: y(value), y2: y(value) }));
    chart.append(svg("text", { x: left - 6, y: y(value) + 4, "text-anchor": "end" }, Number.isInteger(value) ? value.toLocaleString(state.locale) : ""));
  }
  days.forEach(([day, c], i) => {
    const height = bottom - y(c.captured);
    if (height > 0) {
      const bar = svg("rect", { class: "bar", x: left + i * slot + 2, y: y(c.captured), width: Math.max(slot - 4, 1), height });
      bar.append(svg("title", {}, `${shortDay(day)}: ${c.captured} / ${c.aiDone}`));
      chart.append(bar);
    }
  });
  const points = days.map(([, c], i) => `${left + i * slot + slot / 2},${y(c.aiDone)}`).join(" ");
  chart.append(svg("polyline", { class: "line", points }));
  for (const i of [0, Math.floor(days.length / 2), days.length - 1]) {
    const anchor = i === 0 ? "start" : i === days.length - 1 ? "end" : "middle";
    const x = i === 0 ? left : i === days.length - 1 ? right : left + i * slot + slot / 2;
    chart.append(svg("text", { x, y: bottom + 18, "text-anchor": anchor }, shortDay(days[i][0])));
  }
  const captured = days.reduce((total, [, c]) => total + c.captured, 0);
  const done = days.reduce((total, [, c]) => total + c.aiDone, 0);
  const busiest = days.reduce((best, entry) => (entry[1].captured > best[1].captured ? entry : best), days[0]);
  $("chart-summary").textContent = captured
    ? t("chartSummary", {
        captured: t("notesCount", { n: captured }),
        done: t("notesCount", { n: done }),
        day: shortDay(busiest[0]),
        most: t("notesCount", { n: busiest[1].captured }),
      })
    : t("chartEmpty");
}

/// The developer's daily counters, behind "Diagnostics".
function diagnosticsTable(stats) {
  const days = Object.entries(stats.days).sort(([a], [b]) => (a < b ? 1 : -1));
  const head = document.createElement("tr");
  for (const column of state.strings.columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = column;
    head.append(th);
  }
  $("stats-table").tHead.replaceChildren(head);
  const rows = days.map(([day, c]) => {
    const row = document.createElement("tr");
    const values = [day, c.captured, c.aiDone, c.aiFailedSchema, c.aiFailedOther, c.ollamaRechecks, c.aiRetries];
    for (const value of values) {
      const td = document.createElement("td");
      td.textContent = typeof value === "number" ? value.toLocaleString(state.locale) : String(value);
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
}

// ----- the keyboard ------------------------------------------------------------------

/// j/k: the next or previous card gets the focus (and its outline).
function moveSelection(step) {
  if (!state.notes.length) return;
  const at = state.notes.findIndex((note) => note.id === state.selected);
  const next = Math.min(state.notes.length - 1, Math.max(0, at < 0 ? 0 : at + step));
  select(state.notes[next].id);
  if (next >= state.notes.length - 3) loadMore();
}

function select(id) {
  const old = state.selected && cards.get(state.selected);
  if (old) old.element.classList.remove("selected");
  state.selected = id;
  const card = cards.get(id);
  if (!card) return;
  card.element.classList.add("selected");
  card.element.querySelector("a.open").focus();
  card.element.scrollIntoView({ block: "nearest" });
}

/// The note a key acts on: the open one, or the selected card.
function noteInHand() {
  if (state.view === "note") return state.detail;
  if (state.view !== "inbox") return null;
  return state.notes.find((note) => note.id === state.selected) || null;
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  // A checkbox (a checklist item) takes no letters: the keys still work there.
  const typing = event.target.closest && event.target.closest("input:not([type=checkbox]), textarea, select, dialog");
  if (event.key === "Escape" && !$("help").open) {
    if (typing && event.target.id === "search" && $("search").value) {
      $("search").value = "";
      $("search").dispatchEvent(new Event("input"));
      return;
    }
    if (typing) return;
    if (state.view === "note") return goBack();
    if (state.search) {
      $("search").value = "";
      $("search").dispatchEvent(new Event("input"));
    } else if (state.filter.tag || state.filter.expired) setFilter({ tag: null, expired: false });
    return;
  }
  if (typing) return;
  const note = noteInHand();
  const act = {
    "/": () => {
      if (state.view !== "inbox") showView("inbox", { push: true });
      $("search").focus();
    },
    n: () => {
      if (state.view !== "inbox") showView("inbox", { push: true });
      $("capture-body").focus();
    },
    j: () => state.view === "inbox" && moveSelection(1),
    k: () => state.view === "inbox" && moveSelection(-1),
    e: () => {
      if (!note || note.deleted_at) return;
      if (state.view === "note") editNote($("note-detail"), note, () => renderDetail(state.detail));
      else editNote(cards.get(note.id).element, note, renderNotes);
    },
    "#": () => note && !note.deleted_at && guarded(() => trashNote(note))(),
    "?": () => $("help").showModal(),
  }[event.key];
  if (act) {
    event.preventDefault();
    act();
  }
}

// ----- controls ----------------------------------------------------------------------

async function capture() {
  const body = $("capture-body").value;
  if (!body.trim()) return;
  let note;
  try {
    note = await api("/api/notes", { json: { body } });
  } catch (failure) {
    if (failure instanceof NoSession) return;
    // The draft stays in the box (and in storage): nothing typed is lost.
    if (!(failure instanceof ApiFailure)) return showProblem(t("notSavedOffline"), failure.message);
    if (failure.status === 507) return showProblem(t("notSavedFull"), failure.message);
    if (failure.status >= 500) return showProblem(t("notSavedProblem"), failure.message);
    return showProblem(t("notSaved", { reason: failure.message }), "");
  }
  $("capture-body").value = "";
  localStorage.removeItem(DRAFT_KEY);
  $("capture-error").hidden = true;
  answered(note);
  // Saved under a filter or a search that does not show it: say so, with the way to it.
  const shown = state.notes.some((n) => n.id === note.id);
  const hidden = $("saved-hidden");
  hidden.hidden = shown;
  if (!shown) {
    hidden.querySelector(".text").textContent = state.search
      ? t("savedHiddenSearch")
      : t("savedHidden", { filter: state.filter.tag ? `#${state.filter.tag}` : t("filterExpired") });
  }
}

function wireControls() {
  for (const tab of document.querySelectorAll("#views button[data-view]")) {
    tab.addEventListener("click", () => showView(tab.dataset.view, { push: true }));
  }
  $("help-open").addEventListener("click", () => $("help").showModal());
  $("help-close").addEventListener("click", () => $("help").close());
  $("back").addEventListener("click", goBack);
  $("capture").addEventListener("submit", (event) => {
    event.preventDefault();
    capture();
  });
  $("show-saved").addEventListener("click", () => {
    $("saved-hidden").hidden = true;
    setFilter({ tag: null, expired: false });
  });
  $("capture-body").addEventListener("input", () => {
    const draft = $("capture-body").value;
    if (draft) localStorage.setItem(DRAFT_KEY, draft);
    else localStorage.removeItem(DRAFT_KEY);
    $("saved-hidden").hidden = true;
  });
  $("capture-body").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("capture").requestSubmit();
    }
    if (event.key === "Escape") $("capture-body").blur();
  });
  for (const dismiss of document.querySelectorAll("button.dismiss")) {
    dismiss.addEventListener("click", () => {
      const banner = $(dismiss.dataset.banner);
      state.dismissed.set(banner.id, banner.dataset.says);
      banner.hidden = true;
    });
  }
  $("retry").addEventListener("click", guarded(async () => {
    // Optimistic (docs/DESIGN.md, "The inbox page"): the banner goes at once, and the
    // pending line says what is being retried; the real counts follow live.
    state.retry = { sent: state.counts.failed };
    state.counts.pending += state.counts.failed;
    state.counts.failed = 0;
    renderBanners();
    await api("/api/inbox/retry-all-failed", { json: {} });
  }));
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
  $("recheck").addEventListener("click", guarded(async () => {
    state.health = await api("/api/ollama/recheck", { json: {} });
    renderBanners();
  }));
  $("review-expired").addEventListener("click", () => setFilter({ tag: null, expired: true }));
  $("trash-expired").addEventListener("click", guarded(async () => {
    const moved = await api("/api/inbox/trash-expired", { json: {} });
    setFilter({ tag: null, expired: false });
    if (moved.count > 0) offerUndo(t("movedManyToTrash", { n: moved.count }), moved.ids);
  }));
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
  // Results as you type: the list follows the box once typing pauses; the address
  // follows in place (a search is not a step to go Back through letter by letter).
  let typing = null;
  $("search").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const words = $("search").value.trim();
      if (words === state.search) return;
      state.search = words;
      if (state.view !== "inbox") showView("inbox", { push: true });
      else writeAddress(false);
      loadNotes();
    }, 150);
  });
  document.addEventListener("keydown", onKey);
  $("load-more").addEventListener("click", guarded(loadMore));
  nearTheEnd.observe($("load-more"));
  $("export-notes").addEventListener("click", exportNotes);
  $("import-notes").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", async () => {
    const files = [...$("import-file").files];
    $("import-file").value = "";
    if (files.length) await importNotes(files);
  });
  $("export").addEventListener("click", guarded(async () => {
    const result = await api("/api/usage-log/export", { json: {} });
    $("export-result").textContent = t("exported", { path: result.path });
  }));
  // Relative times ("5 min ago") stay true while the page is open.
  setInterval(refreshTimes, 60_000);
}

start().catch((error) => {
  console.error(error);
});
