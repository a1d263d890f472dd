// The notes list (and a search's hits): loading it and its pages, placing a note that
// changed (from a live event or this page's own answer), the cards on the page (drawn
// by the keyed list renderer from `state.list`), j/k selection, and the actions a
// card offers. Other views hear of a changed note through `onNoteChanged`.

import * as api from "./api.js";
import { t, relativeTime } from "./i18n.js";
import { $, guarded } from "./dom.js";
import { card } from "./card.js";
import { editNote } from "./edit.js";
import { isExpired } from "./facts.js";
import { renderKeyed, elementFor, invalidate } from "./keyed-list.js";
import { arrival, keepCount } from "./list-window.js";
import { offerUndo } from "./banners.js";
import * as expiry from "./expiry.js";
import { filterByTag, onListChange, openNote, setFilter, whenShown } from "./navigation.js";
import { state, update, flush, onRender } from "./store.js";

// The first page is small, so the first cards come quickly; the pages loaded while
// scrolling are larger, so the end of a long list is fewer loads away.
const PAGE_SIZE = 50;
const MORE_SIZE = 200;
// A search is ranked, not paged by date: it shows its best SEARCH_SIZE hits, and
// scrolling asks for SEARCH_SIZE more at a time (the whole ranked list again, one
// longer), up to the most the service answers at once. One hit more than shown is
// asked for, so the page knows there are more and says so.
const SEARCH_SIZE = 100;
const SEARCH_MOST = 500;
// How far below the screen the next page starts loading, in pixels.
const LOAD_AHEAD_PX = 1200;

const changedListeners = [];

/// `listener(note)` hears of every note that changed, after the list placed it.
export function onNoteChanged(listener) {
  changedListeners.push(listener);
}

/// How many hits a search showing `shown` asks for: one more, to know whether there
/// are more, except at the most the service answers.
export const searchLimit = (shown) => Math.min(shown + 1, SEARCH_MOST);

/// What a search's answer shows: at most `shown` hits, whether there are more to load,
/// and whether the list stops at the most the service answers (more may match).
export function searchPage(hits, shown) {
  const asked = searchLimit(shown);
  return {
    notes: hits.slice(0, shown),
    hasMore: hits.length > shown,
    capped: asked === SEARCH_MOST && hits.length >= SEARCH_MOST,
  };
}

function listQuery(before) {
  const { filter, search } = state.place;
  return {
    limit: search ? searchLimit(state.list.searchShown) : before ? MORE_SIZE : PAGE_SIZE,
    tag: filter.tag || undefined,
    expired: filter.expired ? "true" : undefined,
    q: search || undefined,
    before: search ? undefined : before,
  };
}

/// The list's notes for `query`: a page of notes, or a search's hits (the hybrid
/// search: its hits, and why it found by words only, when it did).
async function readList(query) {
  if (!query.q) return { notes: await api.notes(query), keywordOnly: null };
  const answer = await api.search(query);
  return { notes: answer.hits, keywordOnly: answer.keyword_only ?? null };
}

/// Asks for the list's first page; `showList` shows it.
export function beginListLoad() {
  const asked = ++state.list.loads;
  state.list.searchShown = SEARCH_SIZE;
  state.list.changedDuringLoad = new Map();
  state.list.newerLater = false;
  return readList(listQuery()).then((read) => ({ asked, ...read }));
}

export async function loadNotes() {
  showList(await beginListLoad());
}

onListChange(loadNotes);

/// Shows a list load's first page, unless a newer load was asked for since.
export function showList({ asked, notes, keywordOnly = null }) {
  const list = state.list;
  if (asked !== list.loads) return; // a newer load is on its way
  const changed = list.changedDuringLoad;
  list.changedDuringLoad = null;
  update(() => {
    list.keywordOnly = keywordOnly;
    if (state.place.search) Object.assign(list, searchPage(notes, list.searchShown));
    else {
      list.notes = notes;
      list.hasMore = notes.length === PAGE_SIZE;
      list.capped = false;
    }
    // The list may show these as they were before their change.
    for (const note of changed.values()) placeNote(note);
  });
  // A list is drawn when it comes (not at the end of the task): the first cards go
  // before the controls are wired.
  flush();
  // For the browser tests' benchmark (docs/PERFORMANCE.md): when the first cards were there.
  if (!performance.getEntriesByName("inkling:first-cards").length) performance.mark("inkling:first-cards");
  recheckNearTheEnd();
}

/// The next page, appended: the cards already there stay as they are.
export async function loadMore() {
  const list = state.list;
  const last = list.notes[list.notes.length - 1];
  if (!last || list.loadingMore || !list.hasMore) return;
  if (state.place.search) return loadMoreHits();
  list.loadingMore = true;
  try {
    const asked = list.loads;
    const more = await api.notes(listQuery(last.id));
    if (asked !== list.loads) return; // the list was loaded anew meanwhile
    update(() => {
      const known = new Set(list.notes.map((note) => note.id));
      list.notes = list.notes.concat(more.filter((note) => !known.has(note.id)));
      list.hasMore = more.length === MORE_SIZE;
    });
  } finally {
    list.loadingMore = false;
  }
  queueMicrotask(recheckNearTheEnd);
}

/// A search's next hits: the ranked list asked for again, SEARCH_SIZE longer; the
/// cards already there stay (the same notes, in the same order).
async function loadMoreHits() {
  const list = state.list;
  list.loadingMore = true;
  try {
    const asked = list.loads;
    const shown = Math.min(list.searchShown + SEARCH_SIZE, SEARCH_MOST);
    const { notes: hits, keywordOnly } = await readList({ ...listQuery(), limit: searchLimit(shown) });
    if (asked !== list.loads) return; // another search meanwhile
    update(() => {
      list.searchShown = shown;
      list.keywordOnly = keywordOnly;
      Object.assign(list, searchPage(hits, shown));
    });
  } finally {
    list.loadingMore = false;
  }
  queueMicrotask(recheckNearTheEnd);
}

/// Scrolling near the end loads the next page (the "Load more" button stays for
/// keyboards and for a page too short to scroll). The browser says when the button
/// comes within reach (an IntersectionObserver: no layout forced while scrolling);
/// after a page is in, it is asked again, as the button may still be within reach.
const nearTheEnd = new IntersectionObserver(
  (entries) => {
    state.list.buttonNear = entries[entries.length - 1].isIntersecting;
    if (state.list.buttonNear) loadMoreIfNear();
  },
  { rootMargin: `0px 0px ${LOAD_AHEAD_PX}px 0px` },
);

/// Asks the observer anew: it answers at once whether the button is within reach now.
function recheckNearTheEnd() {
  nearTheEnd.unobserve($("load-more"));
  nearTheEnd.observe($("load-more"));
  addEventListener("scroll", scrolled, { passive: true });
}

function loadMoreIfNear() {
  const list = state.list;
  if (!list.hasMore || state.place.view !== "inbox" || list.loadingMore || !list.buttonNear) return;
  loadMore();
}

function matchesFilter(note) {
  const filter = state.place.filter;
  if (note.deleted_at) return false;
  if (filter.tag && !note.tags.includes(filter.tag)) return false;
  return !filter.expired || isExpired(note);
}

/// Where a note goes in a list newest first: the index of the first note not newer.
export function placeByDate(notes, note) {
  const newer = (n) => n.created_at > note.created_at || (n.created_at === note.created_at && n.id > note.id);
  return notes.findIndex((n) => !newer(n));
}

/// Puts a note as it is now into the list: in place, on top if it is new, out if it
/// left what the list shows. A note older than the pages loaded is left out: it is
/// there when its page is. (A new array: the renderer sees the list changed.)
function placeNote(note) {
  const list = state.list;
  const notes = list.notes.slice();
  const index = notes.findIndex((n) => n.id === note.id);
  if (state.place.search) {
    // Hits stay where their rank put them, with their snippet; new notes wait for the
    // next search, and a note that left the view (trashed) leaves the hits.
    if (index < 0) return;
    if (matchesFilter(note)) notes[index] = { ...note, snippet: notes[index].snippet, found_by: notes[index].found_by };
    else notes.splice(index, 1);
  } else if (matchesFilter(note)) {
    if (index >= 0) notes[index] = note;
    else {
      // In its place by date (a new note on top, a restored one where it was), within
      // the list's window (list-window.js): the list keeps a bounded number of cards
      // however many notes arrive while the page is open.
      const rule = arrival({
        at: placeByDate(notes, note),
        length: notes.length,
        hasMore: list.hasMore,
        atTop: list.atTop,
        held: heldAt(notes),
      });
      list.hasMore = rule.hasMore;
      if (rule.newerLater) list.newerLater = true;
      if (rule.insert === null) return;
      notes.splice(rule.insert, 0, note);
      notes.length = rule.keep;
    }
  } else if (index >= 0) {
    notes.splice(index, 1);
  } else return;
  list.notes = notes;
}

/// Where the note being edited in its card is on `notes` (-1: none): it is never dropped.
const heldAt = (notes) => (state.editing ? notes.findIndex((n) => n.id === state.editing) : -1);

/// The person scrolled: whether they are at the top of the list (within a screen of
/// it) is what the list's window follows. Back at the top, the list shows the notes
/// that arrived meanwhile (loaded anew) or drops the cards far below. Read from
/// `scrollY` and `innerHeight` only, which force no layout.
function scrolled() {
  const list = state.list;
  if (state.place.view !== "inbox") return; // another view's scroll says nothing of the list
  const atTop = scrollY <= innerHeight;
  if (atTop === list.atTop) return;
  list.atTop = atTop;
  if (!atTop || state.place.search) return;
  if (list.newerLater) {
    loadNotes();
    return;
  }
  const keep = keepCount({ length: list.notes.length, atTop, held: heldAt(list.notes) });
  if (keep < list.notes.length)
    update(() => {
      list.notes = list.notes.slice(0, keep);
      list.hasMore = true;
    });
}

/// A note changed somewhere (this page, the CLI, the AI), and this is it now.
export function noteChanged(note) {
  update((s) => {
    // Done, trashed or edited: a slow mark is over (the next timeout brings it back).
    if (s.service.slow.has(note.id)) {
      s.service.slow = new Map(s.service.slow);
      s.service.slow.delete(note.id);
    }
    if (s.list.changedDuringLoad) s.list.changedDuringLoad.set(note.id, note);
    placeNote(note);
  });
  for (const listener of changedListeners) listener(note);
}

/// A note from the answer to this page's own request (a capture, a trash): it
/// travelled on another connection than the events and may be older than what an
/// event already showed (a note enriched before the capture's answer came), so it
/// replaces only an older version.
export function answered(note) {
  const shown = state.list.notes.find((n) => n.id === note.id);
  if (shown && shown.updated_at >= note.updated_at) return;
  noteChanged(note);
}

export async function noteAction(id, action) {
  answered(await api.noteAction(id, action));
}

export async function trashNote(note) {
  await noteAction(note.id, "trash");
  offerUndo(t("movedToTrash"), [note.id], (id) => noteAction(id, "restore"));
}

/// Edits a note in its card; the card is kept as the form until it closes.
export function editInCard(item, note) {
  invalidate($("notes"), note.id);
  editNote(item, note, { saved: answered, closed: () => update() });
  // Drawn with the card held, so that closing the form (Esc, Cancel: nothing else
  // changed) is a change the list sees, and the card comes back.
  update();
}

// What a card's buttons do. A note opened from its card is the list's place: Back
// returns to it, and the next `j` goes on from it. Ask's cards of its sources do the
// same (ask.js).
export const actions = {
  open: (id) => {
    mark(id);
    openNote(id);
  },
  filterTag: filterByTag,
  action: noteAction,
  edit: editInCard,
  trash: trashNote,
  // A checklist item ticked on the card: an edit of the body that keeps the AI's answer.
  tick: guarded(async (note, index, done) => answered(await api.tickTask(note.id, index, done))),
};

function renderNotes(s) {
  const { list, service, place } = s;
  const offerKeep = place.filter.expired;
  const items = list.notes.map((note) => ({
    key: note.id,
    data: { note, slow: (note.ai_status === "pending" && service.slow.get(note.id)) || null, offerKeep, maxAttempts: service.maxAttempts },
  }));
  // The card holding the focus, and where it was: a card made again (an edit closed,
  // a tick) or taken out (trashed) must not drop the focus to the page's top.
  const focused = document.activeElement && document.activeElement.closest("#notes .note");
  const focusedTask = focused && document.activeElement.dataset.task;
  const focusedAt = focused ? [...$("notes").children].indexOf(focused) : -1;
  renderKeyed(
    $("notes"),
    items,
    (data, item) => card(data.note, { ...actions, ...data, selected: list.selected }, item),
    (id) => id === s.editing,
  );
  if (focused && !$("notes").contains(document.activeElement)) keepFocus(focused.dataset.id, focusedAt, focusedTask);
  // Written only when it changes: this runs on every render.
  const empty = t(place.search ? "searchNone" : "empty");
  $("notes-empty").hidden = list.notes.length > 0;
  if ($("notes-empty").textContent !== empty) $("notes-empty").textContent = empty;
  $("load-more").hidden = !list.hasMore;
  // A search says how much of it is shown: "The first 100 matches…" while there are
  // more, "137 matches" once all are there.
  const count = $("search-count");
  count.hidden = !place.search || list.notes.length === 0;
  const n = list.notes.length;
  const said = list.hasMore ? t("searchFirst", { n }) : list.capped ? t("searchCapped", { n }) : t("searchCount", { n });
  if (count.textContent !== said) count.textContent = said;
  // One quiet line under the search box when the meaning could not be used.
  const mode = $("search-mode");
  const why = place.search && list.keywordOnly;
  mode.hidden = !why;
  const line = why ? t(`wordsOnly_${why.reason}`, { model: why.model ?? "" }) : "";
  if (mode.textContent !== line) mode.textContent = line;
}

// The list is drawn again only when something it shows changed.
let drawn = {};
onRender((s) => {
  const inputs = {
    notes: s.list.notes,
    slow: s.service.slow,
    filter: s.place.filter,
    search: s.place.search,
    maxAttempts: s.service.maxAttempts,
    editing: s.editing,
    hasMore: s.list.hasMore,
    capped: s.list.capped,
    keywordOnly: s.list.keywordOnly,
  };
  if (Object.keys(inputs).every((key) => inputs[key] === drawn[key])) return;
  drawn = inputs;
  renderNotes(s);
});

/// Relative times ("5 min ago") written again, nothing else touched.
function refreshTimes() {
  for (const time of document.querySelectorAll(".note time")) time.textContent = relativeTime(time.dateTime);
}

/// The focus lost by a render goes back to the card that had it, or, when that card
/// left the list (trashed), to the one that took its place.
function keepFocus(id, at, task) {
  const notes = state.list.notes;
  if (notes.some((note) => note.id === id)) {
    select(id);
    // A checklist item ticked on the card keeps the focus on its box.
    const box = task !== undefined && cardElement(id)?.querySelector(`input[data-task="${task}"]`);
    if (box) box.focus();
    return;
  }
  if (notes.length) select(notes[Math.min(at, notes.length - 1)].id);
}

/// j/k: the next or previous card gets the focus (and its outline). When the selected
/// card has left the list, the place it had is where the next move starts: `j` goes
/// to the card now there, `k` to the one before.
export function moveSelection(step) {
  const notes = state.list.notes;
  if (!notes.length) return;
  const at = notes.findIndex((note) => note.id === state.list.selected);
  const from = state.list.selectedAt;
  const next =
    at >= 0
      ? Math.min(notes.length - 1, Math.max(0, at + step))
      : from === null
        ? 0
        : Math.min(notes.length - 1, Math.max(0, step > 0 ? from : from - 1));
  select(notes[next].id);
  if (next >= notes.length - 3) loadMore();
}

/// The list's place is this note (its outline), without moving the focus.
function mark(id) {
  const old = state.list.selected && elementFor($("notes"), state.list.selected);
  if (old) old.classList.remove("selected");
  state.list.selected = id;
  const at = state.list.notes.findIndex((note) => note.id === id);
  if (at >= 0) state.list.selectedAt = at;
  const element = elementFor($("notes"), id);
  if (element) element.classList.add("selected");
  return element;
}

function select(id) {
  const element = mark(id);
  if (!element) return;
  element.querySelector("a.open").focus();
  element.scrollIntoView({ block: "nearest" });
}

/// The card element of a note on the list, if it is there.
export const cardElement = (id) => elementFor($("notes"), id);

whenShown("inbox", () => {
  recheckNearTheEnd();
  const selected = state.list.selected && cardElement(state.list.selected);
  if (selected) selected.querySelector("a.open").focus();
});

export function wireNotes() {
  $("load-more").addEventListener("click", guarded(loadMore));
  nearTheEnd.observe($("load-more"));
  addEventListener("scroll", scrolled, { passive: true });
  $("clear-filter").addEventListener("click", () => setFilter({ tag: null, expired: false }));
  $("review-expired").addEventListener("click", () => {
    expiry.answered();
    setFilter({ tag: null, expired: true });
  });
  $("keep-expired").addEventListener("click", guarded(async () => {
    await api.keepExpired();
    expiry.answered();
    update();
  }));
  $("trash-expired").addEventListener("click", guarded(async () => {
    const moved = await api.trashExpired();
    expiry.answered();
    setFilter({ tag: null, expired: false });
    if (moved.count > 0) offerUndo(t("movedManyToTrash", { n: moved.count }), moved.ids, (id) => noteAction(id, "restore"));
  }));
  // Relative times ("5 min ago") stay true while the page is open.
  setInterval(refreshTimes, 60_000);
}
