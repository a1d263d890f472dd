//! Durable storage: the SQLite schema, its migrations, and the repository operations.
//!
//! - [`migrations`]: `migrations/*.sql` applied in order at start-up.
//! - [`store`]: [`Store`], every repository operation as plain synchronous code, one
//!   file per feature (notes, queue, trash, tags, search, transfer, invariants), every
//!   write to a note through the change log (`store/changes.rs`).
//! - [`recordings`]: the voice notes' recordings as files beside the database,
//!   written durably.
//! - [`search`]: what a search query means and how a hit's snippet is cut.
//! - [`vectors`]: the notes' vectors as stored, compared, and the nearest to one.
//! - [`spread`]: whether a model's vectors tell notes apart (a sample of them judged).
//! - [`vector_index`]: the vectors' binary codes in memory, and the scan for candidates
//!   (held to a search's filter).
//!
//! How the rankings are merged and how near a note must be to count is retrieval's
//! (`crate::search`).
//!
//! Only the `RepositoryActor` holds a `Store` at run time (one writing connection).

pub mod migrations;
pub mod recordings;
pub mod search;
pub mod spread;
pub mod store;
pub mod vector_index;
pub mod vectors;

pub use crate::domain::WaitReason;
pub use search::SearchQuery;
pub use store::{
    Changed, Compacted, Edited, EmbeddingBacklog, Imported, IndexProgress, Integrity, Job,
    NoteCounts, NoteVector, Recording, Related, RenameProgress, ReviewFacts, SearchHit, Store,
    StoreError, StoreResult, TagCount, TagRename, TagRenamed, Verdict, BACKLOG_WALK, COMPACT_STEP,
    INDEX_BATCH, INDEX_SLICE, RECOVER_HINT, RENAME_SLICE_NOTES,
};
