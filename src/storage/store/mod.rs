//! `Store`: every repository operation as plain, synchronous rusqlite code.
//!
//! The `RepositoryActor` owns the one `Store` (the only writing connection) and only
//! wires messages to these methods; keeping the SQL here makes it testable without an
//! actor system. Every method takes `now` from the caller, so time is injectable.
//!
//! Every write to a note goes through `Store::write` (`changes.rs`), which records it
//! in the change log in the write's own transaction; the tag index and the vector index
//! follow that log.
//!
//! Invariants kept here (docs/DESIGN.md, "Data"):
//! - a `pending` note has exactly one `pending_jobs` row; `done`/`failed` notes have none
//!   (every status change and its job row change share one transaction);
//! - trashed notes are never due, counted, listed as active or retried. A trashed
//!   pending note keeps its job row, so restoring it resumes the work.
//!
//! `connection.rs` owns the `Store` itself: opening the database (its pragmas and
//! migrations, and the file's identity and soundness, checked before each write) and
//! the WAL checkpoint; `integrity.rs` the check at start that each write waits for;
//! `error.rs` the error type. The operations are in one `impl Store` block per feature,
//! each in its own file:
//! - `changes.rs`: the change log, the one way a write runs, and what follows the log;
//! - `notes.rs`: capture, reads, lists and their filters, edits, the banners' counts;
//! - `queue.rs`: the durable AI queue: job rows, and the worker's writes (an answer
//!   saved, a failure counted or final, retries);
//! - `trash.rs`: trash and restore, keep and expiry, deleting for good;
//! - `expiry.rs`: whether notes expire (the person's answer) and when to ask;
//! - `tags.rs`: the tag list, and how a note's tags are stored;
//! - `tag_rename.rs`: renaming a tag everywhere, in slices that let other work in;
//! - `search.rs`: full-text search (what a query means is `storage/search.rs`);
//! - `transfer.rs`: import;
//! - `voice.rs`: voice notes: a recording captured, its words saved, the files of
//!   notes deleted for good swept;
//! - `reminders.rs`: reminders set, listed, and which time each was shown for;
//! - `vectors.rs`: the notes' vectors: what is left to embed, saving them, related notes;
//! - `nearest.rs`: the nearest notes to a vector, through the index in memory (its
//!   build at start, kept in step with the writes) and by the exact search;
//! - `invariants.rs`: checks after the fact (the invariants above, query plans).

mod changes;
mod compaction;
mod connection;
mod error;
mod expiry;
mod ids;
mod integrity;
mod invariants;
mod nearest;
mod newest;
mod notes;
mod queue;
mod reminders;
mod search;
mod search_index;
mod tag_rename;
mod tags;
mod transfer;
mod trash;
mod vectors;
mod voice;

pub use crate::api::notes::{NoteCounts, SearchHit};
pub use crate::api::replies::{TagCount, TagRenamed};
pub use changes::DROP_SUPERSEDED_SQL;
pub use compaction::{Compacted, COMPACT_STEP};
pub use connection::Store;
pub use error::{StoreError, StoreResult};
pub use integrity::{Integrity, Verdict, RECOVER_HINT};
pub use nearest::{IndexProgress, INDEX_SLICE};
pub use notes::{Edited, COUNT_EXPIRED_SQL, COUNT_WITH_STATUS_SQL};
pub use queue::{
    Job, ALL_JOBS_SQL, ANY_MODEL_MISSING_SQL, INSERT_REQUEUED_JOBS_SQL, REQUEUE_FAILED_SQL,
    REQUEUE_MODEL_MISSING_SQL,
};
pub use reminders::{ReviewFacts, PENDING_LIMIT as REMINDERS_PER_LOOK};
pub use search_index::INDEX_BATCH;
pub use tag_rename::{renamed_tags, RenameProgress, TagRename, RENAME_SLICE_NOTES};
pub use transfer::Imported;
pub use trash::Changed;
pub use vectors::{EmbeddingBacklog, NoteVector, Related, BACKLOG_WALK};
pub use voice::Recording;
