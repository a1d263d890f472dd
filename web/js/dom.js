// Small element makers shared by the views: a button that reports its failure, a
// paragraph, a "Details" toggle, a time, a confirm-first button, and `guarded`, which
// turns an action's failure into words under the capture box.

import { ApiFailure, NoSession } from "./api.js";
import { t, relativeTime, locale } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

/// A problem the person should know about, in the capture error line (it is under the
/// box, where the eyes are). `unreachable`: the problem is that the service could not
/// be reached, so the line goes by itself once it can be (`clearUnreachable`).
export function showProblem(text, detail, { unreachable = false } = {}) {
  const line = $("capture-error");
  line.querySelector(".text").textContent = text;
  setDetail(line, detail);
  line.dataset.unreachable = String(unreachable);
  line.hidden = false;
}

/// The service is reachable (the live feed connected): a line saying it was not is
/// over. Any other problem stays until it is answered.
export function clearUnreachable() {
  const line = $("capture-error");
  if (line.dataset.unreachable === "true") line.hidden = true;
}

/// Puts `detail` behind an element's "Details" toggle (hidden when there is none).
export function setDetail(element, detail) {
  const more = element.querySelector("details.more");
  if (!more) return;
  more.hidden = !detail;
  more.querySelector(".detail").textContent = detail || "";
}

/// Runs a button's action; if it fails, says so in plain words (with the detail behind
/// the toggle) rather than leaving the click without an answer. A request the service
/// refused (4xx) is said with the service's own reason, which is written for a person
/// ("…is in the trash; restore it first"); only a failure to reach it, or its own
/// problem (5xx), is "inkling isn't reachable or ran into a problem".
export function guarded(action) {
  return async (...args) => {
    try {
      await action(...args);
    } catch (failure) {
      if (failure instanceof NoSession) return;
      if (failure instanceof ApiFailure && failure.status >= 400 && failure.status < 500) {
        showProblem(t("actionRefused", { reason: failure.message }), "");
        return;
      }
      // No answer at all (not an ApiFailure): the service was out of reach.
      showProblem(t("actionFailed"), failure.message, { unreachable: !(failure instanceof ApiFailure) });
    }
  };
}

export function button(label, onClick, className, ariaLabel) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  if (className) element.className = className;
  if (ariaLabel) element.setAttribute("aria-label", ariaLabel);
  element.addEventListener("click", guarded(onClick));
  return element;
}

export function paragraph(className, text) {
  const element = document.createElement("p");
  element.className = className;
  element.textContent = text;
  return element;
}

export function details(detail) {
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

export function timeElement(iso) {
  const time = document.createElement("time");
  time.dateTime = iso;
  time.textContent = relativeTime(iso);
  time.title = new Date(iso).toLocaleString(locale());
  return time;
}

export function field(label, control) {
  const wrapper = document.createElement("label");
  wrapper.append(label, control);
  return wrapper;
}

/// A button for what cannot be undone: the first click asks ("Really delete?"), a
/// second click within 5 s does it; otherwise it goes back to its label.
export function confirmingButton(label, question, className, action) {
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

/// A tag as a button that filters the list by it.
export function tagButton(tag, onFilter) {
  return button(`#${tag}`, () => onFilter(tag), "tag", t("filterByTag", { tag }));
}

/// The address of one note.
export function noteAddress(id) {
  const params = new URLSearchParams({ note: id });
  return `/?${params}`;
}

/// The note a link's address names (`/?note=ID`, as `noteAddress` writes it, the one
/// relative link a rendered body keeps: src/render.rs), or null.
export function noteOfAddress(href) {
  const match = /^\/\?note=([A-Za-z0-9_-]{1,64})$/.exec(href || "");
  return match ? match[1] : null;
}

/// A title inside a sentence (an aria-label): between Unicode's isolate marks (FSI …
/// PDI), the text form of <bdi>, so that a right-to-left override in it (U+202E) cannot
/// reorder the words around it.
export const isolated = (text) => `\u2068${text}\u2069`;


/// The language of a note's text where the page should know it: "ko" when most of its
/// letters are Hangul (so the browser breaks Korean between words, not inside one, and
/// a screen reader reads it as Korean, in the English interface too), else null (the
/// page's own language stands).
export function textLanguage(text) {
  const hangul = (text.match(/[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/g) || []).length;
  const other = (text.match(/\p{L}/gu) || []).length - hangul;
  return hangul > 0 && hangul >= other ? "ko" : null;
}

/// Sets `element`'s `lang` to its text's language when that is known (`textLanguage`).
export function markLanguage(element, text) {
  const language = textLanguage(text);
  if (language) element.lang = language;
  return element;
}

/// A note's headline: its title, or its first line.
export function headline(note) {
  if (note.title) return note.title;
  const first = note.body.split("\n").find((line) => line.trim()) || note.body;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first.trim();
}
