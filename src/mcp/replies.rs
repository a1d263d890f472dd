//! What each MCP tool answers a model with, made from the service's answers: plain
//! data and plain functions, so what a model reads is tested without a service.
//!
//! Each answer is one JSON object (the tool result's text), named fields a model can
//! read and quote back (a note's `id` for get_note and related_notes). A note's
//! machinery (its AI's attempts, its expiry) is left out; what a person wrote, what the
//! model added and when are kept.
//!
//! A failed call becomes a tool error (`isError`) whose text is one plain sentence with
//! the fix: the model relays it to the person, who can act on it.

use serde::Serialize;

use crate::api::ask::{AskEvent, MAX_ANSWER_BYTES};
use crate::api::notes::{NoteView, RelatedNotes};
use crate::api::replies::TagCount;
use crate::api::search::{FoundBy, HybridHitView, SearchAnswer};
use crate::client::ClientError;
use crate::domain::Note;

/// What a tool says when the service is not running: how a person starts it.
pub const NOT_RUNNING: &str = "inkling is not running, so the notes cannot be reached. \
Ask the person to start it: run `inkling` (from a source checkout, `cargo run --release`), \
or `inkling autostart on` to start it at every login; then try again.";

/// `search_notes`: the notes found, best first.
#[derive(Debug, Serialize)]
pub struct FoundNotes {
    pub notes: Vec<FoundNote>,
    /// Said when nothing matched, with what to try instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
    /// Said when the search could use the words only (the model server down, its
    /// embedding model missing, …): one plain line why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by_words_only: Option<String>,
}

/// One note a search found: enough to choose which to read with get_note.
#[derive(Debug, Serialize)]
pub struct FoundNote {
    pub id: String,
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub created_at: String,
    /// The piece of the note's text that matched (for a note found by its meaning, or
    /// given for a question, the start of its text).
    pub snippet: String,
    /// What found it: its `words`, its `meaning`, or `both`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_by: Option<FoundBy>,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl FoundNotes {
    /// The hybrid search's answer (`GET /api/search`) as a model reads it.
    pub fn from_answer(answer: SearchAnswer) -> Self {
        let hint = answer.hits.is_empty().then_some(
            "no note has these words or is near them in meaning; try fewer or other words, \
or list_tags",
        );
        FoundNotes {
            notes: answer.hits.into_iter().map(FoundNote::from_hit).collect(),
            hint,
            by_words_only: answer.keyword_only.map(|why| why.line),
        }
    }
}

/// How much of a note's text is given for a note found by a question (a model reads
/// the rest with get_note).
const NOTE_START_CHARS: usize = 200;

impl FoundNote {
    fn from_hit(hit: HybridHitView) -> Self {
        let note = hit.hit.note.note;
        FoundNote {
            saved_answer: !note.kind.is_note(),
            snippet: hit.hit.snippet.into_iter().map(|part| part.text).collect(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            created_at: note.created_at,
            found_by: Some(hit.found_by),
        }
    }

    fn from_note(view: NoteView) -> Self {
        let note = view.note;
        FoundNote {
            saved_answer: !note.kind.is_note(),
            snippet: note.body.chars().take(NOTE_START_CHARS).collect(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            created_at: note.created_at,
            found_by: None,
        }
    }
}

/// `get_note` and `capture_note`: one note, whole.
#[derive(Debug, Serialize)]
pub struct NoteReply {
    pub id: String,
    /// The title the model gave it, or the person's; none yet while it is pending.
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// The note's text as the person wrote it.
    pub text: String,
    pub created_at: String,
    /// When a person last edited it; absent: never.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// `pending` (the local model has not read it yet), `done` or `failed`.
    pub ai_status: String,
    /// The note is in the trash (the person deleted it; it can still be restored).
    pub in_trash: bool,
    /// When the person is to be reminded of it (RFC 3339, UTC); absent: no reminder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind_at: Option<String>,
    /// The reminder's state: `open`, `done` or `snoozed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remind_state: Option<&'static str>,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl NoteReply {
    pub fn from_note(note: Note) -> Self {
        NoteReply {
            saved_answer: !note.kind.is_note(),
            ai_status: note.ai_status.as_str().to_string(),
            in_trash: note.deleted_at.is_some(),
            id: note.id,
            title: note.title,
            tags: note.tags,
            summary: note.summary,
            text: note.body,
            created_at: note.created_at,
            edited_at: note.edited_at,
            remind_at: note.remind_at,
            remind_state: note.remind_state.map(|s| s.as_str()),
        }
    }
}

/// `list_reminders`: the reminders not done up to `until`, earliest first (the
/// overdue first), and yesterday's notes never opened (Today's other half).
#[derive(Debug, Serialize)]
pub struct RemindersReply {
    pub until: String,
    /// A reminder at or before this is due.
    pub now: String,
    pub reminders: Vec<NoteReply>,
    pub unopened: Vec<NoteReply>,
    /// More reminders are due up to `until` than `reminders` lists (the earliest).
    pub more: bool,
}

impl RemindersReply {
    pub fn from_answer(answer: crate::api::reminders::RemindersAnswer) -> Self {
        RemindersReply {
            until: answer.until,
            now: answer.now,
            reminders: answer
                .reminders
                .into_iter()
                .map(|view| NoteReply::from_note(view.note))
                .collect(),
            unopened: answer
                .unopened
                .into_iter()
                .map(|view| NoteReply::from_note(view.note))
                .collect(),
            more: answer.more,
        }
    }
}

/// `related_notes`: the notes nearest in meaning, best first.
#[derive(Debug, Serialize)]
pub struct RelatedReply {
    pub notes: Vec<RelatedReplyNote>,
    /// Said when the note has no vector yet, so "none" is not read as "none related".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct RelatedReplyNote {
    pub id: String,
    pub title: Option<String>,
    pub tags: Vec<String>,
    pub summary: Option<String>,
    /// How alike in meaning, 0 to 1.
    pub similarity: f32,
    /// `true`: an answer saved from an earlier question (ask_notes), not the person's own
    /// note: not evidence of what they wrote. Absent: their note.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub saved_answer: bool,
}

impl RelatedReply {
    pub fn from_related(related: RelatedNotes) -> Self {
        let hint = if !related.embedded {
            Some("this note's meaning is not known yet (it is new or was just edited, or no embedding model is set up), so no related notes can be said; try search_notes")
        } else if related.notes.is_empty() {
            Some("no other note is close in meaning")
        } else {
            None
        };
        RelatedReply {
            notes: related
                .notes
                .into_iter()
                .map(|related| RelatedReplyNote {
                    saved_answer: !related.note.note.kind.is_note(),
                    similarity: related.similarity,
                    id: related.note.note.id,
                    title: related.note.note.title,
                    tags: related.note.note.tags,
                    summary: related.note.note.summary,
                })
                .collect(),
            hint,
        }
    }
}

/// `list_tags`: every tag in use, most used first.
#[derive(Debug, Serialize)]
pub struct TagsReply {
    pub tags: Vec<TagCount>,
}

/// `ask_notes`: the notes that answer a question, and the answer when there is one.
#[derive(Debug, Default, Serialize)]
pub struct AskReply {
    /// The local model's answer, citing the notes as [1], [2] in the order of `notes`;
    /// absent when no answer was made (`why` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// Why there is no (whole) answer, in one plain line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// Citations the model made of no note given, taken out of `answer`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed_citations: Vec<String>,
    /// The notes found for the question, [1] first.
    pub notes: Vec<FoundNote>,
}

impl AskReply {
    /// The answer's stream (`POST /api/ask`), gathered: the notes, the answer's pieces
    /// joined, the citations taken out, and why it ended without a whole answer (the
    /// tests' shorthand for [`AskGathering`]).
    #[cfg(test)]
    pub fn from_events(events: impl IntoIterator<Item = AskEvent>) -> Self {
        let mut gathering = AskGathering::default();
        for event in events {
            if !gathering.take(event) {
                break;
            }
        }
        gathering.finish()
    }
}

/// An answer's stream gathered as it comes, its text held to
/// [`crate::api::ask::MAX_ANSWER_BYTES`] (the service's own cut) whatever comes.
#[derive(Debug, Default)]
pub struct AskGathering {
    reply: AskReply,
    answer: String,
    /// The answer passed its limit: nothing more is taken.
    cut: bool,
}

impl AskGathering {
    /// Takes the next event; `false` once the answer has passed its limit (the caller
    /// stops reading, which hangs up).
    pub fn take(&mut self, event: AskEvent) -> bool {
        if self.cut {
            return false;
        }
        match event {
            AskEvent::Notes { notes } => {
                self.reply.notes = notes.into_iter().map(FoundNote::from_note).collect();
            }
            AskEvent::Answer { text } => {
                let room = MAX_ANSWER_BYTES - self.answer.len();
                if text.len() > room {
                    let mut end = room;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    self.answer.push_str(&text[..end]);
                    self.cut = true;
                    self.reply.why = Some(format!(
                        "the answer ran past {MAX_ANSWER_BYTES} bytes and was cut"
                    ));
                    return false;
                }
                self.answer.push_str(&text);
            }
            AskEvent::Removed { citation } => {
                if !self.reply.removed_citations.contains(&citation) {
                    self.reply.removed_citations.push(citation);
                }
            }
            AskEvent::Done { answered, why, .. } => {
                if !answered {
                    self.reply.why = Some(
                        why.unwrap_or_else(|| "the answer stopped before its end".to_string()),
                    );
                }
            }
        }
        true
    }

    /// The reply, with what came.
    pub fn finish(self) -> AskReply {
        let mut reply = self.reply;
        let answer = self.answer.trim();
        reply.answer = (!answer.is_empty()).then(|| answer.to_string());
        reply
    }
}

/// A failed call, as the plain sentence a model relays to the person.
pub fn tool_error_text(error: &ClientError) -> String {
    match error {
        ClientError::NotRunning(_) => NOT_RUNNING.to_string(),
        // The service's own words ("the service refused (404 Not Found): no note …").
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
