// A card's preview of a note's body: a small, safe part of Markdown drawn as DOM
// nodes made here (never HTML parsed from the note): headings as bold lines (no
// heading sizes on a card), list and checklist items as items, quotes, code in mono
// (inline and fenced), **bold**, *emphasis*, ~~struck~~, [text](https://…) links and
// bare web addresses (web/js/links.js). Everything else stays text as typed. The open
// note shows the service's full rendering (src/render.rs).
//
// Checklist items can be ticked from the card when the page counts them as the
// service does (`POST /api/notes/{id}/tasks/{index}` counts with pulldown-cmark): a
// body with a code block, a quote or HTML could hold an item-like line the two count
// differently, so there the boxes only show.

import { appendLinkedText } from "./links.js";
import { noteOfAddress } from "./dom.js";

const FENCE = /^\s{0,3}(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const TASK = /^(\s*)(?:[-*+]|\d{1,9}[.)])\s+\[([ xX])\]\s+(.*)$/;
const BULLET = /^(\s*)[-*+]\s+(.*)$/;
const ORDERED = /^(\s*)(\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
// Inline: `code`, **bold**, __bold__, *emphasis*, ~~struck~~, [text](http(s) address
// or a note's address, /?note=ID: a saved answer's sources). A link's text may hold
// an escaped bracket (\] in a title).
const INLINE =
  /`([^`\n]+)`|\*\*([^*\n]+)\*\*|__([^_\n]+)__|\*([^*\s][^*\n]*)\*|~~([^~\n]+)~~|\[((?:[^\]\\\n]|\\.)+)\]\((https?:\/\/[^\s)]+|\/\?note=[A-Za-z0-9_-]{1,64})\)/g;

/// The lines of `body` as blocks: `{kind, text, …}`; a fenced code block is one block.
export function blocks(body) {
  const out = [];
  const lines = body.trim().split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const fence = line.match(FENCE);
    if (fence) {
      const code = [];
      for (i += 1; i < lines.length && !lines[i].trimStart().startsWith(fence[1]); i += 1) code.push(lines[i]);
      out.push({ kind: "code", text: code.join("\n") });
      continue;
    }
    let match;
    if ((match = line.match(TASK))) out.push({ kind: "task", depth: match[1].length, done: match[2] !== " ", text: match[3] });
    else if ((match = line.match(HEADING))) out.push({ kind: "heading", text: match[1] });
    else if ((match = line.match(BULLET))) out.push({ kind: "item", depth: match[1].length, mark: "•", text: match[2] });
    else if ((match = line.match(ORDERED))) out.push({ kind: "item", depth: match[1].length, mark: match[2], text: match[3] });
    else if ((match = line.match(QUOTE))) out.push({ kind: "quote", text: match[1] });
    else if (!line.trim()) out.push({ kind: "gap", text: "" });
    else out.push({ kind: "line", text: line });
  }
  return out;
}

/// Whether the page's count of checklist items is surely the service's: no code (fenced
/// or indented), no quote, no HTML, nothing but plain lines, headings and list items.
export function tickable(body) {
  const ITEM = /^\s*([-*+]|\d{1,9}[.)])\s/;
  let afterItem = false;
  for (const line of body.split("\n")) {
    if (FENCE.test(line) || QUOTE.test(line) || /<[a-z!/]/i.test(line)) return false;
    // An ordered item may not start a list after a paragraph, an empty item may not be
    // a task: the edge cases stay with the open note.
    if (/^\s*\d{1,9}[.)]\s+\[[ xX]\]/.test(line) || /^\s*[-*+]\s+\[[ xX]\]\s*$/.test(line)) return false;
    // Indented by four or more: an item nested in a list, or else a code block.
    if (/^( {4}|\t)/.test(line) && !(afterItem && ITEM.test(line))) return false;
    if (line.trim()) afterItem = ITEM.test(line);
  }
  return true;
}

/// `text` into `element` with its inline formatting, as elements made here.
export function appendInline(element, text) {
  let done = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > done) appendLinkedText(element, text.slice(done, match.index));
    const [, code, bold, bold2, em, struck, label, url] = match;
    let node;
    if (code !== undefined) {
      node = document.createElement("code");
      node.textContent = code;
    } else if (label !== undefined) {
      node = document.createElement("a");
      node.href = url;
      const note = noteOfAddress(url);
      // A note's address opens in the page (navigation.js, wireNoteLinks).
      if (note) node.dataset.note = note;
      else {
        node.target = "_blank";
        node.rel = "noopener noreferrer";
      }
      node.textContent = label.replace(/\\(.)/g, "$1");
    } else {
      node = document.createElement(struck !== undefined ? "s" : em !== undefined ? "em" : "strong");
      appendLinkedText(node, bold ?? bold2 ?? em ?? struck);
    }
    element.append(node);
    done = match.index + match[0].length;
  }
  if (done < text.length) appendLinkedText(element, text.slice(done));
}

/// The preview's blocks as elements in `element`. `tick(index, done)`: a checklist
/// item ticked on the card (absent: the boxes only show).
export function appendPreview(element, body, tick) {
  const canTick = Boolean(tick) && tickable(body);
  let task = 0;
  for (const block of blocks(body)) {
    const line = document.createElement("div");
    line.className = block.kind;
    if (block.depth) line.style.paddingInlineStart = `${Math.min(block.depth, 8) * 0.5}rem`;
    if (block.kind === "code") {
      const code = document.createElement("code");
      code.textContent = block.text;
      line.append(code);
    } else if (block.kind === "task") {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = block.done;
      box.dataset.task = String(task);
      const index = task;
      if (canTick) box.addEventListener("change", () => tick(index, box.checked));
      else box.disabled = true;
      const text = document.createElement("span");
      appendInline(text, block.text);
      label.append(box, text);
      line.append(label);
      task += 1;
    } else if (block.kind === "item") {
      const mark = document.createElement("span");
      mark.className = "mark";
      mark.textContent = `${block.mark} `;
      line.append(mark);
      appendInline(line, block.text);
    } else if (block.kind === "heading") {
      const strong = document.createElement("strong");
      appendInline(strong, block.text);
      line.append(strong);
    } else {
      appendInline(line, block.text);
    }
    element.append(line);
  }
  return task;
}

/// The words a search's snippet marked as matched (`[{text, matched}]`), each once.
export function matchedWords(snippet) {
  const words = snippet.filter((part) => part.matched && part.text.trim()).map((part) => part.text.toLocaleLowerCase());
  return [...new Set(words)];
}

/// Marks each place `element`'s text says one of `words` (case aside) with a `<mark>`
/// made here (the text split around it, never parsed): a search hit's card shows the
/// note as any card does, its matched words marked. How many were marked.
export function markWords(element, words) {
  if (!words.length) return 0;
  const escaped = words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).sort((a, b) => b.length - a.length);
  const pattern = new RegExp(escaped.join("|"), "giu");
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode);
  let marked = 0;
  for (const node of texts) {
    const text = node.textContent;
    const parts = [];
    let done = 0;
    for (const match of text.matchAll(pattern)) {
      if (!match[0]) continue;
      if (match.index > done) parts.push(document.createTextNode(text.slice(done, match.index)));
      const mark = document.createElement("mark");
      mark.textContent = match[0];
      parts.push(mark);
      done = match.index + match[0].length;
    }
    if (!parts.length) continue;
    if (done < text.length) parts.push(document.createTextNode(text.slice(done)));
    marked += parts.filter((part) => part.nodeName === "MARK").length;
    node.replaceWith(...parts);
  }
  return marked;
}
