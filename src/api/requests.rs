//! What the routes take: request bodies and query strings. Each refuses a field it does
//! not know, so a misspelt option is an error rather than ignored.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::{AiStatus, ListFilter, NoteKind};
use crate::export::ImportedNote;

/// The largest request body any route takes: room for a note of `max_body_bytes` with
/// JSON's escaping (the text itself is held to `max_body_bytes` by `NoteBody::parse`).
pub fn body_limit(max_body_bytes: usize) -> usize {
    max_body_bytes.saturating_mul(2).saturating_add(1024)
}

/// `POST /api/notes` body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureRequest {
    pub body: String,
    /// `"answer"`: an answer saved from Ask (the page's "Save as note", `inkling ask
    /// --save`), left out of a question's notes unless it asks for them. Absent: a note.
    #[serde(default, skip_serializing_if = "NoteKind::is_note")]
    pub kind: NoteKind,
}

/// `GET /api/notes` query string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    #[serde(default)]
    pub trash: bool,
    #[serde(default)]
    pub expired: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// A search: the notes with every word of it, best first (`storage/search.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
}

impl ListQuery {
    /// The filter this query asks for, or what is wrong with it (in words for the
    /// caller). The search text (`q`) is not part of it.
    pub fn filter(&self) -> Result<ListFilter, String> {
        let status =
            match self.status.as_deref() {
                None | Some("") => None,
                Some(s) => Some(AiStatus::parse(s).ok_or_else(|| {
                    format!("unknown status \"{s}\": use pending, done or failed")
                })?),
            };
        if let Some(limit) = self
            .limit
            .filter(|l| !(1..=ListFilter::MAX_LIMIT).contains(l))
        {
            return Err(format!(
                "limit {limit} is out of range: use 1 to {}",
                ListFilter::MAX_LIMIT
            ));
        }
        Ok(ListFilter {
            status,
            tag: self.tag.clone().filter(|t| !t.is_empty()),
            trash: self.trash,
            expired: self.expired,
            limit: self.limit,
            before: self.before.clone().filter(|b| !b.is_empty()),
        })
    }
}

/// `POST /api/notes/{id}/tasks/{index}` body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TickRequest {
    pub done: bool,
}

/// `PATCH /api/notes/{id}` body: any of body, title, tags; or a reminder's `remind_at`
/// and `remind_state` (in a request of their own); anything else is refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// RFC 3339 sets the reminder; `null` clears it; absent leaves it.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub remind_at: Option<Option<String>>,
    /// `open`, `done` or `snoozed` (`crate::reminders::ReminderChange::parse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_state: Option<String>,
}

impl EditRequest {
    /// Whether it asks for a reminder's change.
    pub fn touches_reminder(&self) -> bool {
        self.remind_at.is_some() || self.remind_state.is_some()
    }
}

/// A field that is present, `null` included: `Some(None)` for `null`, where a plain
/// `Option` would read `null` as absent.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// `POST /api/tags/rename` body. The tag travels in the body, not the path: a tag
/// named `.` or `..` is a dot segment of a URL, which browsers fold away even
/// percent-encoded (`%2E`), so the page could not name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RenameTagRequest {
    /// The tag as stored.
    pub tag: String,
    pub to: String,
}

/// `GET /api/stats` query.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatsQuery {
    /// `json` for the aggregated numbers instead of the Markdown report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
}

/// `POST /api/usage-log/export` body (optional).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportRequest {
    /// The folder to create the export in, instead of `<data_dir>/exports/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out: Option<PathBuf>,
}

/// `GET /session/proof?session=ID&nonce=HEX` query string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionProofQuery {
    pub session: String,
    pub nonce: String,
}

/// `POST /session/access` body: the page's answer to the service's challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionAccessRequest {
    pub session: String,
    pub challenge: String,
    pub answer: String,
}

/// `GET /identity?nonce=HEX` query string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentityQuery {
    pub nonce: String,
}

/// `POST /api/notes/import` body: notes as fields, Markdown files as they are, or both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    #[serde(default)]
    pub notes: Vec<ImportedNote>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markdown: Vec<MarkdownFile>,
}

/// A Markdown file sent by the page (read there, parsed by the service: one parser for
/// all).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkdownFile {
    /// Its name, for the error messages.
    pub name: String,
    pub text: String,
    /// When the file was last changed: the note's creation time if its front matter
    /// gives none.
    #[serde(default)]
    pub modified_at: Option<String>,
}

/// `POST /api/inbox/expiry`: the person's answer to "should notes you never kept expire?".
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpiryAnswer {
    /// `true`: notes never kept expire after `expiry.days`; `false`: they never do.
    pub on: bool,
}
