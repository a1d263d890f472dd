-- 0011: a note that is an answer saved from Ask (docs/DESIGN.md, "Ask your notes";
-- issue #42 point 3).
--
-- An answer saved as a note is the model's words about other notes: asked the same
-- question again, it would come back as its own source. Marked here, set by the save
-- (`POST /api/notes` with `"kind": "answer"`), and left out of a question's notes
-- unless the question asks for them (`include_answers`). Every note before this
-- migration is a note.
ALTER TABLE notes ADD COLUMN kind TEXT NOT NULL DEFAULT 'note'
    CHECK (kind IN ('note', 'answer'));
