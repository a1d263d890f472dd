// The tags view: every tag with its count, a filter on click, and a rename box
// (renaming to a tag that exists merges the two). Rows are drawn by the keyed list
// renderer, so a row being typed in is not made again unless its tag changed.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, tagButton } from "./dom.js";
import { tagChars } from "./facts.js";
import { renderKeyed } from "./keyed-list.js";
import { filterByTag, whenShown } from "./navigation.js";
import { state, update, onRender } from "./store.js";

export async function loadTags() {
  const tags = await api.tags();
  update((s) => (s.tags.list = tags));
}

async function rename(tag, to) {
  try {
    const done = await api.renameTag(tag, to);
    const values = { from: tag, to: done.tag, notes: t("notesCount", { n: done.notes }) };
    $("tags-result").textContent = t(done.merged ? "mergedTag" : "renamed", values);
    loadTags();
  } catch (failure) {
    if (!(failure instanceof api.NoSession)) $("tags-result").textContent = failure.message;
  }
}

/// One tag's row: the tag (a filter), its count, a rename box.
export function tagRow({ tag, count, maxChars }, row) {
  row.replaceChildren();
  row.dataset.tag = tag;
  row.append(tagButton(tag, filterByTag));
  const uses = document.createElement("span");
  uses.className = "count";
  uses.textContent = t("notesCount", { n: count });
  row.append(uses);
  const form = document.createElement("form");
  const name = document.createElement("input");
  name.value = tag;
  if (maxChars) name.maxLength = maxChars;
  name.setAttribute("aria-label", t("renameTo", { tag }));
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.textContent = t("rename");
  submit.setAttribute("aria-label", `${t("rename")}: #${tag}`);
  form.append(name, submit);
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
  renderKeyed($("tags"), s.tags.list.map(({ tag, count }) => ({ key: tag, data: { tag, count, maxChars } })), tagRow);
  $("tags-empty").hidden = s.tags.list.length > 0;
});

whenShown("tags", () => loadTags().catch(() => {}));
