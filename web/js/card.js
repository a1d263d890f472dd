// The pure views of a note: `card(note, ctx, item)` (a card in the notes list, the
// search hits or the trash) and the pieces the open note shares with it. They read
// nothing but their arguments (and the page's words): what a card shows comes from
// the note and `ctx`, and what its buttons do is `ctx`'s functions.
//
// ctx: {slow, maxAttempts, inTrash, offerKeep, selected, open(id), filterTag(tag),
//       action(id, name), edit(item, note), trash(note), remove(note),
//       tick(note, index, done)}

import { t } from "./i18n.js";
import { button, confirmingButton, details, headline, isolated, markLanguage, noteAddress, paragraph, tagButton, timeElement } from "./dom.js";
import { appendPreview, blocks } from "./preview.js";

// A one-line note this short is its own heading: a title would only say it again
// ("Call mom / Call mom"). Longer, it reads better as a body under a title.
const SHORT_NOTE = 80;
// A first line this short, with more under it, is the note's title as its writer meant.
const SHORT_TITLE = 60;
// A line with a link or Markdown in it is drawn by the preview (a link inside the
// heading's own link cannot be clicked).
const MARKED_UP = /https?:\/\/|[`*_~[\]<>#|]/;

/// What a card's heading says and what its preview shows under it, decided from the
/// body (and a title the person set) alone, never from the AI's answer, so that the
/// answer coming changes the heading's words and not the card's shape:
/// - `whole`: a short note of one line of plain words is its own heading (no preview;
///   the AI's title, which would say it again, is in the open note);
/// - `own`: the person's title (an edit), or the body's first line as a Markdown
///   heading or a short plain line over more, is the heading; the preview shows the
///   rest of the body;
/// - else the AI's title, and before it answers the body's first line (`provisional`),
///   over the body.
/// - a voice note without its words yet (an empty body) says so.
/// {kind: "whole" | "own" | "titled", text, provisional, preview: the body to show or null}
export function cardHeading(note) {
  const body = note.body.trim();
  // A voice note before its words come back (or when they never did).
  if (!body) {
    const waiting = note.ai_status === "pending";
    return { kind: "whole", text: t(waiting ? "voiceTranscribing" : "voiceNoWords"), provisional: waiting, preview: null };
  }
  const lines = body.split("\n").filter((line) => line.trim());
  if (note.title_set_by_user && note.title) return { kind: "own", text: note.title, provisional: false, preview: note.body };
  if (lines.length === 1 && body.length <= SHORT_NOTE && !MARKED_UP.test(body)) {
    return { kind: "whole", text: body, provisional: false, preview: null };
  }
  const first = blocks(body)[0];
  const rest = body.split("\n").slice(1).join("\n").trim();
  if (first && first.kind === "heading" && first.text) {
    return { kind: "own", text: first.text, provisional: false, preview: rest || null };
  }
  // A short plain first line over more ("Shopping", then the list): the person's own
  // title, as in a notes app where the first line is the title.
  if (first && first.kind === "line" && rest && first.text.trim().length <= SHORT_TITLE && !MARKED_UP.test(first.text)) {
    return { kind: "own", text: first.text.trim(), provisional: false, preview: rest };
  }
  if (note.title) return { kind: "titled", text: note.title, provisional: false, preview: note.body };
  return { kind: "titled", text: (lines[0] || body).trim(), provisional: true, preview: note.body };
}

/// What the AI's failure on a note was, in plain words; the stored error ("schema:
/// the model's answer…") goes behind "Details".
export function failureText(note, tries) {
  const reason = (note.ai_error || "").split(":")[0];
  return t(reason === "schema" ? "aiUnusable" : "aiProblem", { n: tries });
}

// What a slow note says: how long, how often, what next, what to do.
function slowText(slow) {
  const minutes = (ms) => Math.max(1, Math.round(ms / 60000));
  return t("slowNote", {
    n: slow.timeouts,
    first: minutes(slow.request_timeout_ms),
    next: minutes(slow.next_deadline_ms),
  });
}

/// One note's AI again: redo a done one, retry a failed one, take a waiting one next.
export function aiButton(note, named, action) {
  const [label, aria] = {
    done: ["redoAi", "redoAiNote"],
    failed: ["retryNote", "retryNoteLabel"],
    pending: ["aiNext", "aiNextNote"],
  }[note.ai_status];
  return button(t(label), () => action(note.id, "enrich"), "enrich", t(aria, named));
}

export function deleteButton(note, named, remove) {
  const element = confirmingButton(t("deleteForever"), () => t("confirmDelete"), "delete", () => remove(note));
  element.setAttribute("aria-label", t("deleteNote", named));
  return element;
}

/// A search hit's snippet: the piece of its body that matched, the words marked
/// (`<mark>` elements made here, never parsed from markup).
function snippetElement(snippet) {
  const element = markLanguage(paragraph("preview snippet", ""), snippet.map((part) => part.text).join(""));
  for (const part of snippet) {
    if (part.matched) {
      const mark = document.createElement("mark");
      mark.textContent = part.text;
      element.append(mark);
    } else {
      element.append(document.createTextNode(part.text));
    }
  }
  return element;
}

/// The body, a few lines of it rendered (web/js/preview.js: its formatting, its
/// links, its checklist items, tickable by `tick(index, done)`), with "Show more"
/// when it is longer. A checklist shows six lines, so its first items are there to tick.
function preview(body, tick) {
  const element = document.createElement("div");
  element.className = "preview";
  markLanguage(element, body);
  const tasks = appendPreview(element, body, tick);
  const shows = tasks > 0 ? 6 : 3;
  const rows = blocks(body).reduce((sum, block) => sum + (block.kind === "code" ? block.text.split("\n").length : 1), 0);
  if (rows <= shows && body.length <= shows * 80) return [element];
  element.classList.add("clamped");
  if (tasks > 0) element.classList.add("checklist");
  const more = button(t("showMore"), () => {
    const clamped = element.classList.toggle("clamped");
    more.textContent = t(clamped ? "showMore" : "showLess");
    more.setAttribute("aria-expanded", String(!clamped));
  }, "show-more");
  more.setAttribute("aria-expanded", "false");
  // The count above guesses (a long link's address is not shown, a wide card fits
  // more): once laid out, "Show more" stays only where the clamp hides something. A
  // ResizeObserver answers after layout and before paint, so a card never shows the
  // button and then loses it; and a card off screen (content-visibility) is measured
  // when it is laid out, not before.
  new ResizeObserver(() => {
    if (!element.isConnected || !element.classList.contains("clamped")) return;
    more.hidden = !clampHides(element);
  }).observe(element);
  return [element, more];
}

/// Whether a clamped preview hides any of its text (a pixel of rounding aside).
export const clampHides = (element) => element.scrollHeight > element.clientHeight + 1;

/// A note's card, made in `item` (emptied first).
export function card(note, ctx, item = document.createElement("li")) {
  item.replaceChildren();
  item.className = "note";
  item.dataset.id = note.id;
  item.dataset.status = note.ai_status;
  if (ctx.selected === note.id) item.classList.add("selected");
  const name = headline(note);

  const heading = cardHeading(note);
  const title = document.createElement("h3");
  title.className = heading.kind;
  // A first line standing in for the title the AI has not given yet.
  if (heading.provisional) title.classList.add("provisional");
  const open = document.createElement("a");
  open.href = noteAddress(note.id);
  open.className = "open";
  // Its own direction, isolated: bidi controls in a title reorder nothing around it.
  open.dir = "auto";
  open.textContent = heading.text;
  markLanguage(title, open.textContent);
  open.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    ctx.open(note.id);
  });
  title.append(open);
  item.append(title);

  // No summary on the card (the open note has it): the AI's answer adds nothing below
  // the title line, so the cards under it stay where they are.
  if (note.ai_read_chars != null && note.ai_status === "done") {
    // A note longer than the model reads at once: its AI fields come from its beginning.
    item.append(paragraph("read-part", t("readPart", { n: note.ai_read_chars })));
  }
  // A hit found by its meaning alone has none of the words marked: it says why it is here.
  if (note.found_by === "meaning") item.append(paragraph("found-by", t("foundByMeaning")));
  if (note.snippet) item.append(snippetElement(note.snippet));
  // The body, whatever the AI said: the same text before its answer and after.
  else if (heading.preview) {
    // Ticks count the items of the whole body: a preview without its heading line
    // has none above its first item, so its indexes are the body's.
    item.append(...preview(heading.preview, !ctx.inTrash && ctx.tick && ((index, done) => ctx.tick(note, index, done))));
  }

  const slow = note.ai_status === "pending" && ctx.slow;
  if (slow) item.append(paragraph("slow-note", slowText(slow)));
  if (note.ai_status === "failed" && note.ai_error) {
    item.append(paragraph("ai-error", failureText(note, ctx.maxAttempts)), details(note.ai_error));
  }

  // The meta line: what the AI made of the note (or that it has not yet: the badge),
  // then the actions. The labels are one line, cut when they do not fit, so the AI's
  // tags replacing the badge never add a line.
  const meta = document.createElement("div");
  meta.className = "meta";
  const labels = document.createElement("span");
  labels.className = "labels";
  const actions = document.createElement("span");
  actions.className = "actions";
  meta.append(labels, actions);
  // A badge only when the note is not done: done is the normal case.
  if (note.ai_status !== "done") {
    const badge = document.createElement("span");
    badge.className = `badge ${note.ai_status}`;
    badge.textContent = t({ pending: "badgePending", failed: "badgeFailed" }[note.ai_status]);
    if (slow) {
      badge.classList.add("slow");
      badge.textContent = t("badgeSlow");
    }
    labels.append(badge);
  }
  for (const tag of note.tags) labels.append(tagButton(tag, ctx.filterTag));
  labels.append(timeElement(note.created_at));
  const named = { title: isolated(name) };
  if (ctx.inTrash) {
    actions.append(button(t("restore"), () => ctx.action(note.id, "restore"), "restore", t("restoreNote", named)));
    actions.append(deleteButton(note, named, ctx.remove));
  } else {
    if (ctx.offerKeep) {
      actions.append(button(t("keep"), () => ctx.action(note.id, "keep"), "keep", t("keepNote", named)));
    }
    actions.append(button(t("edit"), () => ctx.edit(item, note), "edit", t("editNote", named)));
    actions.append(aiButton(note, named, ctx.action));
    actions.append(button(t("trash"), () => ctx.trash(note), "trash", t("trashNote", named)));
  }
  item.append(meta);
  return item;
}
