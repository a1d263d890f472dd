// The tags view: every tag with its count, a filter on click, and a "Rename" button
// that opens a rename box in its row, one row at a time (renaming to a tag that
// exists merges the two): a list of tags to read, not a wall of forms. Rows are drawn
// by the keyed list renderer, so a row being typed in is not made again unless its
// tag changed.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, button, tagButton } from "./dom.js";
import { tagChars } from "./facts.js";
import { renderKeyed } from "./keyed-list.js";
import { filterByTag, whenShown } from "./navigation.js";
import { state, update, flush, onRender } from "./store.js";

export async function loadTags() {
  const tags = await api.tags();
  update((s) => (s.tags.list = tags));
}

async function rename(tag, to) {
  try {
    const done = await api.renameTag(tag, to);
    const values = { from: tag, to: done.tag, notes: t("notesCount", { n: done.notes }) };
    // Done: the box closes (a refusal leaves it open, with what was typed).
    if (renaming === tag) renaming = null;
    $("tags-result").textContent = t(done.merged ? "mergedTag" : "renamed", values);
    loadTags();
  } catch (failure) {
    if (!(failure instanceof api.NoSession)) $("tags-result").textContent = failure.message;
  }
}

// The tag whose rename box is open (one at a time), or null.
let renaming = null;

/// Opens `tag`'s rename box (closing any other), or closes the open one (null); the
/// focus goes into the box, or back to the row's Rename button.
function openRename(tag) {
  const closing = renaming;
  renaming = tag;
  update((s) => (s.tags.list = s.tags.list.slice()));
  flush();
  if (tag !== null) {
    const input = $("tags").querySelector(`li[data-tag="${CSS.escape(tag)}"] input`);
    input?.focus();
    input?.select();
  } else if (closing !== null) {
    $("tags").querySelector(`li[data-tag="${CSS.escape(closing)}"] button.rename`)?.focus();
  }
}

/// One tag's row: the tag (a filter), its count, and Rename, or the rename box when
/// it is open.
export function tagRow({ tag, count, maxChars, open }, row) {
  row.replaceChildren();
  row.dataset.tag = tag;
  row.append(tagButton(tag, filterByTag));
  const uses = document.createElement("span");
  uses.className = "count";
  uses.textContent = t("notesCount", { n: count });
  row.append(uses);
  if (!open) {
    row.append(button(t("rename"), () => openRename(tag), "rename", `${t("rename")}: #${tag}`));
    return row;
  }
  const form = document.createElement("form");
  const name = document.createElement("input");
  name.value = tag;
  if (maxChars) name.maxLength = maxChars;
  name.setAttribute("aria-label", t("renameTo", { tag }));
  name.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    // Esc closes the box, not the view.
    event.preventDefault();
    event.stopPropagation();
    openRename(null);
  });
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.textContent = t("rename");
  submit.setAttribute("aria-label", `${t("rename")}: #${tag}`);
  form.append(name, submit, button(t("cancel"), () => openRename(null), "cancel"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!name.value.trim() || name.value.trim() === tag) return;
    rename(tag, name.value);
  });
  row.append(form);
  return row;
}

let drawn = null;
let drawnLimits = null;
onRender((s) => {
  // Drawn again when the limits come too: a rename box made before them has no length.
  if (s.tags.list === drawn && s.service.limits === drawnLimits) return;
  drawn = s.tags.list;
  drawnLimits = s.service.limits;
  const maxChars = tagChars(s.service.limits);
  renderKeyed(
    $("tags"),
    s.tags.list.map(({ tag, count }) => ({ key: tag, data: { tag, count, maxChars, open: tag === renaming } })),
    tagRow,
  );
  $("tags-empty").hidden = s.tags.list.length > 0;
});

whenShown("tags", () => loadTags().catch(() => {}));
