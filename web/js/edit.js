// Editing a note in place (its card, or the open note): a form of title, tags and
// body. Save sends only what changed (a title or tags set here are the person's: the
// AI keeps off them; a changed body goes back to the AI). Escape or Cancel puts it
// back. While the form is open, `state.editing` names the note, so live changes leave
// its card alone.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { button, field, headline, isolated, paragraph } from "./dom.js";
import { state } from "./store.js";

/// `saved(note)`: the service's answer; `closed()`: the form is gone (saved or not),
/// draw what it covered again.
export function editNote(container, note, { saved, closed }) {
  state.editing = note.id;
  const form = document.createElement("form");
  form.className = "edit";
  form.setAttribute("aria-label", t("editNoteLabel", { title: isolated(headline(note)) }));
  const title = document.createElement("input");
  title.name = "title";
  title.maxLength = 200;
  title.value = note.title || "";
  const tags = document.createElement("input");
  tags.name = "tags";
  tags.value = note.tags.join(", ");
  const body = document.createElement("textarea");
  body.name = "body";
  body.value = note.body;
  body.rows = Math.min(20, Math.max(4, note.body.split("\n").length + 1));
  const error = paragraph("error", "");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const actions = document.createElement("div");
  actions.className = "actions";
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = t("save");
  const close = () => {
    state.editing = null;
    closed();
  };
  actions.append(button(t("cancel"), close, "cancel"), save);
  form.append(
    field(t("editTitle"), title),
    field(t("editTags"), tags),
    field(t("editBody"), body),
    error,
    actions,
  );
  form.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const change = {};
    if (body.value !== note.body) change.body = body.value;
    if (title.value.trim() && title.value.trim() !== (note.title || "")) change.title = title.value;
    const newTags = tags.value.split(",").map((tag) => tag.trim()).filter(Boolean);
    if (newTags.join(",") !== note.tags.join(",")) change.tags = newTags;
    if (Object.keys(change).length === 0) return close();
    try {
      const edited = await api.editNote(note.id, change);
      state.editing = null;
      saved(edited);
      closed();
    } catch (failure) {
      if (failure instanceof api.NoSession) return;
      error.textContent = failure instanceof api.ApiFailure ? failure.message : t("actionFailed");
      error.hidden = false;
    }
  });
  container.replaceChildren(form);
  body.focus();
}
