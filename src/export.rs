//! Notes as files, to take them elsewhere and bring them back (docs/DESIGN.md, "Export
//! and import"): inkling's JSON export document, one Markdown file per note, and the
//! checks a note must pass to come in. Plain functions over plain data; the CLI and the
//! routes do the reading and writing.
//!
//! - JSON: `{"inkling_export": 1, "exported_at": "…", "notes": [note, …]}`, every note
//!   with every field as the API returns it, the trash included. Written in pieces
//!   ([`json_head`], each note, [`JSON_TAIL`]) so a large export is streamed, never held.
//! - Markdown: front matter (`key: value` lines between `---`, values in JSON, which is
//!   also YAML: Obsidian and other tools read it), a blank line, then the body exactly as
//!   typed ([`to_markdown`]). [`from_markdown`] reads it back, and also a file from
//!   elsewhere: with no front matter, or with other keys (ignored), tags as a YAML list.

use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};

use crate::domain::{parse_tags, parse_title, timestamp, AiStatus, EditError, Note, NoteBody};

/// The version of the JSON export document.
pub const FORMAT_VERSION: u32 = 1;
/// The longest summary a note may bring in, in characters (the AI writes at most 240;
/// another tool's may be longer).
pub const MAX_IMPORTED_SUMMARY_CHARS: usize = 2000;
/// The longest id a note may bring in (inkling's are UUIDs: 36).
pub const MAX_ID_CHARS: usize = 64;

/// The JSON export up to its first note.
pub fn json_head(exported_at: &str) -> String {
    format!(
        "{{\"inkling_export\":{FORMAT_VERSION},\"exported_at\":{},\"notes\":[\n",
        serde_json::Value::from(exported_at)
    )
}

/// What goes between two notes of the JSON export.
pub const JSON_SEPARATOR: &str = ",\n";
/// The JSON export after its last note.
pub const JSON_TAIL: &str = "\n]}\n";

/// The JSON export as read back.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportDocument {
    pub inkling_export: u32,
    pub exported_at: Option<String>,
    pub notes: Vec<ImportedNote>,
}

/// A note coming in (`POST /api/notes/import`, `inkling import`): a note of an export,
/// or one read from a Markdown file. Only `body` is needed; what is missing is filled
/// in as a capture would (a new id, now, pending).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportedNote {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub body: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub ai_status: Option<AiStatus>,
    #[serde(default)]
    pub ai_error: Option<String>,
    #[serde(default)]
    pub created_at: Option<String>,
    #[serde(default)]
    pub updated_at: Option<String>,
    #[serde(default)]
    pub deleted_at: Option<String>,
    #[serde(default)]
    pub kept_at: Option<String>,
    #[serde(default)]
    pub title_set_by_user: bool,
    #[serde(default)]
    pub tags_set_by_user: bool,
    /// The AI read only the note's first this many characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_read_chars: Option<u32>,
    /// When a person last edited the note (absent: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// Its reminder's time (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_at: Option<String>,
    /// Its reminder's state (absent with a time: open).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind_state: Option<crate::reminders::ReminderState>,
    /// An answer saved from Ask; absent, a note.
    #[serde(default, skip_serializing_if = "crate::domain::NoteKind::is_note")]
    pub kind: crate::domain::NoteKind,
}

/// Why a note cannot come in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Field(#[from] EditError),
    #[error("the id {0:?} is not an id: use 1 to {MAX_ID_CHARS} letters, digits, - or _")]
    Id(String),
    #[error("{field} {value:?} is not an RFC 3339 time (such as 2026-03-01T12:00:00Z)")]
    Time { field: &'static str, value: String },
    #[error(
        "{field} {value:?} is outside the years {EARLIEST_YEAR} to {LATEST_YEAR}; correct the date, or remove it and the note is dated when it is imported"
    )]
    TimeOutOfRange { field: &'static str, value: String },
    #[error("the summary is longer than {MAX_IMPORTED_SUMMARY_CHARS} characters")]
    SummaryTooLong,
}

impl From<crate::domain::NoteBodyError> for ImportError {
    fn from(e: crate::domain::NoteBodyError) -> Self {
        ImportError::Field(EditError::Body(e))
    }
}

impl ImportedNote {
    /// The note as it will be stored: every field checked as a capture and an edit
    /// check theirs, times in the database's format, what is missing filled in. The id
    /// is empty when none was given: `Store::import` makes one.
    pub fn validate(self, body_limit: usize, now: DateTime<Utc>) -> Result<Note, ImportError> {
        let body = NoteBody::parse(self.body, body_limit)?;
        let id = match self.id {
            Some(id) if is_valid_id(&id) => id,
            Some(id) => return Err(ImportError::Id(id)),
            None => String::new(),
        };
        let title = self
            .title
            .filter(|title| !title.trim().is_empty())
            .map(|title| parse_title(&title))
            .transpose()?;
        let summary = self.summary.filter(|summary| !summary.trim().is_empty());
        if summary
            .as_ref()
            .is_some_and(|s| s.chars().count() > MAX_IMPORTED_SUMMARY_CHARS)
        {
            return Err(ImportError::SummaryTooLong);
        }
        let tags = parse_tags(&self.tags)?;
        let created_at = time("created_at", self.created_at)?.unwrap_or_else(|| timestamp(now));
        let updated_at = time("updated_at", self.updated_at)?.unwrap_or_else(|| created_at.clone());
        // A note without an AI status was not made by inkling (a Markdown file from
        // another tool, a script's note): a title or tags it brings are the person's,
        // and the AI, which will read it, fills in only the rest.
        let from_elsewhere = self.ai_status.is_none();
        let ai_status = self.ai_status.unwrap_or(AiStatus::Pending);
        // An error belongs to a failed note only, and a failed note needs one.
        let ai_error = match ai_status {
            AiStatus::Failed => Some(
                self.ai_error
                    .filter(|e| !e.trim().is_empty())
                    .unwrap_or_else(|| "other: failed before it was imported".into()),
            ),
            _ => None,
        };
        let remind_at = time("remind_at", self.remind_at)?;
        Ok(Note {
            id,
            body: body.as_str().to_string(),
            summary,
            ai_status,
            ai_error,
            created_at,
            updated_at,
            deleted_at: time("deleted_at", self.deleted_at)?,
            kept_at: time("kept_at", self.kept_at)?,
            title_set_by_user: self.title_set_by_user || (from_elsewhere && title.is_some()),
            tags_set_by_user: self.tags_set_by_user || (from_elsewhere && !tags.is_empty()),
            ai_read_chars: self.ai_read_chars.filter(|_| ai_status == AiStatus::Done),
            edited_at: time("edited_at", self.edited_at)?,
            // A state without a time means nothing: a reminder is its time.
            remind_state: remind_at.as_ref().map(|_| {
                self.remind_state
                    .unwrap_or(crate::reminders::ReminderState::Open)
            }),
            remind_at,
            // The import sets its own time: an export's is the other install's.
            imported_at: None,
            // The AI's suggestion and whether a note was opened are this inbox's view
            // of it, not the note: an import starts without them.
            remind_suggested_at: None,
            remind_suggestion_dismissed: false,
            opened_at: None,
            title,
            tags,
            kind: self.kind,
        })
    }
}

impl From<Note> for ImportedNote {
    fn from(note: Note) -> Self {
        ImportedNote {
            id: Some(note.id),
            body: note.body,
            title: note.title,
            summary: note.summary,
            tags: note.tags,
            ai_status: Some(note.ai_status),
            ai_error: note.ai_error,
            created_at: Some(note.created_at),
            updated_at: Some(note.updated_at),
            deleted_at: note.deleted_at,
            kept_at: note.kept_at,
            title_set_by_user: note.title_set_by_user,
            tags_set_by_user: note.tags_set_by_user,
            ai_read_chars: note.ai_read_chars,
            edited_at: note.edited_at,
            remind_at: note.remind_at,
            remind_state: note.remind_state,
            kind: note.kind,
        }
    }
}

fn is_valid_id(id: &str) -> bool {
    (1..=MAX_ID_CHARS).contains(&id.len())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The years a note coming in may be dated in. A year 0 or 9999 is a mistake (a
/// tool's placeholder, a typo), and such a note would sort before or after every
/// other note for good; before 1970 no one typed a note into a computer either.
pub const EARLIEST_YEAR: i32 = 1970;
pub const LATEST_YEAR: i32 = 2200;

/// An RFC 3339 time in the database's format (UTC, milliseconds); empty is none.
fn time(field: &'static str, value: Option<String>) -> Result<Option<String>, ImportError> {
    let Some(value) = value.filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    let Ok(at) = DateTime::parse_from_rfc3339(value.trim()) else {
        return Err(ImportError::Time { field, value });
    };
    let at = at.with_timezone(&Utc);
    if !(EARLIEST_YEAR..=LATEST_YEAR).contains(&at.year()) {
        return Err(ImportError::TimeOutOfRange { field, value });
    }
    Ok(Some(timestamp(at)))
}

// ----- Markdown ------------------------------------------------------------------------

/// One note as a Markdown file: its front matter, a blank line, its body as typed.
pub fn to_markdown(note: &Note) -> String {
    let mut out = String::from("---\n");
    let mut field = |key: &str, value: String| {
        out.push_str(key);
        out.push_str(": ");
        out.push_str(&value);
        out.push('\n');
    };
    field("id", json(&note.id));
    field("created", json(&note.created_at));
    field("updated", json(&note.updated_at));
    if let Some(edited) = &note.edited_at {
        field("edited", json(edited));
    }
    if let Some(title) = &note.title {
        field("title", json(title));
    }
    field("tags", json(&note.tags));
    field("ai_status", json(&note.ai_status.as_str()));
    if let Some(error) = &note.ai_error {
        field("ai_error", json(error));
    }
    if let Some(summary) = &note.summary {
        field("summary", json(summary));
    }
    if let Some(at) = &note.deleted_at {
        field("trashed", json(at));
    }
    if let Some(at) = &note.kept_at {
        field("kept", json(at));
    }
    if note.title_set_by_user {
        field("title_set_by_user", "true".into());
    }
    if note.tags_set_by_user {
        field("tags_set_by_user", "true".into());
    }
    out.push_str("---\n\n");
    out.push_str(&note.body);
    out
}

/// A front matter value in JSON (which YAML reads as well).
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A Markdown file as a note: its front matter (if any) gives the fields it knows
/// (`id`, `created` or `date`, `updated`, `title`, `tags`, `ai_status`, `ai_error`,
/// `summary`, `trashed`, `kept`, `title_set_by_user`, `tags_set_by_user`; others are
/// ignored), the rest is the body. A file without front matter is all body.
pub fn from_markdown(text: &str) -> ImportedNote {
    let Some((front, body)) = split_front_matter(text) else {
        return ImportedNote {
            body: text.to_string(),
            ..ImportedNote::default()
        };
    };
    let mut note = ImportedNote {
        body: body.to_string(),
        ..ImportedNote::default()
    };
    for (key, value) in front_matter_fields(front) {
        let text = || value.as_text();
        match key.as_str() {
            "id" => note.id = text(),
            "created" | "created_at" | "date" => note.created_at = text(),
            "updated" | "updated_at" => note.updated_at = text(),
            "edited" | "edited_at" => note.edited_at = text(),
            "title" => note.title = text(),
            "tags" => note.tags = value.as_list(),
            "ai_status" => note.ai_status = text().as_deref().and_then(AiStatus::parse),
            "ai_error" => note.ai_error = text(),
            "summary" => note.summary = text(),
            "trashed" | "deleted_at" => note.deleted_at = text(),
            "kept" | "kept_at" => note.kept_at = text(),
            "title_set_by_user" => note.title_set_by_user = value.is_true(),
            "tags_set_by_user" => note.tags_set_by_user = value.is_true(),
            _ => {}
        }
    }
    note
}

/// The front matter and the body after it (one blank line after the closing `---` is
/// the separator, not the body's).
fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[offset + line.len()..];
            let body = body
                .strip_prefix("\r\n")
                .or_else(|| body.strip_prefix('\n'))
                .unwrap_or(body);
            return Some((&rest[..offset], body));
        }
        offset += line.len();
    }
    None
}

/// A front matter value: one scalar or list on its line, or a YAML block list below it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Value {
    Text(String),
    List(Vec<String>),
}

impl Value {
    fn as_text(&self) -> Option<String> {
        match self {
            Value::Text(text) if !text.is_empty() => Some(text.clone()),
            _ => None,
        }
    }

    fn as_list(&self) -> Vec<String> {
        match self {
            Value::List(items) => items.clone(),
            // "tags: cooking, food" (a comma list, as some tools write it).
            Value::Text(text) => text
                .split(',')
                .map(|item| item.trim().to_string())
                .filter(|item| !item.is_empty())
                .collect(),
        }
    }

    fn is_true(&self) -> bool {
        matches!(self, Value::Text(text) if text == "true")
    }
}

/// `key: value` lines; a value in JSON (what inkling writes), or plain YAML: a bare or
/// quoted scalar, a `[a, b]` flow list, or `- item` lines under an empty value.
fn front_matter_fields(front: &str) -> Vec<(String, Value)> {
    let mut fields: Vec<(String, Value)> = Vec::new();
    for line in front.lines() {
        let trimmed = line.trim();
        if let Some(item) = trimmed.strip_prefix("- ") {
            if let Some((_, value)) = fields.last_mut() {
                let item = scalar(item.trim());
                match value {
                    Value::List(items) => items.push(item),
                    Value::Text(text) if text.is_empty() => *value = Value::List(vec![item]),
                    Value::Text(_) => {}
                }
            }
            continue;
        }
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let parsed = if value.starts_with('[') {
            match serde_json::from_str::<Vec<String>>(value) {
                Ok(items) => Value::List(items),
                Err(_) => Value::List(
                    value
                        .trim_start_matches('[')
                        .trim_end_matches(']')
                        .split(',')
                        .map(|item| scalar(item.trim()))
                        .filter(|item| !item.is_empty())
                        .collect(),
                ),
            }
        } else {
            Value::Text(scalar(value))
        };
        fields.push((key.trim().to_string(), parsed));
    }
    fields
}

/// A scalar: a JSON (or YAML double-quoted) string, a single-quoted one, or bare text.
fn scalar(value: &str) -> String {
    if value.starts_with('"') {
        if let Ok(text) = serde_json::from_str::<String>(value) {
            return text;
        }
    }
    if let Some(inner) = value
        .strip_prefix('\'')
        .and_then(|rest| rest.strip_suffix('\''))
    {
        return inner.replace("''", "'");
    }
    value.to_string()
}

/// A file name for a note: `2026-03-01-buy-stamps-1a2b3c4d.md`, from its creation
/// date, its title (or first line) and the end of its id (the random part of a UUID
/// v7), so that two notes never share one. Letters of any script are kept.
pub fn file_name(note: &Note) -> String {
    let date: String = note.created_at.chars().take(10).collect();
    let headline = note.title.clone().unwrap_or_else(|| {
        note.body
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    });
    let mut slug = String::new();
    for c in headline.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.chars().count() >= 40 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "note" } else { slug };
    let id: Vec<char> = note
        .id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    let id: String = id[id.len().saturating_sub(8)..].iter().collect();
    format!("{date}-{slug}-{id}.md")
}

#[cfg(test)]
mod tests;
