//! A note as the API returns it, and a note's detail (`GET /api/notes/{id}`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::{timestamp, AiStatus, Note};

/// The counts the status route and the inbox banners show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoteCounts {
    pub pending: u64,
    pub failed: u64,
    pub expired: u64,
}

/// One piece of a snippet: text, and whether it is one of the words searched for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnippetPart {
    pub text: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub matched: bool,
}

/// One note found by a search, with the piece of its body that matched.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub note: Note,
    pub snippet: Vec<SnippetPart>,
}

/// A note as every answer and live event carries it: the stored note, and the facts
/// about its expiry at the time the answer was made, so the page does not compute them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteView {
    #[serde(flatten)]
    pub note: Note,
    /// Active, never kept, older than `expiry.days`.
    pub expired: bool,
    /// When it becomes expired (RFC 3339); `None` when kept or in the trash.
    pub expires_at: Option<String>,
}

impl NoteView {
    /// `note` as seen at `now`, with notes expiring after `expiry_days` (`None`: expiry
    /// is off).
    pub fn new(note: Note, expiry_days: Option<u32>, now: DateTime<Utc>) -> Self {
        NoteView {
            expired: note.is_expired(expiry_days, now),
            expires_at: note.expires_at(expiry_days).map(timestamp),
            note,
        }
    }
}

/// One search hit: the note, and a snippet of its body that marks the words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchHitView {
    #[serde(flatten)]
    pub note: NoteView,
    pub snippet: Vec<SnippetPart>,
}

impl SearchHitView {
    pub fn new(hit: SearchHit, expiry_days: Option<u32>, now: DateTime<Utc>) -> Self {
        SearchHitView {
            note: NoteView::new(hit.note, expiry_days, now),
            snippet: hit.snippet,
        }
    }
}

/// `GET /api/notes/{id}`: the note, its body rendered (`render.rs`), and where its AI
/// stands. The list and the live events carry the note alone; the page asks for this
/// when it opens one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteDetail {
    #[serde(flatten)]
    pub note: NoteView,
    pub body_html: String,
    pub ai: AiProgress,
}

/// A note's AI so far: the tries its current body has used (of `worker.max_attempts`)
/// and the calls that ran out of time while Ollama was up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AiProgress {
    pub attempts: u32,
    pub max_attempts: u32,
    pub slow_timeouts: u32,
    /// When a waiting note is next tried (absent when it is not waiting).
    pub next_run_at: Option<String>,
}

/// A note's job row, as far as its detail shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobProgress {
    pub attempts: u32,
    pub slow_timeouts: u32,
    pub next_run_at: String,
}

impl NoteDetail {
    /// The detail of `note`, whose job row (when it has one) is `job`.
    pub fn new(note: NoteView, job: Option<JobProgress>, max_attempts: u32) -> Self {
        let attempts = match (&job, note.note.ai_status) {
            (Some(job), _) => job.attempts,
            // A failed note used every try; its job row is gone.
            (None, AiStatus::Failed) => max_attempts,
            (None, _) => 0,
        };
        NoteDetail {
            body_html: crate::render::body_html(&note.note.body),
            ai: AiProgress {
                attempts,
                max_attempts,
                slow_timeouts: job.as_ref().map_or(0, |job| job.slow_timeouts),
                next_run_at: job.map(|job| job.next_run_at),
            },
            note,
        }
    }
}

/// `GET /api/notes/{id}/related`: the notes nearest to one (docs/DESIGN.md, "Related
/// notes"), best first, none below the similarity floor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedNotes {
    pub notes: Vec<RelatedNote>,
    /// False while the note has no vector yet (just captured or edited, the embedding
    /// model missing): no related notes can be said yet, which is not "none".
    pub embedded: bool,
}

/// One related note, with how similar it is (cosine, 0 to 1, three decimals).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelatedNote {
    #[serde(flatten)]
    pub note: NoteView,
    pub similarity: f32,
}

impl RelatedNote {
    pub fn new(note: NoteView, similarity: f32) -> Self {
        RelatedNote {
            note,
            similarity: (similarity * 1000.0).round() / 1000.0,
        }
    }
}
