// Ask your notes (POST /api/ask, docs/DESIGN.md "Ask your notes"): the question from the
// search box (the Ask button, or Ctrl+Enter in the box), the notes that match as cards
// at once, numbered as the answer cites them, then the answer streaming under them, its
// citations links to those notes. A citation the service took out is said; an answer
// that could not come says why in one line. "Save as note" captures the question, the
// answer and its notes (as `inkling ask --save` does); nothing is stored otherwise. A
// new question stops the one still streaming (its request is aborted: the service
// drops the model's work).
//
// `answerNodes`, `askNotesView` and `answerNote` are pure views/values of the answer;
// `ask` reads the stream and fills the panel.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { headline, markLanguage, noteAddress } from "./dom.js";
import { openNote } from "./navigation.js";

const $ = (id) => document.getElementById(id);

// The question streaming now: aborted by the next.
let current = null;

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

/// The notes an answer is made from, as numbered cards ([1] first), each a link.
export function askNotesView(notes) {
  const list = document.createElement("ol");
  list.className = "ask-notes";
  for (const [index, note] of notes.entries()) {
    const item = document.createElement("li");
    item.className = "ask-note";
    item.dataset.id = note.id;
    const number = document.createElement("span");
    number.className = "ask-number";
    number.textContent = `[${index + 1}]`;
    const title = noteLink(note, headline(note));
    markLanguage(title, headline(note));
    item.append(number, " ", title);
    if (note.summary) {
      const summary = document.createElement("p");
      summary.className = "hint";
      summary.dir = "auto";
      summary.textContent = note.summary;
      item.append(summary);
    }
    list.append(item);
  }
  return list;
}

/// The answer's text as nodes: plain text, and each citation [n] of a note shown a link
/// to it (the service has taken out any other).
export function answerNodes(text, notes) {
  const nodes = [];
  let last = 0;
  for (const match of text.matchAll(/\[(\d+)\]/g)) {
    const note = notes[Number(match[1]) - 1];
    if (!note) continue;
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    const link = noteLink(note, match[0]);
    link.className = "citation";
    link.title = headline(note);
    nodes.push(link);
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/// An answer saved as a note: the question, the answer, its notes by number (the same
/// as `inkling ask --save`, src/cli/render.rs `answer_note`).
export function answerNote(question, answer, notes) {
  const sources = notes.map((note, index) => `[${index + 1}] ${headline(note).trim()} (${note.id})`);
  return `Q: ${question.trim()}\n\n${answer.trim()}\n\n${sources.join("\n")}`.trimEnd();
}

function say(text) {
  $("ask-status").textContent = text;
  $("ask-status").hidden = !text;
}

/// Asks `question`; fills the Ask panel as the answer streams.
export async function ask(question) {
  question = question.trim();
  if (!question) return;
  if (current) current.abort();
  const controller = new AbortController();
  current = controller;
  const panel = $("ask-panel");
  panel.hidden = false;
  panel.dataset.state = "asking";
  $("ask-question").textContent = question;
  $("ask-notes").replaceChildren();
  $("ask-answer").replaceChildren();
  $("ask-removed").replaceChildren();
  $("ask-save").hidden = true;
  say(t("askWaiting"));
  let notes = [];
  let answer = "";
  const mine = () => current === controller;
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
        if (event.type === "notes") {
          notes = event.notes;
          $("ask-notes").replaceChildren(askNotesView(notes));
        } else if (event.type === "answer") {
          answer += event.text;
          say("");
          $("ask-answer").replaceChildren(...answerNodes(answer, notes));
          markLanguage($("ask-answer"), answer);
        } else if (event.type === "removed") {
          const line = document.createElement("p");
          line.className = "hint";
          line.textContent = t("askRemoved", { citation: event.citation });
          $("ask-removed").append(line);
        } else if (event.type === "done") {
          say(event.why || "");
          panel.dataset.state = event.answered ? "answered" : "unanswered";
          $("ask-save").hidden = !event.answered;
          $("ask-save").onclick = () => save(question, answer, notes);
        }
      }
    }
  } catch (error) {
    if (!mine() || error.name === "AbortError") return;
    panel.dataset.state = "failed";
    say(error instanceof api.ApiFailure ? error.message : t("askFailed"));
  } finally {
    if (mine()) current = null;
  }
}

async function save(question, answer, notes) {
  $("ask-save").disabled = true;
  try {
    await api.capture(answerNote(question, answer, notes));
    $("ask-save").hidden = true;
    say(t("askSaved"));
  } catch (error) {
    say(error.message);
  } finally {
    $("ask-save").disabled = false;
  }
}

/// Closes the panel; an answer still streaming is stopped.
export function closeAsk() {
  if (current) current.abort();
  current = null;
  $("ask-panel").hidden = true;
}

/// The Ask button, Ctrl+Enter in the search box, and the panel's close button.
export function wireAsk() {
  $("ask-button").addEventListener("click", () => ask($("search").value));
  $("search").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      ask($("search").value);
    }
  });
  $("ask-close").addEventListener("click", closeAsk);
}
