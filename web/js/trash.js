// The trash view: the trashed notes (newest first, up to 500), drawn as cards by the
// keyed list renderer and kept from the live events (a note trashed comes in, one
// restored leaves) rather than read again; restore, delete for good, empty the trash.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, confirmingButton } from "./dom.js";
import { card } from "./card.js";
import { renderKeyed } from "./keyed-list.js";
import { filterByTag, openNote, whenShown } from "./navigation.js";
import { noteAction, onNoteChanged, placeByDate } from "./notes.js";
import { state, update, onRender } from "./store.js";

const TRASH_SIZE = 500;

export async function loadTrash() {
  const notes = await api.notes({ trash: "true", limit: TRASH_SIZE });
  update(({ trash }) => {
    trash.notes = notes;
    trash.hasMore = notes.length === TRASH_SIZE;
    trash.loaded = true;
  });
}

/// A note as it is now, into the trash list or out of it.
function placeInTrash(note) {
  const trash = state.trash;
  if (!trash.loaded) return;
  const notes = trash.notes.filter((n) => n.id !== note.id);
  if (note.deleted_at) {
    const at = placeByDate(notes, note);
    if (at >= 0) notes.splice(at, 0, note);
    else if (!trash.hasMore) notes.push(note);
  }
  update(() => (trash.notes = notes));
}

onNoteChanged(placeInTrash);

const ctx = {
  inTrash: true,
  open: openNote,
  filterTag: filterByTag,
  action: noteAction,
  remove: async (note) => {
    await api.deleteNote(note.id);
    update(({ trash }) => (trash.notes = trash.notes.filter((n) => n.id !== note.id)));
  },
};

let drawn = null;
onRender(({ trash, service }) => {
  if (!trash.loaded || trash.notes === drawn) return;
  drawn = trash.notes;
  const maxAttempts = service.maxAttempts;
  renderKeyed(
    $("trash-notes"),
    trash.notes.map((note) => ({ key: note.id, data: { note, maxAttempts } })),
    (data, item) => card(data.note, { ...ctx, maxAttempts: data.maxAttempts }, item),
  );
  $("trash-empty").hidden = trash.notes.length > 0;
  document.querySelector(".trash-actions").hidden = trash.notes.length === 0;
});

whenShown("trash", loadTrash);

export function wireTrash() {
  const emptyTrash = confirmingButton(
    t("emptyTrash"),
    () => t("confirmEmpty", { n: $("trash-notes").children.length }),
    "empty-trash",
    async () => {
      await api.emptyTrash();
      await loadTrash();
    },
  );
  emptyTrash.id = "empty-trash";
  $("empty-trash").replaceWith(emptyTrash);
}
