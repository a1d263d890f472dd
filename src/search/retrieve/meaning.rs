//! Notes by meaning: the one way the search, a question and anything else find the
//! notes that mean what a text means. The text's vector comes from the worker
//! (`EmbedQuery`: at once, beside the background work, or with why not), then the
//! repository's nearest notes to it that pass the filter (`SearchByMeaning`, the filter
//! applied inside the vector index's scan), none below `floors::search_floor` of the model. A note's
//! related notes are the same look-up from the note's own vector (`GetRelated`), held
//! to `floors::related_floor` of the model.

use chrono::{DateTime, Utc};

use super::retriever::unavailable;
use super::retriever::Retriever;
use crate::actors::ai_worker::EmbedQuery;
use crate::actors::repository::{GetRelated, SearchByMeaning};
use crate::api::search::KeywordOnly;
use crate::domain::{ListFilter, Note};
use crate::search::floors::{related_floor, search_floor};
use crate::storage::vectors::RELATED_NOTES;
use crate::storage::{Related, StoreResult};

impl Retriever {
    /// The `k` notes under `filter` nearest to `text`'s meaning, best first; or why the
    /// meaning cannot be used (no model, the server down, the notes still being
    /// embedded, a call too slow, a search of the trash, a read that failed): the caller
    /// goes on with the words alone.
    pub async fn by_meaning(
        &self,
        text: String,
        filter: ListFilter,
        k: usize,
        now: DateTime<Utc>,
    ) -> Result<Vec<Note>, KeywordOnly> {
        if filter.trash {
            return Err(KeywordOnly::Trash);
        }
        let vector = match self.worker.send(EmbedQuery { text }).await {
            Ok(Ok(vector)) => vector,
            Ok(Err(why)) => {
                tracing::debug!(line = %why.line(), "found by words only");
                return Err(why);
            }
            Err(e) => {
                tracing::warn!(error = %e, "the AI worker did not answer; found by words only");
                return Err(KeywordOnly::Failed);
            }
        };
        let nearest = self
            .repository
            .send(SearchByMeaning {
                floor: search_floor(&vector.model),
                model: vector.model,
                vector: vector.vector.to_vec(),
                filter,
                now,
                k,
            })
            .await;
        match nearest {
            Ok(Ok(nearest)) => Ok(nearest.into_iter().map(|(note, _)| note).collect()),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot read the notes nearest in meaning; found by words only");
                Err(KeywordOnly::Failed)
            }
            Err(e) => {
                tracing::warn!(error = %e, "the repository did not answer; found by words only");
                Err(KeywordOnly::Failed)
            }
        }
    }

    /// The notes nearest in meaning to the note `note_id` (its own vector), best first,
    /// at most [`RELATED_NOTES`], none below the model's [`related_floor`]; `embedded` is false
    /// while the note has no vector yet.
    pub async fn related(&self, note_id: String) -> StoreResult<Related> {
        self.repository
            .send(GetRelated {
                id: note_id,
                limit: RELATED_NOTES,
                floor: related_floor,
            })
            .await
            .map_err(unavailable)?
    }
}
