// The pure views of a note: `card(note, ctx, item)` (a card in the notes list, the
// search hits or the trash) and the pieces the open note shares with it. They read
// nothing but their arguments (and the page's words): what a card shows comes from
// the note and `ctx`, and what its buttons do is `ctx`'s functions.
//
// ctx: {slow, maxAttempts, inTrash, offerKeep, selected, open(id), filterTag(tag),
//       action(id, name), edit(item, note), trash(note), remove(note)}

import { t } from "./i18n.js";
import { button, confirmingButton, details, headline, isolated, noteAddress, paragraph, tagButton, timeElement } from "./dom.js";
import { appendLinkedText } from "./links.js";

/// The summary says something the card does not already: the body is more than a
/// couple of lines, and the summary is not the body again.
function summaryAdds(note) {
  const body = note.body.trim();
  return Boolean(note.summary) && body.length > 160 && !body.startsWith(note.summary.trim());
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
  const element = paragraph("preview snippet", "");
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

/// The body, a few lines of it (its web addresses links), with "Show more" when it
/// is longer.
function preview(body) {
  const element = paragraph("preview", "");
  appendLinkedText(element, body.trim());
  const lines = body.trim().split("\n").length;
  if (lines <= 3 && body.length <= 240) return [element];
  element.classList.add("clamped");
  const more = button(t("showMore"), () => {
    const clamped = element.classList.toggle("clamped");
    more.textContent = t(clamped ? "showMore" : "showLess");
    more.setAttribute("aria-expanded", String(!clamped));
  }, "show-more");
  more.setAttribute("aria-expanded", "false");
  return [element, more];
}

/// A note's card, made in `item` (emptied first).
export function card(note, ctx, item = document.createElement("li")) {
  item.replaceChildren();
  item.className = "note";
  item.dataset.id = note.id;
  item.dataset.status = note.ai_status;
  if (ctx.selected === note.id) item.classList.add("selected");
  const name = headline(note);

  const title = document.createElement("h3");
  const open = document.createElement("a");
  open.href = noteAddress(note.id);
  open.className = "open";
  // Its own direction, isolated: bidi controls in a title reorder nothing around it.
  open.dir = "auto";
  open.textContent = name;
  open.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    ctx.open(note.id);
  });
  title.append(open);
  item.append(title);

  if (summaryAdds(note) && !note.snippet) item.append(paragraph("summary", note.summary));
  if (note.ai_read_chars != null && note.ai_status === "done") {
    // A note longer than the model reads at once: its AI fields come from its beginning.
    item.append(paragraph("read-part", t("readPart", { n: note.ai_read_chars })));
  }
  if (note.snippet) item.append(snippetElement(note.snippet));
  else if (note.body.trim() !== name) item.append(...preview(note.body));

  const slow = note.ai_status === "pending" && ctx.slow;
  if (slow) item.append(paragraph("slow-note", slowText(slow)));
  if (note.ai_status === "failed" && note.ai_error) {
    item.append(paragraph("ai-error", failureText(note, ctx.maxAttempts)), details(note.ai_error));
  }

  const meta = document.createElement("div");
  meta.className = "meta";
  // A badge only when the note is not done: done is the normal case.
  if (note.ai_status !== "done") {
    const badge = document.createElement("span");
    badge.className = `badge ${note.ai_status}`;
    badge.textContent = t({ pending: "badgePending", failed: "badgeFailed" }[note.ai_status]);
    if (slow) {
      badge.classList.add("slow");
      badge.textContent = t("badgeSlow");
    }
    meta.append(badge);
  }
  for (const tag of note.tags) meta.append(tagButton(tag, ctx.filterTag));
  meta.append(timeElement(note.created_at));
  const spacer = document.createElement("span");
  spacer.className = "spacer";
  meta.append(spacer);
  const named = { title: isolated(name) };
  if (ctx.inTrash) {
    meta.append(button(t("restore"), () => ctx.action(note.id, "restore"), "restore", t("restoreNote", named)));
    meta.append(deleteButton(note, named, ctx.remove));
  } else {
    if (ctx.offerKeep) {
      meta.append(button(t("keep"), () => ctx.action(note.id, "keep"), "keep", t("keepNote", named)));
    }
    meta.append(button(t("edit"), () => ctx.edit(item, note), "edit", t("editNote", named)));
    meta.append(aiButton(note, named, ctx.action));
    meta.append(button(t("trash"), () => ctx.trash(note), "trash", t("trashNote", named)));
  }
  item.append(meta);
  return item;
}
