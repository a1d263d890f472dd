// The capture box: a note saved from it (Ctrl+Enter or Save), the draft kept in this
// origin's storage while it is typed (it survives a reload or a crash, and stays when
// saving fails), the plain-words reason when it does fail, and the "saved, but not
// shown here" line when a filter or a search hides the new note. A note saved while
// inkling is away (or while something else answers on its port) is sent nowhere: it
// waits in the box and is saved once the live feed is back and the service proved.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, showProblem } from "./dom.js";
import { answered } from "./notes.js";
import { setFilter } from "./navigation.js";
import { state } from "./store.js";

// The capture box's text not saved yet.
const DRAFT_KEY = "inkling.draft";

// Save was asked for while the service could not be reached or did not prove itself.
let waitingForService = false;
// A save on its way: another (Save pressed while the service came back) would store
// the note twice.
let saving = false;

async function capture() {
  const body = $("capture-body").value;
  if (!body.trim() || saving) return;
  let note;
  saving = true;
  try {
    note = await api.capture(body);
  } catch (failure) {
    if (failure instanceof api.NoSession) return;
    // The draft stays in the box (and in storage): nothing typed is lost. Nothing was
    // sent: the note goes once the service is back and proved.
    if (!(failure instanceof api.ApiFailure)) {
      waitingForService = true;
      return showProblem(t("notSavedOffline"), failure.message, { unreachable: true });
    }
    if (failure.status === 507) return showProblem(t("notSavedFull"), failure.message);
    if (failure.status >= 500) return showProblem(t("notSavedProblem"), failure.message);
    return showProblem(t("notSaved", { reason: failure.message }), "");
  } finally {
    saving = false;
  }
  waitingForService = false;
  $("capture-body").value = "";
  localStorage.removeItem(DRAFT_KEY);
  $("capture-error").hidden = true;
  answered(note);
  // Saved under a filter or a search that does not show it: say so, with the way to it.
  const { search, filter } = state.place;
  const shown = state.list.notes.some((n) => n.id === note.id);
  const hidden = $("saved-hidden");
  hidden.hidden = shown;
  if (!shown) {
    hidden.querySelector(".text").textContent = search
      ? t("savedHiddenSearch")
      : t("savedHidden", { filter: filter.tag ? `#${filter.tag}` : t("filterExpired") });
  }
}

/// The service is back (and proved): a note whose saving waited for it is saved now.
export function saveWhenBack() {
  if (!waitingForService) return;
  waitingForService = false;
  capture();
}

/// Puts the draft back in the box.
export function restoreDraft() {
  $("capture-body").value = localStorage.getItem(DRAFT_KEY) || "";
}

export function wireCapture() {
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
}
