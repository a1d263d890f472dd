// The quick-capture window (`inkling quick`, the tray's "Quick note…", the desktop
// shortcut): one box, focused before anything else happens (the textarea's autofocus
// works while this module is still loading). Enter or Ctrl+Enter saves and closes,
// Shift+Enter is a new line, Esc closes. What is typed is kept in this origin's storage
// as it is typed, so a window closed by accident (Esc included) offers it again next
// time; it is removed only once the note is saved. The window signs in as the inbox
// does: a one-time code in the address, traded for a session (api.js, proof.js), and
// saves through the same capture route.

import * as api from "./api.js";
import { applyStrings, t } from "./i18n.js";

// Not the inbox's draft ("inkling.draft"): the two boxes are typed in separately.
const DRAFT_KEY = "inkling.quick-draft";

/// What a key pressed in the box does: "save", "close" or nothing (the browser's own).
/// A key that is part of an IME composition (Korean, Japanese, Chinese) is the IME's:
/// Enter then ends the syllable, it does not save half of it.
export function keyAction({ key, shiftKey, isComposing, keyCode }) {
  if (isComposing || keyCode === 229) return null;
  if (key === "Escape") return "close";
  if (key === "Enter" && !shiftKey) return "save";
  return null;
}

/// The plain words for a save that failed; the text stays in the box either way.
export function failureText(failure) {
  if (failure instanceof api.NoSession) return t("quickNoSession");
  if (!(failure instanceof api.ApiFailure)) return t("quickOffline");
  if (failure.status === 507) return t("notSavedFull");
  if (failure.status >= 500) return t("notSavedProblem");
  return t("notSaved", { reason: failure.message });
}

const box = document.getElementById("quick-body");
const status = document.getElementById("quick-status");
// Read by the browser test that measures how soon the window takes typing.
const marks = document.documentElement.dataset;

function say(text, problem = false) {
  status.textContent = text;
  status.classList.toggle("problem", problem);
  status.hidden = !text;
}

function focusBox() {
  box.focus();
  if (document.activeElement === box && !marks.focusedAt) marks.focusedAt = String(performance.now());
}

// The draft from a window closed before saving, offered again with the caret at its end.
const draft = localStorage.getItem(DRAFT_KEY);
if (draft && !box.value) {
  box.value = draft;
  box.setSelectionRange(draft.length, draft.length);
}
focusBox();
// An app window may get the keyboard only once it is shown: focused again then.
window.addEventListener("focus", focusBox);

const params = new URLSearchParams(location.search);
const code = params.get("code");
if (params.has("code")) history.replaceState(null, "", "/quick");
// The session first, then the words and the service's language; a save waits for the
// session, never for the words. A session this origin already holds (the inbox's) is
// used as it is, and the code only when it is not open: trading the code would end
// that session, and with it the open inbox's live feed, at every quick note.
async function signIn() {
  if (!code) return;
  if (await api.hasSession().catch(() => false)) {
    try {
      await api.status();
      return;
    } catch (failure) {
      if (!(failure instanceof api.NoSession)) return;
    }
  }
  await api.openSession({ code });
}
const signedIn = signIn().catch(() => {});
const strings = api.strings();
// The words in the browser's language at once; the service's, once it has answered.
const wordsReady = strings.then((all) => {
  applyStrings(all, navigator.language && navigator.language.startsWith("ko") ? "ko" : "en");
  return all;
});
wordsReady
  .then((all) => {
    if (draft) say(t("quickDraftBack"));
    return signedIn.then(() => api.status()).then((service) => {
      applyStrings(all, service.locale);
      marks.ready = "yes";
    });
  })
  .catch(() => {});

let saving = false;

async function save() {
  const body = box.value;
  if (!body.trim() || saving) return;
  saving = true;
  try {
    // A save pressed before the words came says nothing in keys (a few ms at most).
    await wordsReady.catch(() => {});
    say(t("quickSaving"));
    await signedIn;
    await api.capture(body);
  } catch (failure) {
    return say(failureText(failure), true);
  } finally {
    saving = false;
  }
  localStorage.removeItem(DRAFT_KEY);
  box.value = "";
  marks.saved = "yes";
  close();
}

function close() {
  window.close();
  // A window the browser will not close (an ordinary tab) says what happened.
  say(marks.saved ? t("quickSaved") : t("quickClosed"));
}

// Said only once signing in is over: a held session found closed on the way is not news.
signedIn.then(() => api.onSignedOut(() => say(t("quickNoSession"), true)));

box.addEventListener("input", () => {
  if (box.value) localStorage.setItem(DRAFT_KEY, box.value);
  else localStorage.removeItem(DRAFT_KEY);
});
box.addEventListener("keydown", (event) => {
  const action = keyAction(event);
  if (!action) return;
  event.preventDefault();
  if (action === "save") save();
  else close();
});
document.getElementById("quick").addEventListener("submit", (event) => {
  event.preventDefault();
  save();
});
