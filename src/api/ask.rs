//! `POST /api/ask`: the question it takes, and the events its answer streams, as
//! newline-delimited JSON (one [`AskEvent`] a line). The route writes them with
//! [`AskEvent::line`] and the client reads them back with [`AskEvent::from_line`]: one
//! definition on both sides.
//!
//! ```text
//! {"type":"notes","notes":[{…a note…}, …]}         at once: the notes that match, [1] first
//! {"type":"answer","text":"You planned to "}        the answer, a piece at a time
//! {"type":"answer","text":"water them [1]."}
//! {"type":"removed","citation":"[7]"}               a citation of no note shown, taken out
//! {"type":"done","answered":true}                   the end
//! {"type":"done","answered":false,"reason":"model_down","why":"…one plain line…"}
//! ```
//!
//! The question and the answer are not stored: saving the answer as a note is the
//! person's own capture (`POST /api/notes`).

use serde::{Deserialize, Serialize};

use super::notes::NoteView;

/// The longest question taken, in characters: a question, not a document (a pasted
/// article is a note to capture).
pub const MAX_QUESTION_CHARS: usize = 1000;

/// The longest answer, in bytes of its text: 128 bytes a token of the answer's room
/// (`crate::ai::ask::ASK_OUTPUT_TOKENS`), far beyond any answer written within it, so
/// only a server that ignores the limit (or writes for ever) is cut there. The service
/// cuts the answer at it (`too_long`); `inkling mcp`, which gathers the answer whole,
/// stops reading past it.
pub const MAX_ANSWER_BYTES: usize = 64 << 10;

/// `POST /api/ask` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    pub question: String,
    /// Answers saved as notes (`"kind": "answer"`) among the notes the answer is made
    /// from. Left out by default: a saved answer is the model's words about other notes,
    /// and would come back as its own source.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub include_answers: bool,
}

/// A question as taken: trimmed, not empty, within [`MAX_QUESTION_CHARS`], no control
/// characters but line breaks and tabs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question(String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuestionError {
    #[error("the question is empty: type what you want to know from your notes")]
    Empty,
    #[error(
        "the question is {0} characters long; the limit is {MAX_QUESTION_CHARS}: ask it \
         shorter (to keep a long text, capture it as a note)"
    )]
    TooLong(usize),
    #[error("the question contains a control character ({0}); type only the question")]
    ControlCharacter(String),
}

impl Question {
    pub fn parse(text: &str) -> Result<Question, QuestionError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(QuestionError::Empty);
        }
        let length = text.chars().count();
        if length > MAX_QUESTION_CHARS {
            return Err(QuestionError::TooLong(length));
        }
        if let Some(control) = text.chars().find(|c| c.is_control() && !c.is_whitespace()) {
            return Err(QuestionError::ControlCharacter(format!(
                "U+{:04X}",
                u32::from(control)
            )));
        }
        Ok(Question(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why an ask ended without a (complete) answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoAnswer {
    /// No note matches the question: nothing to answer from, and no model time spent.
    NoNotes,
    /// The model server is not running (or not answering).
    ModelDown,
    /// The model server runs without the model.
    ModelMissing,
    /// The model server is loading its model, or another user's program holds its port.
    ModelUnavailable,
    /// The call failed or stopped half-way (what was streamed stands).
    Failed,
    /// A newer question from the same page took its place.
    Replaced,
    /// The model only said the question back (or nothing), or its prompt: no answer
    /// (`crate::ai::ask::only_repeats`).
    Echoed,
    /// The answer ran past its length or its time and was cut (what came stands).
    TooLong,
}

/// One line of the answer's stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AskEvent {
    /// The notes that match, best first, at once: the answer cites them as [1], [2], …
    /// in this order.
    Notes { notes: Vec<NoteView> },
    /// The next piece of the answer's text (its citations of no note already taken out).
    Answer { text: String },
    /// The model cited a note that is not among those shown: the citation was taken
    /// out of the answer.
    Removed { citation: String },
    /// The end. `answered`: the model's answer came whole. Otherwise `reason` says why
    /// not, and `why` in one plain line for the person.
    Done {
        answered: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<NoAnswer>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        why: Option<String>,
    },
}

impl AskEvent {
    /// The event as one line of the stream: its JSON and a line feed.
    pub fn line(&self) -> String {
        // A derive of plain strings and numbers: serialising cannot fail.
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }

    /// One line of the stream read back (a blank line is `None`).
    pub fn from_line(line: &str) -> Option<Result<AskEvent, serde_json::Error>> {
        let line = line.trim();
        (!line.is_empty()).then(|| serde_json::from_str(line))
    }

    /// The end of an answer that came whole.
    pub fn answered() -> AskEvent {
        AskEvent::Done {
            answered: true,
            reason: None,
            why: None,
        }
    }

    /// The end without a (complete) answer, with the line saying why.
    pub fn unanswered(reason: NoAnswer, why: String) -> AskEvent {
        AskEvent::Done {
            answered: false,
            reason: Some(reason),
            why: Some(why),
        }
    }
}

#[cfg(test)]
mod tests;
