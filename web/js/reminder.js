// A note's reminder as the page shows it, pure views: the note view's section (the
// reminder set, with Done and Snooze 1 h; or the AI's suggestion, a time the note's
// own words say, with Accept and Dismiss) and one line of the Today view. The buttons
// call `ctx.remind(note, action)`, `action` one of "accept", "dismiss", "done",
// "snoozed"; what that does is `remind` below.

import * as api from "./api.js";
import { t, locale } from "./i18n.js";
import { button, isolated } from "./dom.js";

/// An instant as the person reads it on their wall clock: "Tue, Dec 8, 09:00".
export function wallClock(iso) {
  return new Date(iso).toLocaleString(locale(), {
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  });
}

function timeOf(iso) {
  const time = document.createElement("time");
  time.dateTime = iso;
  time.textContent = wallClock(iso);
  return time;
}

/// The buttons of a reminder not done yet: Done, Snooze 1 h, each naming its note for
/// a screen reader.
export function reminderButtons(note, named, ctx) {
  return [
    button(t("reminderDone"), () => ctx.remind(note, "done"), "reminder-done", t("reminderDoneNote", named)),
    button(t("reminderSnooze"), () => ctx.remind(note, "snoozed"), "reminder-snooze", t("reminderSnoozeNote", named)),
  ];
}

/// The note view's reminder section, or null when the note has neither a reminder nor
/// a suggestion (a note in the trash shows its reminder without buttons).
export function reminderSection(note, named, ctx) {
  if (!note.remind_at && !note.remind_suggested_at) return null;
  const section = document.createElement("section");
  section.className = "reminder";
  const heading = document.createElement("h3");
  heading.textContent = t("reminderSection");
  section.append(heading);
  const line = document.createElement("p");
  const actions = document.createElement("div");
  actions.className = "reminder-actions";
  if (note.remind_at) {
    const key = { done: "reminderWasDone", snoozed: "reminderSnoozedUntil" }[note.remind_state] || "reminderAt";
    const [before, after] = t(key, { when: "\u0000" }).split("\u0000");
    line.append(before, timeOf(note.remind_at), after || "");
    if (note.remind_state !== "done" && !note.deleted_at) actions.append(...reminderButtons(note, named, ctx));
  } else {
    line.className = "suggestion";
    const [before, after] = t("suggestionText", { when: "\u0000" }).split("\u0000");
    line.append(before, timeOf(note.remind_suggested_at), after || "");
    if (!note.deleted_at) {
      actions.append(
        button(t("suggestionAccept"), () => ctx.remind(note, "accept"), "suggestion-accept", t("suggestionAcceptNote", named)),
        button(t("suggestionDismiss"), () => ctx.remind(note, "dismiss"), "suggestion-dismiss", t("suggestionDismissNote", named)),
      );
    }
  }
  section.append(line);
  if (actions.childElementCount) section.append(actions);
  return section;
}

/// Carries out a reminder's button; answers the note as it is now.
export function remind(note, action) {
  if (action === "accept" || action === "dismiss") return api.reminderSuggestion(note.id, action);
  return api.reminderState(note.id, action);
}

/// A note named for a button's label, as the other buttons name it.
export const namedNote = (name) => ({ title: isolated(name) });

