//! Bringing notes in (`crate::export` reads them out through lists): an import stores
//! each note as it is, in one transaction.

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::search_index;
use super::tags::to_json;
use super::{Store, StoreResult};
use crate::api::changes::ChangeKind;
use crate::domain::{timestamp, AiStatus, Note};

/// What an import stored (`Store::import`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    /// The notes stored, with their ids.
    pub notes: Vec<Note>,
    /// Notes not stored because a note with their id exists.
    pub skipped: u64,
}

impl Store {
    /// Brings notes in (`crate::export`), each as it is, in one transaction: a note
    /// with an id that exists is skipped, one without an id gets a new one; a pending
    /// note gets its job (due now), as a capture does. Replies with the notes stored
    /// and how many were skipped.
    pub fn import(&mut self, notes: &[Note], now: DateTime<Utc>) -> StoreResult<Imported> {
        self.write(|tx| {
            let mut imported = Imported::default();
            for note in notes {
                let id = if note.id.is_empty() {
                    uuid::Uuid::now_v7().to_string()
                } else {
                    note.id.clone()
                };
                let stored = tx.execute(
                "INSERT OR IGNORE INTO notes (id, body, title, summary, tags, ai_status, ai_error,
                     created_at, updated_at, deleted_at, kept_at, title_set_by_user,
                     tags_set_by_user, ai_read_chars, edited_at, remind_at, remind_state, kind,
                     imported_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                     ?16, ?17, ?18, ?19)",
                params![
                    id,
                    note.body,
                    note.title,
                    note.summary,
                    to_json(&note.tags)?,
                    note.ai_status.as_str(),
                    note.ai_error,
                    note.created_at,
                    note.updated_at,
                    note.deleted_at,
                    note.kept_at,
                    note.title_set_by_user,
                    note.tags_set_by_user,
                    note.ai_read_chars,
                    note.edited_at,
                    note.remind_at,
                    note.remind_state.map(crate::reminders::ReminderState::as_str),
                    note.kind.as_str(),
                    // Its expiry counts from today, not from when it was written.
                    timestamp(now),
                ],
            )?;
                if stored == 0 {
                    imported.skipped += 1;
                    continue;
                }
                if note.ai_status == AiStatus::Pending {
                    tx.execute(
                    "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)",
                    params![id, timestamp(now)],
                )?;
                }
                // Its tag rows follow the log.
                tx.record(&id, ChangeKind::Imported, now)?;
                imported.notes.push(Note {
                    id,
                    imported_at: Some(timestamp(now)),
                    ..note.clone()
                });
            }
            // Searchable when the import returns, as before: a thousand notes' entries
            // in one batch cost the import little, and no search pays for them.
            search_index::write_entries(tx)?;
            Ok(imported)
        })
    }
}
