// Ask your notes (POST /api/ask, docs/DESIGN.md "Ask your notes"): the question from the
// search box (the Ask button, or Ctrl+Enter in the box), the answer first, streaming,
// its citations links to its notes, and under it the notes it is made from, numbered as
// it cites them, each the list's card (they come at once, before the answer). A
// citation the service took out is said; an answer that could not come says why in
// one line. "Save as note" captures the question, the answer and its notes as links by
// title, marked as an answer (as `inkling ask --save` does), so a later question does
// not take it for a source; nothing is stored otherwise. A new question stops the one
// still streaming (its request is aborted: the service drops the model's work).
//
// The question and its answer are `state.ask` (store.js). `asked`, `withEvent`,
// `askFailed` and `answerNote` are pure values of it; `askNotesView` and `answerNodes`
// pure views; one renderer draws the panel from the state. `ask` reads the stream and
// turns each event into a change of the state.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, headline, markLanguage, noteAddress } from "./dom.js";
import { card } from "./card.js";
import { editNote } from "./edit.js";
import { actions, answered, onNoteChanged } from "./notes.js";
import { openNote } from "./navigation.js";
import { state, update, onRender } from "./store.js";

/// Question `id` (the page's count of questions), just asked: the panel open, waiting
/// for its notes.
export function asked(id, question) {
  return {
    id,
    question,
    phase: "asking", // then "answered", "unanswered" or "failed"
    notes: null, // the notes the answer is made from, once they come
    answer: "",
    removed: [], // citations the service took out, in order
    status: t("askWaiting"),
    saveShown: false,
    saving: false,
  };
}

/// The question's state after one event of the answer's stream.
export function withEvent(ask, event) {
  switch (event.type) {
    case "notes":
      return { ...ask, notes: event.notes };
    case "answer":
      return { ...ask, answer: ask.answer + event.text, status: "" };
    case "removed":
      return { ...ask, removed: [...ask.removed, event.citation] };
    case "done":
      return {
        ...ask,
        phase: event.answered ? "answered" : "unanswered",
        status: event.why || "",
        saveShown: Boolean(event.answered),
      };
    default:
      return ask;
  }
}

/// The question's state when its answer could not come: `message` says why.
export function askFailed(ask, message) {
  return { ...ask, phase: "failed", status: message };
}

function noteLink(note, text) {
  const link = document.createElement("a");
  link.href = noteAddress(note.id);
  link.dir = "auto";
  link.textContent = text;
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    openNote(note.id);
  });
  return link;
}

/// The notes an answer is made from, a numbered list ([1] first) under the answer,
/// each the list's own card (card.js: its body rendered, its checklist tickable, its
/// title opening the note) with its number before its title. `ctx`: the card's
/// actions (notes.js).
export function askNotesView(notes, ctx) {
  const list = document.createElement("ol");
  list.className = "ask-notes notes";
  for (const [index, note] of notes.entries()) {
    const item = card(note, ctx, document.createElement("li"));
    item.classList.add("ask-note");
    const number = document.createElement("span");
    number.className = "ask-number";
    number.textContent = `[${index + 1}]`;
    item.querySelector("h3").prepend(number, " ");
    list.append(item);
  }
  return list;
}

/// The model's text between two citations, isolated (<bdi>): a bidirectional override
/// in it (U+202E) turns nothing around it, neither the citations nor the next text.
function modelText(text) {
  const isolate = document.createElement("bdi");
  isolate.textContent = text;
  return isolate;
}

/// The answer's text as nodes: the model's text, each stretch isolated, and each
/// citation [n] of a note shown a link to it (the service has taken out any other).
export function answerNodes(text, notes) {
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d+)\]/g)) {
    const note = notes[Number(match[1]) - 1];
    if (!note) continue;
    if (match.index > last) nodes.push(modelText(text.slice(last, match.index)));
    const link = noteLink(note, match[0]);
    link.className = "citation";
    link.title = headline(note);
    nodes.push(link);
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(modelText(text.slice(last)));
  return nodes;
}

/// A title as a Markdown link's text: its backslashes and brackets escaped.
const linkText = (title) => title.replace(/[\\[\]]/g, (c) => `\\${c}`);

/// An answer saved as a note: the question, the answer, its notes as a numbered list of
/// links by title to their addresses, which the page opens as the notes (the same as
/// `inkling ask --save`, src/cli/render.rs `answer_note`).
export function answerNote(question, answer, notes) {
  const sources = notes.map((note, index) => `${index + 1}. [${linkText(headline(note).trim())}](${noteAddress(note.id)})`);
  return `Q: ${question.trim()}\n\n${answer.trim()}\n\n${sources.join("\n")}`.trimEnd();
}

// The question streaming now: aborted by the next, and the only one whose events
// change the state.
let current = null;
let questions = 0;

/// Asks `question`; the panel follows the answer as it streams.
export async function ask(question) {
  question = question.trim();
  if (!question) return;
  if (current) current.abort();
  const controller = new AbortController();
  current = controller;
  const mine = () => current === controller;
  const id = ++questions;
  update((s) => (s.ask = asked(id, question)));
  try {
    const response = await api.ask(question, controller.signal);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done || !mine()) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (!line) continue;
        const event = JSON.parse(line);
        update((s) => (s.ask = withEvent(s.ask, event)));
      }
    }
  } catch (error) {
    if (!mine() || error.name === "AbortError") return;
    const message = error instanceof api.ApiFailure ? error.message : t("askFailed");
    update((s) => (s.ask = askFailed(s.ask, message)));
  } finally {
    if (mine()) current = null;
  }
}

/// "Save as note": the answer shown, captured as a note. What it says goes to that
/// question's panel, not to one asked since.
async function save() {
  const shown = state.ask;
  if (!shown || shown.saving) return;
  const change = (fields) =>
    update((s) => {
      if (s.ask?.id === shown.id) s.ask = { ...s.ask, ...fields };
    });
  change({ saving: true });
  try {
    // Stored as an answer: a later question does not take it for a source.
    await api.capture(answerNote(shown.question, shown.answer, shown.notes || []), "answer");
    change({ saving: false, saveShown: false, status: t("askSaved") });
  } catch (error) {
    change({ saving: false, status: error.message });
  }
}

// What a source's card does: what a list card does, but an edit is made in the card
// here and, closed, the sources are drawn again.
const cardContext = {
  ...actions,
  edit: (item, note) =>
    editNote(item, note, {
      saved: answered,
      closed: () => update((s) => s.ask && (s.ask = { ...s.ask, notes: [...(s.ask.notes || [])] })),
    }),
};

// A source that changed (ticked, edited, trashed, its AI's answer) is shown as it is
// now; its number stays.
onNoteChanged((note) => {
  const notes = state.ask && state.ask.notes;
  // A card being edited is left as it is (the form, what is typed) until it closes.
  if (!notes || state.editing === note.id || !notes.some((n) => n.id === note.id)) return;
  update((s) => (s.ask = { ...s.ask, notes: s.ask.notes.map((n) => (n.id === note.id ? note : n)) }));
});

/// A selector for what stands where `focused` stood among the sources once they are
/// drawn again: its card's checklist box, or its title; null when the focus is elsewhere.
function sourceSpot(focused) {
  const item = focused && focused.closest && focused.closest("#ask-notes li.note");
  if (!item) return null;
  const card = `li.note[data-id="${CSS.escape(item.dataset.id)}"]`;
  return focused.dataset.task !== undefined ? `${card} input[data-task="${focused.dataset.task}"]` : `${card} a.open`;
}

/// Closes the panel; an answer still streaming is stopped.
export function closeAsk() {
  if (current) current.abort();
  current = null;
  update((s) => (s.ask = null));
}

// What the panel shows, so each part is drawn again only when it changed.
let drawn = null;
onRender((s) => {
  const ask = s.ask;
  if (ask === drawn) return;
  const before = drawn || {};
  drawn = ask;
  const panel = $("ask-panel");
  panel.hidden = !ask;
  if (!ask) return;
  panel.dataset.state = ask.phase;
  if (ask.question !== before.question) $("ask-question").textContent = ask.question;
  if (ask.notes !== before.notes) {
    // A source drawn again (a tick on its card) keeps the focus where it was.
    const spot = sourceSpot(document.activeElement);
    $("ask-notes").replaceChildren(...(ask.notes && ask.notes.length ? [askNotesView(ask.notes, { ...cardContext, maxAttempts: s.service.maxAttempts })] : []));
    if (spot) $("ask-notes").querySelector(spot)?.focus();
  }
  if (ask.answer !== before.answer || ask.notes !== before.notes) {
    $("ask-answer").replaceChildren(...answerNodes(ask.answer, ask.notes || []));
    if (ask.answer) markLanguage($("ask-answer"), ask.answer);
  }
  if (ask.removed !== before.removed) {
    $("ask-removed").replaceChildren(
      ...ask.removed.map((citation) => {
        const line = document.createElement("p");
        line.className = "hint";
        line.textContent = t("askRemoved", { citation });
        return line;
      }),
    );
  }
  $("ask-status").textContent = ask.status;
  $("ask-status").hidden = !ask.status;
  $("ask-save").hidden = !ask.saveShown;
  $("ask-save").disabled = ask.saving;
});

/// The Ask button, Ctrl+Enter in the search box, the panel's close and save buttons.
export function wireAsk() {
  $("ask-button").addEventListener("click", () => ask($("search").value));
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      ask($("search").value);
    }
  });
  $("ask-close").addEventListener("click", closeAsk);
  $("ask-save").addEventListener("click", save);
}
