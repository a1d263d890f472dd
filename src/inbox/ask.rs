//! Ask your notes (docs/DESIGN.md, "Ask your notes"): retrieval first, the notes that
//! match the question found at once; then the question goes to the worker, which
//! streams the model's answer down a channel when its turn comes (a person's question
//! goes before the background work). Nothing is stored: not the question, not the
//! answer (saving the answer is the person's own capture).
//!
//! The search for a question goes through one function, [`Inbox::notes_for_question`]:
//! today the notes' full-text search, a word at a time (a question's words rarely all
//! stand in one note), ranked together (`crate::ai::ask::rank_found`).

use std::collections::HashMap;

use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::{unavailable, Inbox};
use crate::actors::ai_worker::Ask;
use crate::actors::repository::SearchNotes;
use crate::ai::ask::{rank_found, retrieval_words, AskUpdate, ASK_NOTES};
use crate::api::ask::Question;
use crate::domain::{ListFilter, Note};
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
    /// The notes that match `question`, best first, at most [`ASK_NOTES`]: each word
    /// worth a search searched among the active notes, the hits ranked together.
    pub async fn notes_for_question(&self, question: &Question) -> StoreResult<Vec<Note>> {
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
        Ok(rank_found(&found, ASK_NOTES)
            .into_iter()
            .filter_map(|id| notes.remove(&id))
            .collect())
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
