//! Where trash lives: moving a note to the trash and back, keeping a note past expiry,
//! trashing the expired ones, and deleting for good (one note, the whole trash, the
//! hourly purge of old trash), the text overwritten as it goes.

use super::notes::expired_where;
use chrono::{DateTime, Utc};
use rusqlite::{params, params_from_iter};

use super::{Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
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
    /// (The vector index follows the log: a note in the trash is nobody's related note.)
    pub fn trash(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.set_one(
            "UPDATE notes SET deleted_at = ?2, updated_at = ?2
             WHERE id = ?1 AND deleted_at IS NULL",
            note_id,
            ChangeKind::Trashed,
            now,
        )
    }

    /// Takes a note out of the trash; a pending one resumes with its job row.
    pub fn restore(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.set_one(
            "UPDATE notes SET deleted_at = NULL, updated_at = ?2
             WHERE id = ?1 AND deleted_at IS NOT NULL",
            note_id,
            ChangeKind::Restored,
            now,
        )
    }

    /// Keeps a note past expiry. Keeping a kept note changes nothing.
    pub fn keep(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Note> {
        let kept = self.set_one(
            "UPDATE notes SET kept_at = ?2, updated_at = ?2 WHERE id = ?1 AND kept_at IS NULL",
            note_id,
            ChangeKind::Kept,
            now,
        )?;
        Ok(kept.note)
    }

    /// Runs `sql` (an UPDATE of the note `?1` at `?2`, now) and logs `kind` when it
    /// changed it.
    fn set_one(
        &mut self,
        sql: &str,
        note_id: &str,
        kind: ChangeKind,
        now: DateTime<Utc>,
    ) -> StoreResult<Changed> {
        let changed = self.write(|w| {
            let changed = w
                .prepare_cached(sql)?
                .execute(params![note_id, timestamp(now)])?;
            if changed > 0 {
                w.record(note_id, kind, now)?;
            }
            Ok(changed > 0)
        })?;
        Ok(Changed {
            note: self.get(note_id)?,
            changed,
        })
    }

    /// Moves every expired note (active, older than `expiry.days`, never kept) to the
    /// trash in one statement. Returns their ids.
    pub fn trash_expired(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        let trashed = self.update_expired(
            concat!(
                "UPDATE notes SET deleted_at = ?2, updated_at = ?2 WHERE ",
                expired_where!(),
                " RETURNING id"
            ),
            ChangeKind::Trashed,
            now,
        )?;
        Ok(trashed)
    }

    /// Keeps every expired note (active, older than `expiry.days`, never kept) in one
    /// statement: none of them counts as expired again. Returns their ids.
    pub fn keep_expired(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.update_expired(
            concat!(
                "UPDATE notes SET kept_at = ?2, updated_at = ?2 WHERE ",
                expired_where!(),
                " RETURNING id"
            ),
            ChangeKind::Kept,
            now,
        )
    }

    /// Runs `sql` (an UPDATE of the expired notes, `?1` the expiry's edge and `?2` now,
    /// `RETURNING id`) and answers the ids it changed.
    fn update_expired(
        &mut self,
        sql: &str,
        kind: ChangeKind,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<String>> {
        let Some(edge) = self.expired_before(now) else {
            return Ok(Vec::new());
        };
        self.write(|w| {
            let ids = {
                let mut stmt = w.prepare_cached(sql)?;
                let ids = stmt
                    .query_map(params![edge, timestamp(now)], |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()?;
                ids
            };
            w.record_all(&ids, kind, now)?;
            Ok(ids)
        })
    }

    /// Deletes a note in the trash for good, its text gone from the database files:
    /// every row is overwritten as it is deleted or rewritten (`secure_delete`, on for
    /// the connection, and FTS5's own `secure-delete` for the search index, set by
    /// migration 0003), and the WAL, which still holds the pages as they were, is
    /// folded back and emptied. An active note is a conflict: it must be trashed first.
    pub fn delete_forever(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<()> {
        let note = self.get(note_id)?;
        if note.deleted_at.is_none() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is not in the trash; move it to the trash first"
            )));
        }
        self.erase(
            "DELETE FROM notes WHERE id = ?1 AND deleted_at IS NOT NULL RETURNING id",
            &[note_id],
            ChangeKind::Deleted,
            now,
        )?;
        Ok(())
    }

    /// Deletes every note in the trash for good, as [`Store::delete_forever`] does;
    /// replies with how many.
    pub fn empty_trash(&mut self, now: DateTime<Utc>) -> StoreResult<u64> {
        self.erase(
            "DELETE FROM notes WHERE deleted_at IS NOT NULL RETURNING id",
            &[],
            ChangeKind::Deleted,
            now,
        )
    }

    /// Runs a delete (its content overwritten; `RETURNING id`), logs each note it
    /// deleted, then empties the WAL.
    fn erase(
        &mut self,
        sql: &str,
        args: &[&str],
        kind: ChangeKind,
        now: DateTime<Utc>,
    ) -> StoreResult<u64> {
        let deleted = self.delete_notes(sql, params_from_iter(args.iter()), kind, now)?;
        if deleted > 0 {
            // The WAL holds the pages as they were before: fold it back and truncate it.
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(deleted as u64)
    }

    /// Deletes for good the notes trashed before `older_than` (their job and tag rows
    /// go with them). Returns how many.
    pub fn purge_trash(
        &mut self,
        older_than: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> StoreResult<u64> {
        self.delete_notes(
            "DELETE FROM notes WHERE deleted_at IS NOT NULL AND deleted_at < ?1 RETURNING id",
            [timestamp(older_than)],
            ChangeKind::Deleted,
            now,
        )
    }

    /// Runs `sql` (a `DELETE FROM notes … RETURNING id`) and logs `kind` for each note
    /// it deleted.
    fn delete_notes(
        &mut self,
        sql: &str,
        args: impl rusqlite::Params,
        kind: ChangeKind,
        now: DateTime<Utc>,
    ) -> StoreResult<u64> {
        self.write(|w| {
            let ids = {
                let mut stmt = w.prepare_cached(sql)?;
                let ids = stmt
                    .query_map(args, |r| r.get(0))?
                    .collect::<Result<Vec<String>, _>>()?;
                ids
            };
            w.record_all(&ids, kind, now)?;
            Ok(ids.len() as u64)
        })
    }
}
