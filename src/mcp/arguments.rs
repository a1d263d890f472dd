//! What each MCP tool takes: its arguments as serde types whose JSON schemas (schemars)
//! the tool list shows a model, and the checks an argument must pass before anything is
//! sent to the service. Plain data and plain functions: a refused argument sends
//! nothing, so it changes nothing.
//!
//! Unknown fields are refused (`deny_unknown_fields`): a model that misspells `query`
//! hears that it did, instead of searching for nothing.

use chrono::{DateTime, TimeZone, Utc};
use rmcp::schemars;
use serde::Deserialize;

use crate::api::requests::ListQuery;

/// The most notes one search answers with: enough to choose from, few enough for a
/// model's context.
pub const MAX_SEARCH_RESULTS: u32 = 50;
/// How many notes a search answers with when `limit` is not given.
pub const DEFAULT_SEARCH_RESULTS: u32 = 10;

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchNotesArgs {
    /// The words to look for. A note matches when it has every word, in its title, tags
    /// or text, ignoring case, also inside longer words (`plan` finds `planning`). Use a
    /// few distinctive words, not a whole question.
    pub query: String,
    /// Only notes with this tag (as list_tags shows it).
    #[serde(default)]
    pub tag: Option<String>,
    /// How many notes to return, best first: 1 to 50 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

impl SearchNotesArgs {
    /// The service's search query, or what is wrong with the arguments.
    pub fn to_query(&self) -> Result<ListQuery, String> {
        let query = self.query.trim();
        if query.is_empty() {
            return Err("query is empty: give one or more words to look for".into());
        }
        let limit = self.limit.unwrap_or(DEFAULT_SEARCH_RESULTS);
        if !(1..=MAX_SEARCH_RESULTS).contains(&limit) {
            return Err(format!(
                "limit {limit} is out of range: use 1 to {MAX_SEARCH_RESULTS}"
            ));
        }
        Ok(ListQuery {
            q: Some(query.to_string()),
            tag: self
                .tag
                .as_deref()
                .map(str::trim)
                .filter(|tag| !tag.is_empty())
                .map(str::to_string),
            limit: Some(limit),
            ..ListQuery::default()
        })
    }
}

/// One note, by its id (`get_note`, `related_notes`).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteIdArgs {
    /// The note's id, as search_notes, related_notes or capture_note gave it.
    pub id: String,
}

impl NoteIdArgs {
    /// The id, or why it cannot be one.
    pub fn checked_id(&self) -> Result<&str, String> {
        let id = self.id.trim();
        if id.is_empty() {
            return Err("id is empty: give a note's id, as search_notes returns it".into());
        }
        Ok(id)
    }
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureNoteArgs {
    /// The note's text, as the person would write it (Markdown is kept as written). Its
    /// title, tags and summary are added later by the person's local model.
    pub text: String,
}

impl CaptureNoteArgs {
    /// The text to capture, or why it cannot be a note. The service checks the rest (its
    /// size limit) and refuses with its own words.
    pub fn checked_text(&self) -> Result<&str, String> {
        if self.text.trim().is_empty() {
            return Err("text is empty: a note needs some text".into());
        }
        Ok(&self.text)
    }
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskNotesArgs {
    /// The question, in the person's words.
    pub question: String,
}

impl AskNotesArgs {
    /// The question, or why it cannot be asked.
    pub fn checked_question(&self) -> Result<&str, String> {
        let question = self.question.trim();
        if question.is_empty() {
            return Err("question is empty: ask something".into());
        }
        Ok(question)
    }
}

#[cfg(test)]
mod tests;

/// `list_reminders`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRemindersArgs {
    /// Up to when: words ("tomorrow", "in 3 days", "2026-12-24 18:00", "내일") or an RFC
    /// 3339 time. Absent: up to the end of today.
    #[serde(default)]
    pub until: Option<String>,
}

impl ListRemindersArgs {
    /// `until` as an instant read at `now` in `zone` (the person's), `None` when not
    /// given; or why it cannot be read.
    pub fn checked_until<Tz: TimeZone>(
        &self,
        now: DateTime<Utc>,
        zone: &Tz,
    ) -> Result<Option<DateTime<Utc>>, String> {
        match self.until.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(words) => crate::reminders::when::parse(words, now, zone)
                .map(Some)
                .map_err(|e| format!("until: {e}")),
        }
    }
}

/// `set_reminder`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SetReminderArgs {
    /// The note's id, as search_notes, get_note or capture_note gave it.
    pub id: String,
    /// When to remind the person, in their words as they said it ("tomorrow 9:00", "in 2
    /// hours", "2026-12-24 18:00", "next tuesday 3pm", "내일 오전 9시", "2시간 후") or an
    /// RFC 3339 time; "none" removes the reminder.
    pub when: String,
}

impl SetReminderArgs {
    /// The id and the time (`None`: remove it), read at `now` in `zone`; or why not. A
    /// time already gone is refused.
    pub fn checked<Tz: TimeZone>(
        &self,
        now: DateTime<Utc>,
        zone: &Tz,
    ) -> Result<(&str, Option<DateTime<Utc>>), String> {
        let id = self.id.trim();
        if id.is_empty() {
            return Err("id is empty: give a note's id, as search_notes returns it".into());
        }
        let when = self.when.trim();
        if matches!(when.to_lowercase().as_str(), "none" | "clear" | "없음") {
            return Ok((id, None));
        }
        let at = crate::reminders::when::parse(when, now, zone).map_err(|e| e.to_string())?;
        if at <= now {
            return Err(format!(
                "\"{when}\" is {}, which has passed; give a time to come",
                crate::domain::timestamp(at)
            ));
        }
        Ok((id, Some(at)))
    }
}
