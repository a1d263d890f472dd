//! The change log's compaction: each note keeps its newest change, the older ones go
//! (docs/DESIGN.md, "The change log"). The log would otherwise grow by every write for
//! as long as the notes live: a note captured, answered, embedded and edited is four
//! rows, and what follows the log only ever needs the newest (the tag and vector
//! indexes and the live page follow it as it is written; a reader behind, paging with
//! `since`, still hears of every note that changed, by its newest change).
//!
//! It goes in steps, each its own transaction on the repository's thread, so captures
//! wait for one step at most, never for the whole log. A step reads a window of the log
//! after the point the last finished step reached (`change_log_compacted`, migration
//! 0016) and drops the older changes of the notes named in it. That is all there is to
//! drop: a row is superseded only by a newer row of its note, so every row superseded
//! since the last pass belongs to a note with a change after that point. A pass after
//! a day of use reads that day's changes, not the whole log; the first pass on an old
//! database reads the whole log, a window at a time.

use rusqlite::{params, OptionalExtension};

use super::changes::latest_seq;
use super::{Store, StoreResult};

/// How many of the log's rows one step reads: at most this many notes' older changes
/// go in one transaction, so a capture waits a few ms for a step at most (up to ~10 ms
/// for a thousand notes' three older changes each; `cargo bench --bench pipeline --
/// compaction`). The first pass over an old database's 400,000 rows is 400 steps.
pub const COMPACT_STEP: i64 = 1_000;

/// What a step did: how many rows it dropped, how far the log is compacted now, and
/// the newest change when it ran (the pass is over once `upto` reaches it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compacted {
    pub removed: u64,
    pub upto: i64,
    pub latest: i64,
}

impl Compacted {
    /// Whether the log is compacted up to its newest change.
    pub fn done(&self) -> bool {
        self.upto >= self.latest
    }
}

/// The window of the log the next step reads, `(after, upto]`: from where the last
/// step ended, at most `step` rows on; `None` when nothing is past it.
pub fn next_window(compacted: i64, latest: i64, step: i64) -> Option<(i64, i64)> {
    (latest > compacted).then(|| (compacted, latest.min(compacted.saturating_add(step.max(1)))))
}

impl Store {
    /// One step of the compaction (see the module): the older changes of the notes
    /// with a change in the next window go, and the point reached is kept, in one
    /// transaction.
    pub fn compact_changes_step(&mut self, step: i64) -> StoreResult<Compacted> {
        self.write(|w| {
            let compacted: i64 = w
                .query_row(
                    "SELECT upto FROM change_log_compacted WHERE id = 1",
                    [],
                    |r| r.get(0),
                )
                .optional()?
                .unwrap_or(0);
            let latest = latest_seq(w)?;
            let Some((after, upto)) = next_window(compacted, latest, step) else {
                return Ok(Compacted {
                    removed: 0,
                    upto: compacted,
                    latest,
                });
            };
            // Each note named in the window, through the (note_id, seq) index: its rows
            // older than its newest.
            let removed = w
                .prepare_cached(
                    "DELETE FROM note_changes
                     WHERE note_id IN
                           (SELECT note_id FROM note_changes WHERE seq > ?1 AND seq <= ?2)
                       AND seq < (SELECT max(m.seq) FROM note_changes m
                                  WHERE m.note_id = note_changes.note_id)",
                )?
                .execute(params![after, upto])?;
            w.prepare_cached(
                "INSERT INTO change_log_compacted (id, upto) VALUES (1, ?1)
                 ON CONFLICT (id) DO UPDATE SET upto = excluded.upto",
            )?
            .execute([upto])?;
            Ok(Compacted {
                removed: removed as u64,
                upto,
                latest,
            })
        })
    }

    /// Compacts the whole log at once, step after step; replies how many rows went.
    /// (The service goes a step per message: `Inbox::compact_change_log`.)
    pub fn compact_changes(&mut self) -> StoreResult<u64> {
        let mut removed = 0;
        loop {
            let step = self.compact_changes_step(COMPACT_STEP)?;
            removed += step.removed;
            if step.done() {
                return Ok(removed);
            }
        }
    }
}

#[cfg(test)]
mod tests;
