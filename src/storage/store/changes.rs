//! The change log (`note_changes`, migration 0009; issue #36 point 3): every write to a
//! note goes through [`Store::write`], the one place that opens a write's transaction,
//! and records what it did to each note with [`Write::record`] in that transaction. A
//! crash therefore leaves a note with its log row or neither: never one without the
//! other.
//!
//! What follows the log, instead of every write keeping it by hand:
//! - the tag index (`note_tags`, the index of a note's `tags` column): a recorded
//!   change that can move tags makes the note's rows agree with its column, in the same
//!   transaction ([`sync_note_tags`]);
//! - the vector index in memory: after each commit, [`Store::write`] reads the log from
//!   the last change it applied ([`Store::follow_log`]) and moves the notes it names
//!   into or out of the index;
//! - the live feed: the `RepositoryActor` reads the log from the last change it
//!   announced (`src/actors/repository/`).
//!
//! Writes to a note's job row alone (a retry's delay, an attempt counted) are the
//! queue's bookkeeping, not changes to the note, and are not logged. The log keeps no
//! text. It is compacted to each note's newest change (`compaction.rs`): a reader behind
//! still hears of every note that changed since its `seq`.

use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, Transaction, TransactionBehavior};

use super::{Store, StoreError, StoreResult};
use crate::api::changes::{ChangeKind, NoteChange};
use crate::domain::timestamp;

/// A write under way: its transaction (every statement of the write runs on it, through
/// `Deref`) and the one way to log what it did.
pub(super) struct Write<'c> {
    tx: Transaction<'c>,
}

impl std::ops::Deref for Write<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.tx
    }
}

impl Write<'_> {
    /// Logs `kind` for `note_id`, written at `at`, in the write's transaction; called
    /// after the note's own rows are written, so that what follows in the same
    /// transaction (the tag index) reads them as they are now.
    pub(super) fn record(
        &self,
        note_id: &str,
        kind: ChangeKind,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        self.tx
            .prepare_cached("INSERT INTO note_changes (note_id, kind, at) VALUES (?1, ?2, ?3)")?
            .execute(params![note_id, kind.as_str(), timestamp(at)])?;
        if moves_tags(kind) {
            sync_note_tags(&self.tx, note_id)?;
        }
        Ok(())
    }

    /// Drops the older changes, numbered up to `upto`, of the notes with a change
    /// numbered in `(after, upto]`, each keeping its newest (the compaction's step:
    /// `compaction.rs`); a change after `upto` is too young to go, superseded or not.
    /// Each note named is found through the `(note_id, seq)` index. Replies how many
    /// rows went.
    pub(super) fn drop_superseded(&self, after: i64, upto: i64) -> StoreResult<u64> {
        let removed = self
            .tx
            .prepare_cached(DROP_SUPERSEDED_SQL)?
            .execute(params![after, upto])?;
        Ok(removed as u64)
    }

    /// [`Write::record`] for many notes changed alike.
    pub(super) fn record_all(
        &self,
        note_ids: &[String],
        kind: ChangeKind,
        at: DateTime<Utc>,
    ) -> StoreResult<()> {
        for id in note_ids {
            self.record(id, kind, at)?;
        }
        Ok(())
    }
}

/// [`Write::drop_superseded`]'s statement.
pub const DROP_SUPERSEDED_SQL: &str = "DELETE FROM note_changes
     WHERE note_id IN (SELECT note_id FROM note_changes WHERE seq > ?1 AND seq <= ?2)
       AND seq <= ?2
       AND seq < (SELECT max(m.seq) FROM note_changes m WHERE m.note_id = note_changes.note_id)";

/// Whether a change of this kind can move a note's tags (its `note_tags` rows follow).
fn moves_tags(kind: ChangeKind) -> bool {
    matches!(
        kind,
        ChangeKind::Imported | ChangeKind::Edited | ChangeKind::Enriched | ChangeKind::Retagged
    )
}

/// Whether a change of this kind can move a note into or out of the vector index.
fn moves_vector(kind: ChangeKind) -> bool {
    matches!(
        kind,
        ChangeKind::Edited
            | ChangeKind::Embedded
            | ChangeKind::Trashed
            | ChangeKind::Restored
            | ChangeKind::Deleted
    )
}

/// Makes a note's `note_tags` rows what its `tags` column says: the rows of tags it no
/// longer has go, those it gained come (migration 0004's triggers move the counts,
/// 0006's the tags' search index); a tag it keeps is not touched. No note (deleted):
/// its rows went with it.
pub(super) fn sync_note_tags(conn: &Connection, note_id: &str) -> StoreResult<()> {
    conn.prepare_cached(
        "DELETE FROM note_tags WHERE note_id = ?1 AND tag NOT IN
             (SELECT j.value FROM notes n, json_each(n.tags) j
              WHERE n.id = ?1 AND j.type = 'text')",
    )?
    .execute([note_id])?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO note_tags (tag, note_id, active)
         SELECT j.value, n.id, n.deleted_at IS NULL FROM notes n, json_each(n.tags) j
         WHERE n.id = ?1 AND j.type = 'text'",
    )?
    .execute([note_id])?;
    Ok(())
}

impl Store {
    /// Runs a write: waits for the file to be known sound, opens the transaction, lets
    /// `write` run its statements and record its changes, commits, and then brings what
    /// follows the log in memory up to date. An error anywhere rolls the whole write
    /// back, its log rows with it.
    pub(super) fn write<T>(
        &mut self,
        write: impl FnOnce(&Write) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.check_file()?;
        let written = {
            let writing = Write {
                tx: self
                    .conn
                    .transaction_with_behavior(TransactionBehavior::Immediate)?,
            };
            let written = write(&writing)?;
            writing.tx.commit()?;
            written
        };
        self.follow_log();
        Ok(written)
    }

    /// Brings the vector index up to the newest change: each note a change since the
    /// last one applied may have moved goes into the index with its stored vector, or
    /// out of it. A failed read leaves the index as it was, to be brought up at the next
    /// write (its answers are ranked from the database, so a stale entry shows nothing
    /// wrong).
    pub(super) fn follow_log(&mut self) {
        if let Err(e) = self.apply_changes() {
            tracing::warn!(error = %e, "cannot bring the vector index up to the change log");
        }
    }

    fn apply_changes(&mut self) -> StoreResult<()> {
        let changes: Vec<(i64, String, String)> = {
            let mut stmt = self.conn.prepare_cached(
                "SELECT seq, note_id, kind FROM note_changes WHERE seq > ?1 ORDER BY seq",
            )?;
            let rows = stmt
                .query_map([self.applied], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            rows
        };
        for (seq, note_id, kind) in changes {
            if ChangeKind::parse(&kind).is_some_and(moves_vector) {
                self.index_as_stored(&note_id)?;
            }
            self.applied = seq;
        }
        Ok(())
    }

    /// Puts a note in the vector index as the database has it now: in, with its vector,
    /// when it is out of the trash and has one; out otherwise.
    fn index_as_stored(&mut self, note_id: &str) -> StoreResult<()> {
        self.index.remove(note_id);
        let active = self
            .conn
            .prepare_cached("SELECT 1 FROM notes WHERE id = ?1 AND deleted_at IS NULL")?
            .exists([note_id])?;
        if active {
            self.index_note(note_id)?;
        }
        Ok(())
    }

    /// The newest change's `seq` (0 for an empty log).
    pub fn latest_change(&self) -> StoreResult<i64> {
        latest_seq(&self.conn)
    }

    /// Up to `limit` changes after `since`, oldest first.
    pub fn changes_after(&self, since: i64, limit: usize) -> StoreResult<Vec<NoteChange>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, note_id, kind, at FROM note_changes WHERE seq > ?1 ORDER BY seq LIMIT ?2",
        )?;
        let rows = stmt.query_map(
            params![since, i64::try_from(limit).unwrap_or(i64::MAX)],
            |r| {
                let kind: String = r.get(2)?;
                Ok((r.get(0)?, r.get(1)?, kind, r.get(3)?))
            },
        )?;
        let mut changes = Vec::new();
        for row in rows {
            let (seq, note_id, kind, at) = row?;
            let kind = ChangeKind::parse(&kind).ok_or_else(|| {
                StoreError::Unavailable(format!("change {seq} has an unknown kind {kind}"))
            })?;
            changes.push(NoteChange {
                seq,
                note_id,
                kind,
                at,
            });
        }
        Ok(changes)
    }

    /// How many notes changed after `since`, and the newest change's `seq` (`since`
    /// when none did): what a write that moved many notes tells the live page.
    pub fn notes_changed_after(&self, since: i64) -> StoreResult<(u64, i64)> {
        let (notes, last): (i64, Option<i64>) = self.conn.query_row(
            "SELECT count(DISTINCT note_id), max(seq) FROM note_changes WHERE seq > ?1",
            [since],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok((u64::try_from(notes).unwrap_or(0), last.unwrap_or(since)))
    }
}

/// The newest change's `seq` in the database `conn` opens (0 for an empty log): where a
/// reader of the log that starts now begins.
pub(super) fn latest_seq(conn: &Connection) -> StoreResult<i64> {
    Ok(
        conn.query_row("SELECT coalesce(max(seq), 0) FROM note_changes", [], |r| {
            r.get(0)
        })?,
    )
}
