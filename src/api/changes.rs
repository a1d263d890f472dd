//! The change log on the wire: `GET /api/changes?since=SEQ&limit=N` (docs/API.md), one
//! row for every write to a note, in the order they were made; the base for keeping
//! another copy of the notes in step (a second device, a backup). The log itself is
//! `storage/store/changes.rs`.

use serde::{Deserialize, Serialize};

/// What a write did to a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A new note, typed or sent in.
    Captured,
    /// A note brought in by an import.
    Imported,
    /// A person changed its body, title or tags.
    Edited,
    /// The AI's answer saved: title, summary, tags.
    Enriched,
    /// The AI gave up on it.
    Failed,
    /// Its AI asked for again (retry-all, one note's retry, the missing model back).
    Requeued,
    /// A tag renamed on it.
    Retagged,
    Trashed,
    Restored,
    /// Kept past its expiry.
    Kept,
    /// Its vector saved (related notes, search by meaning); nothing a person sees.
    Embedded,
    /// Deleted for good (one note, the whole trash, the hourly purge): only its id stays.
    Deleted,
    /// Its reminder set, cleared, done or snoozed (docs/DESIGN.md, "Reminders").
    Reminded,
}

impl ChangeKind {
    /// Every kind, in the order of the list above.
    pub const ALL: [ChangeKind; 13] = [
        ChangeKind::Captured,
        ChangeKind::Imported,
        ChangeKind::Edited,
        ChangeKind::Enriched,
        ChangeKind::Failed,
        ChangeKind::Requeued,
        ChangeKind::Retagged,
        ChangeKind::Trashed,
        ChangeKind::Restored,
        ChangeKind::Kept,
        ChangeKind::Embedded,
        ChangeKind::Deleted,
        ChangeKind::Reminded,
    ];

    /// The word stored in `note_changes.kind` and sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Captured => "captured",
            ChangeKind::Imported => "imported",
            ChangeKind::Edited => "edited",
            ChangeKind::Enriched => "enriched",
            ChangeKind::Failed => "failed",
            ChangeKind::Requeued => "requeued",
            ChangeKind::Retagged => "retagged",
            ChangeKind::Trashed => "trashed",
            ChangeKind::Restored => "restored",
            ChangeKind::Kept => "kept",
            ChangeKind::Embedded => "embedded",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Reminded => "reminded",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        ChangeKind::ALL.into_iter().find(|k| k.as_str() == word)
    }
}

/// One row of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoteChange {
    /// Its place in the log: only grows, never handed out twice.
    pub seq: i64,
    pub note_id: String,
    pub kind: ChangeKind,
    /// When it was written (RFC 3339, the service's clock).
    pub at: String,
}

/// `GET /api/changes`' answer: up to `limit` changes after `since`, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangesPage {
    pub changes: Vec<NoteChange>,
    /// The `since` of the next page: the last change's `seq`, or the `since` asked for
    /// when there was none. Keep it, and ask from it next time.
    pub next: i64,
    /// More changes are there after `next` now: ask again at once.
    pub more: bool,
}

/// How many changes a page holds when `limit` is not given.
pub const CHANGES_PAGE: u32 = 500;
/// The most a page holds.
pub const MAX_CHANGES_PAGE: u32 = 5_000;

/// `GET /api/changes`' query string, as written: [`ChangesQuery::page`] reads the
/// numbers, so a refusal can say which one is wrong and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangesQuery {
    /// The changes after this `seq` (0, or left out: from the beginning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// How many at most (left out: [`CHANGES_PAGE`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

impl ChangesQuery {
    /// The page asked for, `(since, limit)`, or why it cannot be answered.
    pub fn page(&self) -> Result<(i64, u32), String> {
        let since = match self.since.as_deref() {
            None => 0,
            Some(text) => text
                .parse::<i64>()
                .ok()
                .filter(|since| *since >= 0)
                .ok_or_else(|| {
                    format!("since must be 0 or the `next` of an earlier page, not {text:?}")
                })?,
        };
        let limit = match self.limit.as_deref() {
            None => CHANGES_PAGE,
            Some(text) => text
                .parse::<u32>()
                .ok()
                .filter(|limit| (1..=MAX_CHANGES_PAGE).contains(limit))
                .ok_or_else(|| {
                    format!("limit must be a number from 1 to {MAX_CHANGES_PAGE}, not {text:?}")
                })?,
        };
        Ok((since, limit))
    }
}

#[cfg(test)]
mod tests;
