//! The hybrid search (docs/DESIGN.md, "Hybrid search"): the keyword search and the
//! notes by meaning at the same time, under the same filter, the two rankings merged
//! (`search::fusion::fuse`). Without the meaning (the worker or the repository says
//! why) the keyword search's hits are the answer, with the reason for the quiet line.
//! So a search costs the keyword search, or the longer of it and the query's embedding
//! plus the semantic read: never more than the keyword search's budget by more than
//! the embedding call.

use std::collections::HashMap;

use futures_util::future::join;

use super::retriever::{unavailable, Retriever};
use crate::actors::repository::SearchNotes;
use crate::api::search::{FoundBy, KeywordOnly};
use crate::domain::ListFilter;
use crate::search::fusion::fuse;
use crate::search::hits::meaning_snippet;
use crate::storage::{SearchHit, SearchQuery, StoreResult};

/// A hybrid search's hits, best first, each with what found it; `keyword_only` says why
/// the meaning was not used, when it was not.
#[derive(Debug, Clone)]
pub struct HybridHits {
    pub hits: Vec<(SearchHit, FoundBy)>,
    pub keyword_only: Option<KeywordOnly>,
}

impl Retriever {
    /// The notes that have every word of `query` or mean what it means, under
    /// `filter` (a search of the trash is by words only), best first.
    pub async fn hybrid(&self, query: SearchQuery, filter: ListFilter) -> StoreResult<HybridHits> {
        let now = self.clock.now();
        let limit = filter.effective_limit() as usize;
        let text = query.words.join(" ");
        let keyword = self.repository.send(SearchNotes {
            query,
            filter: filter.clone(),
            now,
        });
        let meaning = self.by_meaning(text, filter, limit, now);
        let (keyword, meaning) = join(keyword, meaning).await;
        let keyword = keyword.map_err(unavailable)??;
        let nearest = match meaning {
            Ok(nearest) => nearest,
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
        let by_words: Vec<String> = keyword.iter().map(|hit| hit.note.id.clone()).collect();
        let by_meaning: Vec<String> = nearest.iter().map(|note| note.id.clone()).collect();
        let mut keyword: HashMap<String, SearchHit> = keyword
            .into_iter()
            .map(|hit| (hit.note.id.clone(), hit))
            .collect();
        let mut nearest: HashMap<String, SearchHit> = nearest
            .into_iter()
            .map(|note| {
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
