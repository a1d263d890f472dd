//! Where trash lives: moving a note to the trash and back, keeping a note past expiry,
//! trashing the expired ones, and deleting for good (one note, the whole trash, the
//! hourly purge of old trash), the text overwritten as it goes.

use chrono::{DateTime, Utc};
use rusqlite::{params, params_from_iter};

use super::{Store, StoreError, StoreResult};
use crate::domain::{timestamp, Note};

/// A note after an operation that may have found nothing to do (trashing a note
/// already in the trash): `changed` says whether anything was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub note: Note,
    pub changed: bool,
}

impl Store {
    /// Moves a note to the trash. Trashing a trashed note changes nothing.
    pub fn trash(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE notes SET deleted_at = ?2, updated_at = ?2
                 WHERE id = ?1 AND deleted_at IS NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        // Out of the index with it: a note in the trash is nobody's related note.
        self.index.remove(note_id);
        Ok(Changed {
            note: self.get(note_id)?,
            changed: changed > 0,
        })
    }

    /// Takes a note out of the trash; a pending one resumes with its job row.
    pub fn restore(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE notes SET deleted_at = NULL, updated_at = ?2
                 WHERE id = ?1 AND deleted_at IS NOT NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        if changed > 0 {
            if let Err(e) = self.index_note(note_id) {
                // The restore is written; only its related notes wait for the next
                // start's build (the exact rescoring never shows a wrong one).
                tracing::warn!(error = %e, note = note_id, "cannot put a restored note's vector back in the index");
            }
        }
        Ok(Changed {
            note: self.get(note_id)?,
            changed: changed > 0,
        })
    }

    /// Keeps a note past expiry. Keeping a kept note changes nothing.
    pub fn keep(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Note> {
        self.check_file()?;
        self.conn
            .prepare_cached(
                "UPDATE notes SET kept_at = ?2, updated_at = ?2 WHERE id = ?1 AND kept_at IS NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        self.get(note_id)
    }

    /// Moves every expired note (active, older than `expiry.days`, never kept) to the
    /// trash in one statement. Returns their ids.
    pub fn trash_expired(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        let trashed = self.update_expired(
            "UPDATE notes SET deleted_at = ?2, updated_at = ?2
             WHERE deleted_at IS NULL AND created_at < ?1 AND kept_at IS NULL
             RETURNING id",
            now,
        )?;
        for id in &trashed {
            self.index.remove(id);
        }
        Ok(trashed)
    }

    /// Keeps every expired note (active, older than `expiry.days`, never kept) in one
    /// statement: none of them counts as expired again. Returns their ids.
    pub fn keep_expired(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.update_expired(
            "UPDATE notes SET kept_at = ?2, updated_at = ?2
             WHERE deleted_at IS NULL AND created_at < ?1 AND kept_at IS NULL
             RETURNING id",
            now,
        )
    }

    /// Runs `sql` (an UPDATE of the expired notes, `?1` the expiry's edge and `?2` now,
    /// `RETURNING id`) and answers the ids it changed.
    fn update_expired(&mut self, sql: &str, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.check_file()?;
        let mut stmt = self.conn.prepare_cached(sql)?;
        let ids = stmt
            .query_map(params![self.expired_before(now), timestamp(now)], |r| {
                r.get(0)
            })?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }

    /// Deletes a note in the trash for good, its text gone from the database files:
    /// every row is overwritten as it is deleted or rewritten (`secure_delete`, on for
    /// the connection, and FTS5's own `secure-delete` for the search index, set by
    /// migration 0003), and the WAL, which still holds the pages as they were, is
    /// folded back and emptied. An active note is a conflict: it must be trashed first.
    pub fn delete_forever(&mut self, note_id: &str) -> StoreResult<()> {
        self.check_file()?;
        let note = self.get(note_id)?;
        if note.deleted_at.is_none() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is not in the trash; move it to the trash first"
            )));
        }
        self.erase(
            "DELETE FROM notes WHERE id = ?1 AND deleted_at IS NOT NULL",
            &[note_id],
        )?;
        Ok(())
    }

    /// Deletes every note in the trash for good, as [`Store::delete_forever`] does;
    /// replies with how many.
    pub fn empty_trash(&mut self) -> StoreResult<u64> {
        self.check_file()?;
        self.erase("DELETE FROM notes WHERE deleted_at IS NOT NULL", &[])
    }

    /// Runs a delete (its content overwritten), then empties the WAL.
    fn erase(&mut self, sql: &str, args: &[&str]) -> StoreResult<u64> {
        let deleted = self.conn.execute(sql, params_from_iter(args.iter()))?;
        if deleted > 0 {
            // The WAL holds the pages as they were before: fold it back and truncate it.
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(deleted as u64)
    }

    /// Deletes for good the notes trashed before `older_than` (their job and tag rows
    /// go with them). Returns how many.
    pub fn purge_trash(&mut self, older_than: DateTime<Utc>) -> StoreResult<u64> {
        self.check_file()?;
        let purged = self
            .conn
            .prepare_cached("DELETE FROM notes WHERE deleted_at IS NOT NULL AND deleted_at < ?1")?
            .execute([timestamp(older_than)])?;
        Ok(purged as u64)
    }
}
