//! A question's notes (docs/DESIGN.md, "Ask your notes"): the hybrid search's two
//! halves as a question needs them. By words: each word worth a search searched alone
//! among the active notes, all in one read of the repository (`SearchEachWord`), the
//! hits ranked together (`search::fusion::fuse_counted`). By meaning: the question
//! embedded once and the notes nearest to it ([`Retriever::by_meaning`]). The two
//! merged by the same fusion as a search's; without the meaning, the words alone.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use futures_util::future::join;

use super::retriever::{unavailable, Retriever};
use crate::actors::repository::SearchEachWord;
use crate::ai::ask::ASK_NOTES;
use crate::api::ask::Question;
use crate::domain::{ListFilter, Note, NoteKind};
use crate::search::fusion::{fuse, fuse_counted};
use crate::search::question::{retrieval_words, HITS_PER_WORD, WORDS_SEARCHED};
use crate::storage::{SearchQuery, StoreResult};

impl Retriever {
    /// The notes that match `question`, best first, at most [`ASK_NOTES`]: its words
    /// and its meaning, each ranked, merged. Answers saved as notes are left out of both
    /// rankings before they are merged (so the notes kept are the best of the rest),
    /// unless `include_answers`.
    pub async fn for_question(
        &self,
        question: &Question,
        include_answers: bool,
    ) -> StoreResult<Vec<Note>> {
        let now = self.clock.now();
        let filter = ListFilter {
            limit: Some(HITS_PER_WORD),
            ..ListFilter::default()
        };
        let by_meaning = self.by_meaning(
            question.as_str().to_string(),
            filter.clone(),
            HITS_PER_WORD as usize,
            now,
        );
        let (by_words, by_meaning) =
            join(self.with_the_words(question, filter, now), by_meaning).await;
        let (mut words_ranked, mut notes) = by_words?;
        // Without the meaning (it said why), the words alone.
        let mut by_meaning = by_meaning.unwrap_or_default();
        if !include_answers {
            by_meaning.retain(|note| note.kind != NoteKind::Answer);
            words_ranked.retain(|id| {
                notes
                    .get(id)
                    .is_some_and(|note| note.kind != NoteKind::Answer)
            });
        }
        let meaning_ranked: Vec<String> = by_meaning.iter().map(|note| note.id.clone()).collect();
        for note in by_meaning {
            notes.entry(note.id.clone()).or_insert(note);
        }
        Ok(fuse(&words_ranked, &meaning_ranked, ASK_NOTES)
            .into_iter()
            .filter_map(|(id, _)| notes.remove(&id))
            .collect())
    }

    /// Each word of `question` worth a search searched under `filter`, in one read, the
    /// hits ranked together: their ids best first, and the notes by id.
    async fn with_the_words(
        &self,
        question: &Question,
        filter: ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<(Vec<String>, HashMap<String, Note>)> {
        // A word the search refuses (it cannot be: it has no control character and is
        // not empty) is skipped rather than failing the question.
        let queries: Vec<SearchQuery> = retrieval_words(question.as_str())
            .into_iter()
            .take(WORDS_SEARCHED)
            .filter_map(|word| SearchQuery::parse(&word).ok())
            .collect();
        if queries.is_empty() {
            return Ok((Vec::new(), HashMap::new()));
        }
        let found = self
            .repository
            .send(SearchEachWord {
                queries,
                filter,
                now,
            })
            .await
            .map_err(unavailable)??;
        let ranked: Vec<Vec<String>> = found
            .iter()
            .map(|hits| hits.iter().map(|hit| hit.note.id.clone()).collect())
            .collect();
        let notes = found
            .into_iter()
            .flatten()
            .map(|hit| (hit.note.id.clone(), hit.note))
            .collect();
        Ok((fuse_counted(&ranked, HITS_PER_WORD as usize), notes))
    }
}
