// Where the page is: the view shown (notes, today, one note, tags, trash, stats), the
// tag or expired filter and the search, and the address that says the same (`?note=ID`,
// `?view=today|trash|tags|stats`, `?tag=cooking`, `?expired=1`, `?q=words`), so Back, reload
// and bookmarks work. Each feature says what it does when its view is shown
// (`whenShown`); the notes list says how it reloads when the filter or the search
// changes (`onListChange`).

import { $ } from "./dom.js";
import { state, update } from "./store.js";

const VIEWS = ["inbox", "today", "tags", "trash", "stats", "note"];
const shownHandlers = new Map();
let reloadList = () => {};

export function whenShown(view, handler) {
  shownHandlers.set(view, handler);
}

export function onListChange(handler) {
  reloadList = handler;
}

/// Reads the address into the state (`place`) and the search box.
export function readAddress() {
  const params = new URLSearchParams(location.search);
  const place = state.place;
  place.open = params.get("note");
  const view = params.get("view");
  place.view = place.open ? "note" : ["today", "tags", "trash", "stats"].includes(view) ? view : "inbox";
  place.filter = { tag: params.get("tag"), expired: params.get("expired") === "1" };
  place.search = (params.get("q") || "").trim();
  $("search").value = place.search;
}

/// Puts where the page is into the address: a new history entry (`push`) for a move a
/// person would go Back from (opening a note, another view, a filter), or in place.
export function writeAddress(push) {
  const { view, open, filter, search } = state.place;
  const params = new URLSearchParams();
  if (view === "note" && open) params.set("note", open);
  else if (view !== "inbox") params.set("view", view);
  if (filter.tag) params.set("tag", filter.tag);
  if (filter.expired) params.set("expired", "1");
  if (search) params.set("q", search);
  const address = params.size ? `/?${params}` : "/";
  if (address === location.pathname + location.search) return;
  if (push) history.pushState(null, "", address);
  else history.replaceState(null, "", address);
}

/// What decides which notes the list holds.
function listKey() {
  return JSON.stringify([state.place.filter, state.place.search]);
}

/// Shows one view. `push`: a new history entry (a move a person goes Back from);
/// `address: false`: the address already says it (start-up, Back).
export function showView(view, { push = false, address = true } = {}) {
  const place = state.place;
  const fromList = place.view === "inbox" && view === "note";
  place.view = view;
  if (view !== "note") {
    place.open = null;
    state.detail.note = null;
  }
  for (const name of VIEWS) $(`${name}-view`).hidden = name !== view;
  // The capture box belongs to the notes list, where a saved note shows up.
  $("capture").hidden = view !== "inbox";
  for (const tab of document.querySelectorAll("#views button[data-view]")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.view === view || (view === "note" && tab.dataset.view === "inbox")));
  }
  if (address) {
    writeAddress(push);
    if (fromList && push) history.replaceState({ fromList: true }, "", location.href);
  }
  const shown = shownHandlers.get(view);
  if (shown) shown();
}

export function openNote(id) {
  state.place.open = id;
  showView("note", { push: true });
}

/// A link to a note's address (`data-note`: an answer saved from Ask links its sources
/// so) opens the note in the page, as a card's title does; with a modifier, or a
/// middle click, the browser opens the address as it would.
export function wireNoteLinks() {
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest("a[data-note]");
    if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    openNote(link.dataset.note);
  });
}

/// Back to the list: the browser's Back when the list is what came before, or the
/// list itself when the note was opened from its address.
export function goBack() {
  if (history.state && history.state.fromList) history.back();
  else {
    state.place.open = null;
    showView("inbox", { push: true });
  }
}

/// Filters the list by a tag, or to the expired notes (or neither); the search ends.
export function setFilter(filter) {
  update((s) => {
    s.place.filter = filter;
    s.place.search = "";
  });
  $("search").value = "";
  showView("inbox", { push: true });
  reloadList();
}

export const filterByTag = (tag) => setFilter({ tag, expired: false });

/// The search box's words, once typing pauses: the list follows; the address follows
/// in place (a search is not a step to go Back through letter by letter).
export function setSearch(words) {
  if (words === state.place.search) return;
  state.place.search = words;
  if (state.place.view !== "inbox") showView("inbox", { push: true });
  else writeAddress(false);
  reloadList();
}

window.addEventListener("popstate", () => {
  const before = listKey();
  readAddress();
  showView(state.place.view, { address: false });
  update();
  if (listKey() !== before) reloadList();
});
