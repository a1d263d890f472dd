// Taking notes along (the stats view): every note as inkling's JSON export, saved by
// the browser as a file, and notes brought in from files (an inkling JSON export, or
// Markdown files parsed by the service), sent in requests under the service's
// request limit; and the usage log's export.

import * as api from "./api.js";
import { t } from "./i18n.js";
import { $, guarded } from "./dom.js";
import { importBatchBytes } from "./facts.js";
import { state } from "./store.js";

/// Fetched with the session (a plain link would carry no credential).
async function exportNotes() {
  try {
    const text = await api.exportNotes();
    const document_ = JSON.parse(text); // whole: the stream did not end early
    const file = `inkling-notes-${new Date().toISOString().slice(0, 10)}.json`;
    const blob = new Blob([text], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = file;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    $("transfer-result").textContent = t("notesExported", { n: document_.notes.length, file });
  } catch (failure) {
    if (!(failure instanceof api.NoSession)) $("transfer-result").textContent = failure.message;
  }
}

/// The first refusal stops, and says which file or note.
async function importNotes(files) {
  $("transfer-result").textContent = t("importing");
  const items = [];
  try {
    // The limits come with the status; ask for it if it has not come yet.
    const batchBytes = importBatchBytes(state.service.limits || (await api.status()).limits);
    for (const file of files) {
      const text = await file.text();
      if (/\.json$/i.test(file.name)) {
        for (const note of JSON.parse(text).notes || []) items.push({ notes: note });
      } else {
        const modified_at = new Date(file.lastModified).toISOString();
        items.push({ markdown: { name: file.name, text, modified_at } });
      }
    }
    let imported = 0;
    let skipped = 0;
    let batch = { notes: [], markdown: [] };
    let size = 0;
    const send = async () => {
      if (!batch.notes.length && !batch.markdown.length) return;
      const answer = await api.importNotes(batch);
      imported += answer.imported;
      skipped += answer.skipped;
      batch = { notes: [], markdown: [] };
      size = 0;
    };
    for (const item of items) {
      const [kind, value] = Object.entries(item)[0];
      const length = new TextEncoder().encode(JSON.stringify(value)).length;
      if (size + length > batchBytes) await send();
      batch[kind].push(value);
      size += length;
    }
    await send();
    const values = { imported: t("notesCount", { n: imported }), skipped: t("notesCount", { n: skipped }) };
    $("transfer-result").textContent = t(skipped ? "notesImported" : "notesImportedNone", values);
  } catch (failure) {
    if (!(failure instanceof api.NoSession)) $("transfer-result").textContent = failure.message;
  }
}

export function wireTransfer() {
  $("export-notes").addEventListener("click", exportNotes);
  $("import-notes").addEventListener("click", () => $("import-file").click());
  $("import-file").addEventListener("change", async () => {
    const files = [...$("import-file").files];
    $("import-file").value = "";
    if (files.length) await importNotes(files);
  });
  $("export").addEventListener("click", guarded(async () => {
    const result = await api.exportUsageLog();
    $("export-result").textContent = t("exported", { path: result.path });
  }));
}
