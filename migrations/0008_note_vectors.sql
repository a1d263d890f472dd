-- 0008: each note's vector, for related notes (docs/DESIGN.md, "Related notes").
--
-- One vector a note, from the embedding model named beside it: the f32 values as a plain
-- little-endian BLOB of `dims` × 4 bytes, scaled to length 1 (a dot product is the cosine).
-- A note's vectors are compared only with vectors of the same model and dimensions, so a
-- changed model (re-embedding in the background, a note at a time) never mixes them.
CREATE TABLE note_vectors (
    note_id     TEXT PRIMARY KEY REFERENCES notes (id) ON DELETE CASCADE,
    model       TEXT NOT NULL,
    dims        INTEGER NOT NULL CHECK (dims > 0),
    vector      BLOB NOT NULL CHECK (length(vector) = dims * 4),
    embedded_at TEXT NOT NULL
);
-- The vectors of one model, for the nearest notes and for what is left to embed.
CREATE INDEX note_vectors_by_model ON note_vectors (model, dims);
-- A changed body makes its vector stale: it goes in the same transaction as the edit, and
-- the worker embeds the note again.
CREATE TRIGGER note_vectors_stale_on_edit AFTER UPDATE OF body ON notes
    WHEN old.body IS NOT new.body
BEGIN
    DELETE FROM note_vectors WHERE note_id = new.id;
END;
