// The keyboard: / search, n new note, j/k move through the cards, e edit, # trash,
// ? the help, Escape back out (the search, the filter, the open note). A key typed
// into a field is the field's; a checkbox (a checklist item) takes no letters.

import { guarded, $ } from "./dom.js";
import { editOpenNote } from "./note-view.js";
import { cardElement, editInCard, moveSelection, trashNote } from "./notes.js";
import { goBack, setFilter, showView } from "./navigation.js";
import { state } from "./store.js";

/// The note a key acts on: the open one, or the selected card.
function noteInHand() {
  if (state.place.view === "note") return state.detail.note;
  if (state.place.view !== "inbox") return null;
  return state.list.notes.find((note) => note.id === state.list.selected) || null;
}

function clearSearch() {
  $("search").value = "";
  $("search").dispatchEvent(new Event("input"));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const { place } = state;
  const typing = event.target.closest && event.target.closest("input:not([type=checkbox]), textarea, select, dialog");
  if (event.key === "Escape" && !$("help").open) {
    if (typing && event.target.id === "search" && $("search").value) return clearSearch();
    if (typing) return;
    if (place.view === "note") return goBack();
    if (place.search) clearSearch();
    else if (place.filter.tag || place.filter.expired) setFilter({ tag: null, expired: false });
    return;
  }
  if (typing) return;
  const note = noteInHand();
  const act = {
    "/": () => {
      if (place.view !== "inbox") showView("inbox", { push: true });
      $("search").focus();
    },
    n: () => {
      if (place.view !== "inbox") showView("inbox", { push: true });
      $("capture-body").focus();
    },
    j: () => place.view === "inbox" && moveSelection(1),
    k: () => place.view === "inbox" && moveSelection(-1),
    e: () => {
      if (!note || note.deleted_at) return;
      if (place.view === "note") editOpenNote();
      else editInCard(cardElement(note.id), note);
    },
    "#": () => note && !note.deleted_at && guarded(() => trashNote(note))(),
    "?": () => $("help").showModal(),
  }[event.key];
  if (act) {
    event.preventDefault();
    act();
  }
}

export function wireKeys() {
  document.addEventListener("keydown", onKey);
}
