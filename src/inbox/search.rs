//! The hybrid search (docs/DESIGN.md, "Hybrid search"): the keyword search and the
//! notes by meaning at once, merged; and a note's related notes (docs/DESIGN.md,
//! "Related notes"). Retrieval owns how (`crate::search::retrieve`); the inbox is where
//! the routes ask for it.

use super::Inbox;
use crate::domain::ListFilter;
pub use crate::search::retrieve::HybridHits;
use crate::storage::{Related, SearchQuery, StoreResult};

impl Inbox {
    /// The notes that have every word of `query` or mean what it means, under
    /// `filter` (a search of the trash is by words only), best first.
    pub async fn search(&self, query: SearchQuery, filter: ListFilter) -> StoreResult<HybridHits> {
        self.retriever.hybrid(query, filter).await
    }

    /// The notes nearest in meaning to the note `note_id`, best first.
    pub async fn related(&self, note_id: String) -> StoreResult<Related> {
        self.retriever.related(note_id).await
    }
}
