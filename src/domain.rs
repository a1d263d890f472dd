//! The domain's nouns: a note, its AI status, a validated note body, list filters and
//! the enrichment the AI adds. Plain data, no I/O.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// Where a note stands with the AI (docs/DESIGN.md, "Data").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AiStatus {
    /// Waiting for enrichment; has exactly one `pending_jobs` row.
    Pending,
    /// Enriched: title, tags and summary are set.
    Done,
    /// Gave up after `worker.max_attempts` schema/other failures; `retry-failed` re-queues it.
    Failed,
}

impl AiStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            AiStatus::Pending => "pending",
            AiStatus::Done => "done",
            AiStatus::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(AiStatus::Pending),
            "done" => Some(AiStatus::Done),
            "failed" => Some(AiStatus::Failed),
            _ => None,
        }
    }
}

/// What a note is: a person's own note, or an answer saved from Ask (migration 0011).
/// An answer is left out of a question's notes unless the question asks for them: it
/// is the model's words about other notes, and would come back as its own source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoteKind {
    #[default]
    Note,
    Answer,
}

impl NoteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NoteKind::Note => "note",
            NoteKind::Answer => "answer",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "note" => Some(NoteKind::Note),
            "answer" => Some(NoteKind::Answer),
            _ => None,
        }
    }

    /// Serde's test for leaving the field out: a note says nothing of its kind.
    pub fn is_note(&self) -> bool {
        *self == NoteKind::Note
    }
}

/// A stored note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    pub id: String,
    pub body: String,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    pub ai_status: AiStatus,
    pub ai_error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub deleted_at: Option<String>,
    pub kept_at: Option<String>,
    /// The title is the user's (set by an edit): the AI never replaces it.
    #[serde(default)]
    pub title_set_by_user: bool,
    /// The tags are the user's (set by an edit): the AI never replaces them.
    #[serde(default)]
    pub tags_set_by_user: bool,
    /// The note was longer than the model's context: its AI fields come from its first
    /// this many characters. Absent: from the whole note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_read_chars: Option<u32>,
    /// When a person last edited the note (its body, title or tags; a tick is an edit).
    /// `updated_at` moves on any write, the AI's answer too; this only on an edit.
    /// Absent: never edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// When to remind the person of it (RFC 3339, UTC; docs/DESIGN.md, "Reminders").
    /// Absent: no reminder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_at: Option<String>,
    /// Where its reminder stands; present exactly when `remind_at` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_state: Option<crate::reminders::ReminderState>,
    /// An answer saved from Ask, or (absent) a note.
    #[serde(default, skip_serializing_if = "NoteKind::is_note")]
    pub kind: NoteKind,
    /// When it was imported into this inkling (RFC 3339, UTC); absent: written here.
    /// Its expiry counts from then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported_at: Option<String>,
    /// A reminder the AI read in the note's words (RFC 3339, UTC), for the person to
    /// accept or dismiss; never the reminder itself (`crate::reminders::suggestion`).
    /// Absent: none to offer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_suggested_at: Option<String>,
    /// The person dismissed a suggestion: this note is offered none again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub remind_suggestion_dismissed: bool,
    /// When a person last opened the note (the page's note view). Absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opened_at: Option<String>,
}

impl Note {
    /// When this note becomes expired: `expiry_days` after it came into this inkling
    /// (written here, or imported: an old note imported today does not expire today),
    /// unless it is kept or in the trash (then never), or expiry is off (`None` days).
    /// The same rule as the store's expired filter and count.
    pub fn expires_at(&self, expiry_days: Option<u32>) -> Option<DateTime<Utc>> {
        let days = expiry_days?;
        if self.kept_at.is_some() || self.deleted_at.is_some() {
            return None;
        }
        let arrived = self.imported_at.as_deref().unwrap_or(&self.created_at);
        let arrived = DateTime::parse_from_rfc3339(arrived).ok()?;
        arrived
            .with_timezone(&Utc)
            .checked_add_signed(chrono::Duration::days(i64::from(days)))
    }

    /// Whether this note is expired at `now`.
    pub fn is_expired(&self, expiry_days: Option<u32>, now: DateTime<Utc>) -> bool {
        self.expires_at(expiry_days).is_some_and(|at| at < now)
    }
}

/// Why a note body was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoteBodyError {
    #[error("the note body is empty")]
    Empty,
    #[error("the note body is {size} bytes; the limit is {limit}")]
    TooLarge { size: usize, limit: usize },
}

/// A note body that passed validation: not blank, within the size limit. Stored as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteBody(String);

/// A character with no visible glyph that `char::is_whitespace` does not cover.
fn draws_nothing(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' | '\u{180E}'
    )
}

impl NoteBody {
    pub fn parse(body: String, limit: usize) -> Result<Self, NoteBodyError> {
        if Self::is_blank(&body) {
            return Err(NoteBodyError::Empty);
        }
        if body.len() > limit {
            return Err(NoteBodyError::TooLarge {
                size: body.len(),
                limit,
            });
        }
        Ok(NoteBody(body))
    }

    /// Nothing a person can see: white space, or characters that draw nothing
    /// (zero-width spaces and joiners, the byte-order mark, soft hyphens). The CLI asks
    /// too, to say where the empty note came from.
    pub fn is_blank(body: &str) -> bool {
        body.chars().all(|c| c.is_whitespace() || draws_nothing(c))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The longest title a user may set, in characters.
pub const MAX_USER_TITLE_CHARS: usize = 200;

/// Why an edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("nothing to change: give at least one of body, title, tags")]
    Nothing,
    #[error(transparent)]
    Body(#[from] NoteBodyError),
    #[error("the title is empty")]
    EmptyTitle,
    #[error("the title is longer than {MAX_USER_TITLE_CHARS} characters")]
    TitleTooLong,
    #[error("a title is one line: no line breaks or control characters")]
    TitleNotOneLine,
    #[error(transparent)]
    Tag(#[from] crate::tags::TagError),
    #[error("{0} tags; at most {max}", max = crate::tags::MAX_TAGS_SET_BY_USER)]
    TooManyTags(usize),
}

/// A validated edit of a note: the fields to set, each checked as a capture checks a
/// body. A title or tags given here become the user's (`title_set_by_user`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoteEdit {
    pub body: Option<NoteBody>,
    pub title: Option<String>,
    /// Normalised ([`crate::tags::normalize`]), duplicates dropped; may be empty.
    pub tags: Option<Vec<String>>,
    /// The body the edit was made from, when it was computed from it (a ticked
    /// checklist item): the edit is refused if the note's body is no longer this, so a
    /// change made meanwhile elsewhere is never overwritten.
    pub made_from_body: Option<String>,
}

impl NoteEdit {
    pub fn parse(
        body: Option<String>,
        title: Option<String>,
        tags: Option<Vec<String>>,
        body_limit: usize,
    ) -> Result<Self, EditError> {
        if body.is_none() && title.is_none() && tags.is_none() {
            return Err(EditError::Nothing);
        }
        let body = body.map(|b| NoteBody::parse(b, body_limit)).transpose()?;
        let title = title.as_deref().map(parse_title).transpose()?;
        let tags = tags.as_deref().map(parse_tags).transpose()?;
        Ok(NoteEdit {
            body,
            title,
            tags,
            made_from_body: None,
        })
    }

    /// This edit, applied only while the note's body is still `body`.
    pub fn made_from(mut self, body: String) -> Self {
        self.made_from_body = Some(body);
        self
    }
}

/// A title a person gave: trimmed, one line, 1 to [`MAX_USER_TITLE_CHARS`] characters.
pub fn parse_title(title: &str) -> Result<String, EditError> {
    let title = title.trim();
    if title.is_empty() {
        Err(EditError::EmptyTitle)
    } else if title.chars().any(char::is_control) {
        Err(EditError::TitleNotOneLine)
    } else if title.chars().count() > MAX_USER_TITLE_CHARS {
        Err(EditError::TitleTooLong)
    } else {
        Ok(title.to_string())
    }
}

/// Tags a person gave: each normalised ([`crate::tags::normalize`]), duplicates
/// dropped, at most [`crate::tags::MAX_TAGS_SET_BY_USER`].
pub fn parse_tags(tags: &[String]) -> Result<Vec<String>, EditError> {
    let mut tidy: Vec<String> = Vec::new();
    for tag in tags {
        let tag = crate::tags::normalize(tag)?;
        if !tidy.contains(&tag) {
            tidy.push(tag);
        }
    }
    if tidy.len() > crate::tags::MAX_TAGS_SET_BY_USER {
        return Err(EditError::TooManyTags(tidy.len()));
    }
    Ok(tidy)
}

/// Which notes a list shows (status, tag, trash, expired; newest first; paged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    pub status: Option<AiStatus>,
    pub tag: Option<String>,
    /// `true`: the trash instead of the active notes.
    pub trash: bool,
    /// `true`: only expired notes (older than `expiry.days`, never kept).
    pub expired: bool,
    /// Page size; `None` means [`ListFilter::DEFAULT_LIMIT`].
    pub limit: Option<u32>,
    /// Keyset cursor: notes after (older than) the note with this id.
    pub before: Option<String>,
}

impl ListFilter {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 500;

    pub fn effective_limit(&self) -> u32 {
        self.limit
            .unwrap_or(Self::DEFAULT_LIMIT)
            .clamp(1, Self::MAX_LIMIT)
    }
}

/// What the AI adds to a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enrichment {
    pub title: String,
    pub tags: Vec<String>,
    pub summary: String,
    /// The note was cut to fit the model's context: the model read its first this many
    /// characters. `None`: the whole note.
    pub read_chars: Option<u32>,
    /// The words of the note that say when to be reminded ("tomorrow at 9"), as the
    /// model quoted them and the answer's guard found them in the note; the store
    /// resolves them against the note's capture time (`crate::reminders::suggestion`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_phrase: Option<String>,
}

/// The one timestamp format of the database and the API: RFC 3339, UTC, milliseconds,
/// `Z`. Fixed width, so text comparison in SQL orders timestamps correctly.
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Why a job is waiting (column `pending_jobs.wait_reason`, migration 0002).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// Parked because the provider was unreachable or timed out: runs as soon as the
    /// provider is seen healthy.
    Provider,
    /// Waiting out its own retry delay after a schema/other failure: keeps its time.
    Retry,
}

impl WaitReason {
    pub fn as_str(self) -> &'static str {
        match self {
            WaitReason::Provider => "provider",
            WaitReason::Retry => "retry",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "provider" => Some(WaitReason::Provider),
            "retry" => Some(WaitReason::Retry),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
