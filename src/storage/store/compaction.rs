//! The change log's compaction: each note keeps its newest change, the older ones go
//! (docs/DESIGN.md, "The change log"). The log would otherwise grow by every write for
//! as long as the notes live: a note captured, answered, embedded and edited is four
//! rows, and what follows the log only ever needs the newest (the tag and vector
//! indexes and the live page follow it as it is written; a reader behind, paging with
//! `since`, still hears of every note that changed, by its newest change).
//!
//! Only changes older than a cut-off (an hour, `Inbox::compact_change_log`) are
//! compacted: a reader that reads the log at least that often hears of every step, and
//! what follows the log in memory is never that far behind.
//!
//! It goes in steps, each its own transaction on the repository's thread, so captures
//! wait for one step at most, never for the whole log. A step reads a window of the log
//! after the point the last finished step reached (`change_log_compacted`, migration
//! 0016) and drops the older changes of the notes named in it. That is all there is to
//! drop: a row is superseded only by a newer row of its note, so every row superseded
//! since the last pass belongs to a note with a change after that point. A pass after
//! an hour of use reads that hour's changes, not the whole log; the first pass on an
//! old database reads the whole log, a window at a time.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::changes::latest_seq;
use super::{Store, StoreResult};
use crate::domain::timestamp;

/// How many of the log's numbers one step reads: at most this many notes' older
/// changes go in one transaction, so a capture waits for a step at most ~10–15 ms (a
/// thousand notes' three older changes each; `cargo bench --bench pipeline --
/// compaction`). The first pass over an old database's 400,000 rows is 400 steps.
pub const COMPACT_STEP: i64 = 1_000;

/// What a step did: how many rows it dropped, how far the log is compacted now, and
/// whether the pass is over (the log's newest change reached, or the first change
/// younger than the cut-off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    pub removed: u64,
    pub upto: i64,
    pub done: bool,
}

/// The window of the log the next step reads, `(after, upto]`: from where the last
/// step ended, at most `step` numbers on; `None` when nothing is past it.
pub fn next_window(compacted: i64, latest: i64, step: i64) -> Option<(i64, i64)> {
    (latest > compacted).then(|| (compacted, latest.min(compacted.saturating_add(step.max(1)))))
}

/// The part of the window `(after, upto]` a step compacts, given the first change in
/// it younger than the cut-off (if any): the changes before that one. Replies the end
/// and whether the pass ends with this step (it met a young change, or the window
/// reached the log's newest).
pub fn old_part(after: i64, upto: i64, latest: i64, first_young: Option<i64>) -> (i64, bool) {
    match first_young {
        Some(young) => ((young - 1).clamp(after, upto), true),
        None => (upto, upto >= latest),
    }
}

impl Store {
    /// One step of the compaction (see the module), of the changes written before
    /// `before`: the older changes of the notes with a change in the next window go,
    /// and the point reached is kept, in one transaction.
    pub fn compact_changes_step(
        &mut self,
        step: i64,
        before: DateTime<Utc>,
    ) -> StoreResult<Compacted> {
        // What follows the log in memory reads it up to now first, so no change it has
        // not applied yet can go.
        self.follow_log();
        let reached: Option<i64> = self
            .conn
            .query_row(
                "SELECT upto FROM change_log_compacted WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let latest = latest_seq(&self.conn)?;
        // A point past the log's newest (rows lost in a repair, numbers handed out
        // again) is brought back to it: the changes after it are read again.
        let compacted = reached.unwrap_or(0).min(latest);
        let Some((after, upto)) = next_window(compacted, latest, step) else {
            return Ok(Compacted {
                removed: 0,
                upto: compacted,
                done: true,
            });
        };
        let first_young: Option<i64> = self
            .conn
            .prepare_cached(
                "SELECT seq FROM note_changes WHERE seq > ?1 AND seq <= ?2 AND at >= ?3
                 ORDER BY seq LIMIT 1",
            )?
            .query_row(params![after, upto, timestamp(before)], |r| r.get(0))
            .optional()?;
        let (end, done) = old_part(after, upto, latest, first_young);
        if end == after {
            // Nothing old enough past the point reached: no write at all.
            return Ok(Compacted {
                removed: 0,
                upto: end,
                done,
            });
        }
        let removed = self.write(|w| {
            let removed = w.drop_superseded(after, end)?;
            w.prepare_cached(
                "INSERT INTO change_log_compacted (id, upto) VALUES (1, ?1)
                 ON CONFLICT (id) DO UPDATE SET upto = excluded.upto",
            )?
            .execute([end])?;
            Ok(removed)
        })?;
        Ok(Compacted {
            removed,
            upto: end,
            done,
        })
    }

    /// Compacts the changes written before `before`, step after step; replies how many
    /// rows went. (The service goes a step per message: `Inbox::compact_change_log`.)
    pub fn compact_changes(&mut self, before: DateTime<Utc>) -> StoreResult<u64> {
        let mut removed = 0;
        loop {
            let step = self.compact_changes_step(COMPACT_STEP, before)?;
            removed += step.removed;
            if step.done {
                return Ok(removed);
            }
        }
    }
}

#[cfg(test)]
mod tests;
