//! The hybrid search (docs/DESIGN.md, "Hybrid search"): the keyword search and the
//! query's embedding at the same time, then the notes nearest to the query's vector
//! under the same filters, the two rankings merged (`storage/hybrid.rs`). Without the
//! query's vector (the worker says why: no model, the server down, the notes still
//! being embedded, a call too slow) the keyword search's hits are the answer, with the
//! reason for the quiet line. So a search costs the keyword search, or the longer of
//! it and the query's embedding plus the semantic read: never more than the keyword
//! search's budget by more than the embedding call.

use std::collections::HashMap;

use futures_util::future::join;

use super::{unavailable, Inbox};
use crate::actors::ai_worker::EmbedQuery;
use crate::actors::repository::{SearchByMeaning, SearchNotes};
use crate::api::search::{FoundBy, KeywordOnly};
use crate::domain::ListFilter;
use crate::storage::hybrid::{fuse, meaning_snippet, SEARCH_FLOOR};
use crate::storage::{SearchHit, SearchQuery, StoreResult};

/// A hybrid search's hits, best first, each with what found it; `keyword_only` says why
/// the meaning was not used, when it was not.
#[derive(Debug, Clone)]
pub struct HybridHits {
    pub hits: Vec<(SearchHit, FoundBy)>,
    pub keyword_only: Option<KeywordOnly>,
}

impl Inbox {
    /// The notes that have every word of `query` or mean what it means, under
    /// `filter` (a search of the trash is by words only), best first.
    pub async fn search(&self, query: SearchQuery, filter: ListFilter) -> StoreResult<HybridHits> {
        let now = self.clock.now();
        let limit = filter.effective_limit() as usize;
        let text = query.words.join(" ");
        let trash = filter.trash;
        let keyword = self.repository.send(SearchNotes {
            query,
            filter: filter.clone(),
            now,
        });
        let vector = async {
            if trash {
                return Err(KeywordOnly::Trash);
            }
            match self.worker.send(EmbedQuery { text }).await {
                Ok(answer) => answer,
                Err(e) => {
                    tracing::warn!(error = %e, "the AI worker did not answer; searching by words only");
                    Err(KeywordOnly::Failed)
                }
            }
        };
        let (keyword, vector) = join(keyword, vector).await;
        let keyword = keyword.map_err(unavailable)??;
        let vector = match vector {
            Ok(vector) => vector,
            Err(why) => {
                return Ok(HybridHits {
                    hits: keyword
                        .into_iter()
                        .map(|hit| (hit, FoundBy::Words))
                        .collect(),
                    keyword_only: Some(why),
                })
            }
        };
        let nearest = self
            .repository
            .send(SearchByMeaning {
                model: vector.model,
                vector: vector.vector.to_vec(),
                filter,
                now,
                k: limit,
                floor: SEARCH_FLOOR,
            })
            .await
            .map_err(unavailable)?;
        let nearest = match nearest {
            Ok(nearest) => nearest,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the notes nearest to the search; searching by words only");
                return Ok(HybridHits {
                    hits: keyword
                        .into_iter()
                        .map(|hit| (hit, FoundBy::Words))
                        .collect(),
                    keyword_only: Some(KeywordOnly::Failed),
                });
            }
        };
        let by_words: Vec<String> = keyword.iter().map(|hit| hit.note.id.clone()).collect();
        let by_meaning: Vec<String> = nearest.iter().map(|(note, _)| note.id.clone()).collect();
        let mut keyword: HashMap<String, SearchHit> = keyword
            .into_iter()
            .map(|hit| (hit.note.id.clone(), hit))
            .collect();
        let mut nearest: HashMap<String, SearchHit> = nearest
            .into_iter()
            .map(|(note, _)| {
                let hit = SearchHit {
                    snippet: meaning_snippet(&note.body),
                    note,
                };
                (hit.note.id.clone(), hit)
            })
            .collect();
        let hits = fuse(&by_words, &by_meaning, limit)
            .into_iter()
            .filter_map(|(id, found_by)| {
                // A hit its words found keeps their snippet.
                let hit = keyword.remove(&id).or_else(|| nearest.remove(&id))?;
                Some((hit, found_by))
            })
            .collect();
        Ok(HybridHits {
            hits,
            keyword_only: None,
        })
    }
}
