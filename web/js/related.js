// The open note's related notes: a small "Related" panel under its AI section, the
// nearest notes by meaning (GET /api/notes/{id}/related, the service decides which
// and how many; nothing below its similarity floor is sent). Each is a link that
// opens that note. It says nothing while the note has none, or has no vector yet (just
// written, or no embedding model configured): a panel of "none" would only take room.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { headline, noteAddress } from "./dom.js";
import { openNote } from "./navigation.js";
import { state } from "./store.js";

/// Fills `panel` (an empty <section>) with the related notes of `noteId`, once they
/// come; a later call for another note wins over an answer still on its way.
export async function showRelated(panel, noteId) {
  panel.className = "related";
  panel.hidden = true;
  let found;
  try {
    found = await api.related(noteId);
  } catch {
    panel.dataset.answered = "failed";
    return; // The panel is a hint: a failed read leaves it out, the note is shown.
  }
  if (state.place.open !== noteId || !panel.isConnected) return;
  panel.replaceChildren(...relatedView(found));
  panel.hidden = panel.childElementCount === 0;
  panel.dataset.answered = "true"; // for the tests: the answer came, shown or not
}

/// The panel's elements from the service's answer: a heading and a list of links;
/// nothing when it has no related notes (or no vector yet).
export function relatedView(found) {
  if (!found.embedded || !found.notes.length) return [];
  const heading = document.createElement("h3");
  heading.textContent = t("relatedHeading");
  const list = document.createElement("ul");
  for (const note of found.notes) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = noteAddress(note.id);
    link.dir = "auto";
    link.textContent = headline(note);
    link.addEventListener("click", (event) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      openNote(note.id);
    });
    item.append(link);
    list.append(item);
  }
  return [heading, list];
}
