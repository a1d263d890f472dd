//! Ask your notes (docs/DESIGN.md, "Ask your notes"): retrieval first, the notes that
//! match the question found at once; then the question goes to the worker, which
//! streams the model's answer down a channel when its turn comes (a person's question
//! goes before the background work). Nothing is stored: not the question, not the
//! answer (saving the answer is the person's own capture).
//!
//! The search for a question goes through one function, [`Inbox::notes_for_question`]:
//! retrieval's (`crate::search::retrieve`), the hybrid search's two halves as a
//! question needs them: its words each searched alone in one read, ranked together,
//! and its meaning; the two merged by the one reciprocal-rank fusion.

use tokio::sync::mpsc::Receiver;

use super::Inbox;
use crate::actors::ai_worker::ask::ask_channel;
use crate::actors::ai_worker::Ask;
use crate::ai::ask::AskUpdate;
use crate::api::ask::Question;
use crate::domain::Note;
use crate::storage::StoreResult;

/// A question as the use case answers it: the notes at once, and the channel the
/// answer comes down (`None`: no note matched, nothing to ask the model). The channel
/// is bounded: the model is read only as fast as its receiver is.
pub struct Asked {
    pub notes: Vec<Note>,
    pub updates: Option<Receiver<AskUpdate>>,
}

impl Inbox {
    /// The notes that match `question`, best first, at most [`crate::ai::ask::ASK_NOTES`]: its words
    /// and its meaning, each ranked, merged (`crate::search::retrieve`). Answers saved
    /// as notes only with `include_answers`.
    pub async fn notes_for_question(
        &self,
        question: &Question,
        include_answers: bool,
    ) -> StoreResult<Vec<Note>> {
        self.retriever.for_question(question, include_answers).await
    }

    /// Asks `question` of the notes: the notes that match, and the answer's channel.
    /// `asker` (a page's session) is replaced by its own next question. A saved answer
    /// is among the notes only with `include_answers` (it would otherwise come back as
    /// the source of the question it answered).
    pub async fn ask(
        &self,
        question: Question,
        asker: Option<String>,
        include_answers: bool,
    ) -> StoreResult<Asked> {
        let notes = self.notes_for_question(&question, include_answers).await?;
        if notes.is_empty() {
            return Ok(Asked {
                notes,
                updates: None,
            });
        }
        let (updates, receiver) = ask_channel();
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
