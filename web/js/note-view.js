// One note, at its own address (?note=ID): its rendered body (the one HTML the page
// inserts, made by the service with pulldown-cmark and cleaned with ammonia,
// src/render.rs) with checklist items that tick, its reminder or the AI's suggestion
// of one (reminder.js), what the AI made of it and where it stands, and its actions.
// Showing a note tells the service it was opened (Today's "never opened"). `detailView(note, ctx)` is the pure view; this module
// loads the note, and loads it again when a live event says it changed.

import * as api from "./api.js";
import { t, relativeTime } from "./i18n.js";
import { $, button, details, guarded, headline, isolated, markLanguage, noteOfAddress, paragraph, tagButton } from "./dom.js";
import { aiButton, cardHeading, deleteButton, failureText } from "./card.js";
import { editNote } from "./edit.js";
import { answered, noteAction, onNoteChanged, trashNote } from "./notes.js";
import { filterByTag, goBack, whenShown } from "./navigation.js";
import { showRelated } from "./related.js";
import { remind, reminderSection } from "./reminder.js";
import { state } from "./store.js";

/// Loads the open note and shows it. Loads overlap (a live event's, the end of an
/// edit's) and their answers can come back in any order, so an answer older than the
/// version shown is dropped: the view never goes back to an older version after a
/// newer one. With `keep`, a failure leaves the version shown (the end of an edit:
/// the form closes on what was there) instead of saying the note cannot be shown.
export async function loadDetail({ keep = false } = {}) {
  const id = state.place.open;
  const article = $("note-detail");
  let note;
  try {
    note = await api.noteDetail(id);
  } catch (failure) {
    if (failure instanceof api.NoSession || state.place.open !== id) return;
    if (keep && state.detail.note && state.detail.note.id === id) return showDetail();
    article.replaceChildren(paragraph("empty", failure.status === 404 ? t("noteMissing") : t("actionFailed")));
    return;
  }
  if (state.place.open !== id || state.place.view !== "note") return;
  const shown = state.detail.note;
  if (shown && shown.id === note.id && shown.updated_at > note.updated_at) return;
  state.detail.note = note;
  showDetail();
}

function showDetail() {
  const note = state.detail.note;
  const article = $("note-detail");
  // Where the focus was (a checklist box just ticked, an action, the edit form just
  // closed): the note drawn again puts it back there, so a keyboard's place is kept.
  const spot = focusSpot(article, document.activeElement);
  article.dataset.id = note.id;
  article.dataset.status = note.ai_status;
  const related = document.createElement("section");
  article.replaceChildren(...detailView(note, ctx), related);
  showRelated(related, note.id);
  if (spot) article.querySelector(spot)?.focus();
}

/// A selector for the element of a note drawn again that stands where `focused` stood
/// in `article`: the same checklist box (by its place), the same action, the Edit
/// button for a focus in the edit form (it closed); null when the focus was elsewhere.
export function focusSpot(article, focused) {
  if (!focused || !article.contains(focused)) return null;
  if (focused.closest("form.edit")) return "button.edit";
  if (focused.matches(".rendered input[type=checkbox]")) {
    const index = [...article.querySelectorAll(".rendered input[type=checkbox]")].indexOf(focused);
    return `.rendered input[type=checkbox][data-task="${index}"]`;
  }
  if (focused.matches(".detail-actions button") && focused.classList.length) return `.detail-actions button.${focused.classList[0]}`;
  if (focused.matches("h2")) return "h2";
  return null;
}

// What the open note's buttons do.
const ctx = {
  filterTag: filterByTag,
  action: noteAction,
  trash: trashNote,
  tick: async (note, index, done) => answered(await api.tickTask(note.id, index, done)),
  remind: async (note, action) => answered(await remind(note, action)),
  // When the form closes (saved or not) the note is loaded again: the save's answer
  // has no rendered body, and changes that came while editing were not shown.
  edit: () => editNote($("note-detail"), state.detail.note, { saved: answered, closed: () => loadDetail({ keep: true }) }),
  remove: async (note) => {
    await api.deleteNote(note.id);
    goBack();
  },
};

/// Where a value came from: the person, or the AI (from the note's beginning, when it
/// read only that).
function source(note, byUser) {
  if (byUser) return t("byYou");
  return note.ai_read_chars != null ? `${t("byAi")}, ${t("fromFirst", { n: note.ai_read_chars })}` : t("byAi");
}

const titleSource = (note) => source(note, note.title_set_by_user);

/// What the AI made of the note and where its work stands.
function aiSection(note, ctx) {
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
  const fromAi = (byUser) => source(note, byUser);
  // Each value said once, with where it came from. The heading above is the note's
  // own words where it has them (detailHeading): the title, when it is not the heading,
  // is said here; when it is, the line under the heading says where it came from. The
  // summary is the lead above the body.
  if (note.title && note.title !== detailHeading(note)) {
    const title = markLanguage(Object.assign(document.createElement("span"), { dir: "auto", textContent: note.title }), note.title);
    fact(t("aiTitle"), title, titleSource(note));
  }
  const tags = document.createElement("span");
  for (const tag of note.tags) tags.append(tagButton(tag, ctx.filterTag), " ");
  if (!note.tags.length) tags.textContent = t("noTags");
  fact(t("aiTags"), tags, note.tags.length ? fromAi(note.tags_set_by_user) : null);
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
  return ai;
}

/// The open note's elements, from the note alone; its buttons call `ctx`'s functions.
export function detailView(note, ctx) {
  const name = detailHeading(note);
  const named = { title: isolated(headline(note)) };
  const heading = document.createElement("h2");
  heading.dir = "auto";
  heading.textContent = name;
  markLanguage(heading, name);
  heading.tabIndex = -1;
  const when = paragraph("hint", t("created", { when: relativeTime(note.created_at) }));
  // Edited by a person (`edited_at`), not merely written to: the AI's answer, a trash
  // or a keep move `updated_at` too, and none of them is an edit.
  if (note.edited_at) when.append(` · ${t("edited", { when: relativeTime(note.edited_at) })}`);
  if (note.title && note.title === name) when.append(` · ${t("aiTitle")}: ${titleSource(note)}`);

  // The body as the service rendered and cleaned it. Each tick is an edit of the body.
  const rendered = document.createElement("div");
  rendered.className = "rendered";
  rendered.innerHTML = note.body_html;
  markLanguage(rendered, note.body);
  // A link to a note's address (a saved answer's sources) opens that note in the page
  // (navigation.js, wireNoteLinks), not a new tab.
  for (const link of rendered.querySelectorAll("a[href]")) {
    const linked = noteOfAddress(link.getAttribute("href"));
    if (!linked) continue;
    link.dataset.note = linked;
    link.removeAttribute("target");
  }
  [...rendered.querySelectorAll("input[type=checkbox]")].forEach((box, index) => {
    box.disabled = Boolean(note.deleted_at);
    box.setAttribute("aria-label", (box.parentElement.textContent || "").trim() || String(index + 1));
    box.dataset.task = String(index);
    box.addEventListener("change", guarded(() => ctx.tick(note, index, box.checked)));
  });

  // The body's first heading or line saying what the title says (the title typed as
  // "# Title", or a note without a title whose first line is its heading) is not said
  // again under it. A line with a checklist box stays: it is something to tick.
  const first = rendered.firstElementChild;
  if (first && /^(H[1-6]|P)$/.test(first.tagName) && !first.querySelector("input") && sameWords(first.textContent, name)) {
    first.remove();
  }

  // The AI's summary, before the body: what a long note is about, read first. Model
  // text in its own direction, isolated (`dir="auto"`), as the title is.
  const lead = note.summary ? markLanguage(paragraph("summary", note.summary), note.summary) : null;
  if (lead) lead.dir = "auto";

  const actions = document.createElement("div");
  actions.className = "detail-actions";
  if (note.deleted_at) {
    actions.append(paragraph("hint", t("inTrash", { when: relativeTime(note.deleted_at) })));
    actions.append(button(t("restore"), () => ctx.action(note.id, "restore"), "restore", t("restoreNote", named)));
    // Deleting for good is for a note in the trash only (the service refuses it
    // otherwise): a note is trashed first, and can come back from there.
    actions.append(deleteButton(note, named, ctx.remove));
  } else {
    actions.append(
      button(t("edit"), ctx.edit, "edit", t("editNote", named)),
      aiButton(note, named, ctx.action),
      button(t("trash"), () => ctx.trash(note), "trash", t("trashNote", named)),
    );
  }
  const reminder = reminderSection(note, named, ctx);
  return [heading, when, ...(lead ? [lead] : []), ...(reminder ? [reminder] : []), rendered, aiSection(note, ctx), actions];
}

/// The open note's heading: the card's (cardHeading: the person's title, the body's
/// own heading or first line, else the AI's title), so a note whose body has a heading
/// shows that one heading, not the AI's title over it.
export function detailHeading(note) {
  return cardHeading(note).text;
}

/// Whether two lines say the same words (a Markdown heading's marks, case and spacing
/// aside).
function sameWords(a, b) {
  const words = (text) => text.replace(/^\s*#{1,6}\s+/, "").replace(/\s+/g, " ").trim().toLowerCase();
  return words(a) === words(b);
}

/// Edits the open note (the `e` key).
export const editOpenNote = () => ctx.edit();

onNoteChanged((note) => {
  const { place } = state;
  if (place.view === "note" && place.open === note.id && state.editing !== note.id) loadDetail();
});

whenShown("note", () => {
  $("note-detail").replaceChildren();
  // Opened: no longer one of yesterday's notes never looked at. Nothing to show for
  // it, and a failure only leaves the note on Today's list.
  api.markOpened(state.place.open).catch(() => {});
  loadDetail().then(() => {
    const heading = $("note-detail").querySelector("h2");
    if (heading) heading.focus();
  });
});
