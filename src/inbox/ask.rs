//! Ask your notes (docs/DESIGN.md, "Ask your notes"): retrieval first, the notes that
//! match the question found at once; then the question goes to the worker, which
//! streams the model's answer down a channel when its turn comes (a person's question
//! goes before the background work). Nothing is stored: not the question, not the
//! answer (saving the answer is the person's own capture).
//!
//! The search for a question goes through one function, [`Inbox::notes_for_question`]:
//! the hybrid search's two halves, as a question needs them. By words: the full-text
//! search a word at a time (a question's words rarely all stand in one note), ranked
//! together (`crate::ai::ask::rank_found`). By meaning: the question embedded once
//! (`EmbedQuery`, as a search's words are) and the notes nearest to it. The two merged
//! by reciprocal-rank fusion (`crate::storage::hybrid::fuse`); without the meaning
//! (no model, the server down, a call too slow) the words alone.

use std::collections::HashMap;

use futures_util::future::join;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::{unavailable, Inbox};
use crate::actors::ai_worker::{Ask, EmbedQuery};
use crate::actors::repository::{SearchByMeaning, SearchNotes};
use crate::ai::ask::{rank_found, retrieval_words, AskUpdate, ASK_NOTES};
use crate::api::ask::Question;
use crate::domain::{ListFilter, Note};
use crate::storage::hybrid::{fuse, SEARCH_FLOOR};
use crate::storage::{SearchQuery, StoreResult};

/// A question's words searched, at most: a question, not a document.
const WORDS_SEARCHED: usize = 8;

/// How many hits of each word are ranked together.
const HITS_PER_WORD: u32 = 20;

/// A question as the use case answers it: the notes at once, and the channel the
/// answer comes down (`None`: no note matched, nothing to ask the model).
pub struct Asked {
    pub notes: Vec<Note>,
    pub updates: Option<UnboundedReceiver<AskUpdate>>,
}

impl Inbox {
    /// The notes that match `question`, best first, at most [`ASK_NOTES`]: its words
    /// and its meaning, each ranked, merged.
    pub async fn notes_for_question(&self, question: &Question) -> StoreResult<Vec<Note>> {
        let (by_words, by_meaning) = join(
            self.notes_with_the_words(question),
            self.notes_near_in_meaning(question),
        )
        .await;
        let (words_ranked, mut notes) = by_words?;
        let meaning_ranked: Vec<String> = by_meaning.iter().map(|note| note.id.clone()).collect();
        for note in by_meaning {
            notes.entry(note.id.clone()).or_insert(note);
        }
        Ok(fuse(&words_ranked, &meaning_ranked, ASK_NOTES)
            .into_iter()
            .filter_map(|(id, _)| notes.remove(&id))
            .collect())
    }

    /// Each word of `question` worth a search searched among the active notes, the
    /// hits ranked together: their ids best first, and the notes by id.
    async fn notes_with_the_words(
        &self,
        question: &Question,
    ) -> StoreResult<(Vec<String>, HashMap<String, Note>)> {
        let now = self.clock.now();
        let mut found: Vec<Vec<String>> = Vec::new();
        let mut notes: HashMap<String, Note> = HashMap::new();
        for word in retrieval_words(question.as_str())
            .into_iter()
            .take(WORDS_SEARCHED)
        {
            // A word the search refuses (it cannot be: it has no control character
            // and is not empty) is skipped rather than failing the question.
            let Ok(query) = SearchQuery::parse(&word) else {
                continue;
            };
            let filter = ListFilter {
                limit: Some(HITS_PER_WORD),
                ..ListFilter::default()
            };
            let hits = self
                .repository
                .send(SearchNotes { query, filter, now })
                .await
                .map_err(unavailable)??;
            found.push(hits.iter().map(|hit| hit.note.id.clone()).collect());
            notes.extend(hits.into_iter().map(|hit| (hit.note.id.clone(), hit.note)));
        }
        Ok((rank_found(&found, HITS_PER_WORD as usize), notes))
    }

    /// The active notes nearest to the question's meaning, best first; none when its
    /// vector cannot be had (the reason is the search's quiet line, logged here: the
    /// question is answered from its words).
    async fn notes_near_in_meaning(&self, question: &Question) -> Vec<Note> {
        let text = question.as_str().to_string();
        let vector = match self.worker.send(EmbedQuery { text }).await {
            Ok(Ok(vector)) => vector,
            Ok(Err(why)) => {
                tracing::debug!(line = %why.line(), "a question found by its words only");
                return Vec::new();
            }
            Err(e) => {
                tracing::warn!(error = %e, "the AI worker did not answer; a question found by its words only");
                return Vec::new();
            }
        };
        let nearest = self
            .repository
            .send(SearchByMeaning {
                model: vector.model,
                vector: vector.vector.to_vec(),
                filter: ListFilter {
                    limit: Some(HITS_PER_WORD),
                    ..ListFilter::default()
                },
                now: self.clock.now(),
                k: HITS_PER_WORD as usize,
                floor: SEARCH_FLOOR,
            })
            .await;
        match nearest {
            Ok(Ok(nearest)) => nearest.into_iter().map(|(note, _)| note).collect(),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot read the notes nearest to a question; found by its words only");
                Vec::new()
            }
            Err(e) => {
                tracing::warn!(error = %e, "the repository did not answer; a question found by its words only");
                Vec::new()
            }
        }
    }

    /// Asks `question` of the notes: the notes that match, and the answer's channel.
    /// `asker` (a page's session) is replaced by its own next question.
    pub async fn ask(&self, question: Question, asker: Option<String>) -> StoreResult<Asked> {
        let notes = self.notes_for_question(&question).await?;
        if notes.is_empty() {
            return Ok(Asked {
                notes,
                updates: None,
            });
        }
        let (updates, receiver) = unbounded_channel();
        self.worker.do_send(Ask {
            asker,
            question: question.as_str().to_string(),
            notes: notes.clone(),
            updates,
        });
        Ok(Asked {
            notes,
            updates: Some(receiver),
        })
    }
}
