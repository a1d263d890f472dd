// The Today view (?view=today): the reminders not done up to the end of today, the
// overdue first, each with Done and Snooze 1 h, and the notes captured yesterday that
// were never opened, as `GET /api/reminders` gives them (the daily review counts the
// same). `todayView(answer, ctx)` is the pure view; this module loads it when the view
// is shown, and again when a note changes while it is.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, guarded, headline, markLanguage, paragraph } from "./dom.js";
import { answered, onNoteChanged } from "./notes.js";
import { openNote, whenShown } from "./navigation.js";
import { namedNote, remind, reminderButtons, wallClock } from "./reminder.js";
import { state } from "./store.js";

/// A note's name as a link-like button that opens it.
function opener(note, ctx) {
  const name = headline(note);
  const open = document.createElement("button");
  open.type = "button";
  open.className = "today-open";
  open.dir = "auto";
  open.textContent = name;
  markLanguage(open, name);
  open.addEventListener("click", () => ctx.open(note.id));
  return open;
}

/// One reminder: its time, the note, Done and Snooze 1 h.
function reminderItem(note, overdue, ctx) {
  const item = document.createElement("li");
  item.className = overdue ? "today-item overdue" : "today-item";
  item.dataset.id = note.id;
  const time = document.createElement("time");
  time.dateTime = note.remind_at;
  time.textContent = wallClock(note.remind_at);
  const when = paragraph("today-when", "");
  when.append(time);
  if (note.remind_state === "snoozed") when.append(` · ${t("todaySnoozed")}`);
  const actions = document.createElement("div");
  actions.className = "reminder-actions";
  actions.append(...reminderButtons(note, namedNote(headline(note)), ctx));
  item.append(when, opener(note, ctx), actions);
  return item;
}

/// One note from yesterday never opened.
function unopenedItem(note, ctx) {
  const item = document.createElement("li");
  item.className = "today-item";
  item.dataset.id = note.id;
  item.append(opener(note, ctx));
  if (note.summary) item.append(markLanguage(paragraph("today-summary", note.summary), note.summary));
  return item;
}

/// A titled list, or nothing when it is empty.
function group(id, title, items) {
  if (!items.length) return [];
  const heading = document.createElement("h3");
  heading.id = id;
  heading.textContent = `${title} (${items.length})`;
  const list = document.createElement("ul");
  list.className = "today-list";
  list.setAttribute("aria-labelledby", id);
  list.append(...items);
  return [heading, list];
}

/// Today's elements from the service's answer (`now` decides overdue, as the service
/// said it): overdue, due later today, yesterday's never opened; or one line saying
/// there is nothing.
export function todayView(answer, ctx) {
  const now = Date.parse(answer.now);
  const overdue = answer.reminders.filter((note) => Date.parse(note.remind_at) <= now);
  const due = answer.reminders.filter((note) => Date.parse(note.remind_at) > now);
  const unopened = answer.unopened || [];
  if (!overdue.length && !due.length && !unopened.length) return [paragraph("empty", t("todayNothing"))];
  // More are due than one answer lists: these are the earliest; done ones make room.
  const more = answer.more ? [paragraph("today-more", t("todayMore", { n: answer.reminders.length }))] : [];
  return [
    ...group("today-overdue", t("todayOverdue"), overdue.map((note) => reminderItem(note, true, ctx))),
    ...group("today-due", t("todayDue"), due.map((note) => reminderItem(note, false, ctx))),
    ...more,
    ...group("today-unopened", t("todayUnopened"), unopened.map((note) => unopenedItem(note, ctx))),
  ];
}

const ctx = {
  open: openNote,
  remind: async (note, action) => {
    answered(await remind(note, action));
    await loadToday();
  },
};

let loading = 0;

/// Loads Today and shows it; an older load's answer is dropped.
export async function loadToday() {
  const mine = ++loading;
  const answer = await api.today();
  if (mine !== loading || state.place.view !== "today") return;
  $("today-content").replaceChildren(...todayView(answer, ctx));
}

const load = guarded(loadToday);

onNoteChanged(() => {
  if (state.place.view === "today") load();
});

whenShown("today", load);
