//! The search index written behind the captures (migration 0015): a new note's key
//! waits in `search_pending`, and its FTS5 rows (`search_titles`, `search_bodies`) are
//! written for every pending note at once, by [`Store::index_pending`].
//!
//! Why: written in the capture's own transaction, each group commit flushed a new
//! FTS5 segment of each index and FTS5 then merged those tiny segments, a quarter to a
//! third of the repository's work per capture (docs/PERFORMANCE.md, "Capture";
//! `benches/capture_parts.rs`). In batches that share is mostly gone.
//!
//! When: 0.5–1 s after captures pause (`actors::search_indexer`, so a search rarely
//! has any to write; also told at start, for the notes a last run left pending), before
//! anything reads the index (each search asks first, so a search never misses a note
//! captured before it, unless that write fails: then it searches without them), when
//! [`INDEX_BATCH`] notes wait (after the captures of the commit that reached it have
//! been answered: the next commit waits for it), and inside an import's own
//! transaction.
//! A note edited while pending changes nothing in the index (its rows are not there
//! yet: the batch reads the note as it is then); one deleted takes its pending row with
//! it (migration 0015's trigger). The batch is an ordinary durable transaction: on a
//! crash its notes are simply still pending.

use rusqlite::{Connection, Transaction, TransactionBehavior};

use super::{Store, StoreResult, Verdict};

/// How many notes may wait before a commit's handler writes their entries: a batch of
/// this many takes a few milliseconds and one fsync, paid once per that many notes
/// (the captures then arriving wait for it; capture's p99 in docs/PERFORMANCE.md
/// includes them), and bounds what a search may have to write first.
pub const INDEX_BATCH: u64 = 256;

impl Store {
    /// Writes the search entries of every pending note, in a transaction of its own;
    /// how many there were. Inside another transaction it writes nothing: its callers
    /// write first (a question's searches, before their read) or in it (an import).
    pub fn index_pending(&self) -> StoreResult<u64> {
        if !self.conn.is_autocommit() || !self.waiting_at_least(1)? {
            return Ok(0);
        }
        // `Store::write`'s steps (the check's verdict, an immediate transaction) on a
        // `&self`: a search, which writes these first, reads through `&self`. No change
        // of a note is logged here (the entries are the index's, not the note's).
        self.check_file()?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
        let written = write_entries(&tx)?;
        tx.commit()?;
        Ok(written)
    }

    /// Whether at least `n` notes wait for their search entries: a probe that stops at
    /// the `n`th row, where a count would read them all (each search and each commit
    /// of captures asks).
    fn waiting_at_least(&self, n: u64) -> StoreResult<bool> {
        let skip = i64::try_from(n.saturating_sub(1)).unwrap_or(i64::MAX);
        Ok(self
            .conn
            .prepare_cached("SELECT 1 FROM search_pending LIMIT 1 OFFSET ?1")?
            .exists([skip])?)
    }

    /// How many notes wait for their search entries.
    pub fn search_pending(&self) -> StoreResult<u64> {
        let pending: i64 = self
            .conn
            .prepare_cached("SELECT COUNT(*) FROM search_pending")?
            .query_row([], |r| r.get(0))?;
        Ok(u64::try_from(pending).unwrap_or(0))
    }

    /// [`Store::index_pending`] before a read of the index. A failure (a full disk) is
    /// logged and the search goes on without the notes still pending: better than no
    /// answer. So does a search while the check at start is still reading the file:
    /// reads go ahead of it, writes wait for it (`integrity.rs`), and the notes left
    /// pending by the last run are written once it is done (the `SearchIndexer` is
    /// told at start).
    pub(super) fn index_before_reading(&self) {
        if self.integrity().now() == Verdict::Checking {
            return;
        }
        if let Err(e) = self.index_pending() {
            tracing::warn!(error = %e, "cannot write the search index; searching without the newest notes");
        }
    }

    /// [`Store::index_pending`] once [`INDEX_BATCH`] notes wait. A failure leaves them
    /// pending (the next search writes them): the notes themselves are stored.
    pub fn index_if_behind(&self) {
        let behind = match self.waiting_at_least(INDEX_BATCH) {
            Ok(behind) => behind,
            Err(e) => {
                tracing::warn!(error = %e, "cannot count the notes waiting for the search index");
                false
            }
        };
        if behind {
            if let Err(e) = self.index_pending() {
                tracing::warn!(error = %e, "cannot write the search index; the next search will");
            }
        }
    }
}

/// The FTS5 rows of every pending note, as the note is now; the pending rows cleared.
/// Inside the caller's transaction (an import's; [`Store::index_pending`]'s own).
pub(super) fn write_entries(conn: &Connection) -> StoreResult<u64> {
    conn.prepare_cached(
        "INSERT INTO search_titles (rowid, title)
         SELECT p.key, coalesce(n.title, '') FROM search_pending p
         JOIN note_search_keys k ON k.key = p.key JOIN notes n ON n.id = k.note_id",
    )?
    .execute([])?;
    conn.prepare_cached(
        "INSERT INTO search_bodies (rowid, body)
         SELECT p.key, n.body FROM search_pending p
         JOIN note_search_keys k ON k.key = p.key JOIN notes n ON n.id = k.note_id",
    )?
    .execute([])?;
    let cleared = conn
        .prepare_cached("DELETE FROM search_pending")?
        .execute([])?;
    Ok(cleared as u64)
}
