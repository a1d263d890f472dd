//! Reminders in the store (migration 0010): a note's `remind_at` and `remind_state`
//! set, cleared, done or snoozed by a person ([`Store::set_reminder`], logged as
//! `reminded`); the reminders up to a time, due and overdue first
//! ([`Store::reminders_until`]); and, for the reminder actor, those not yet shown for
//! their time and which time each was shown for (`reminder_shown`, not the note's
//! data: not logged). Also Today's other half (migration 0014): the notes captured
//! yesterday that nobody opened, and the mark a note's opening leaves (`opened_at`).

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::notes::{note_from_row, NOTE_COLUMNS};
use super::{Store, StoreError, StoreResult};
use crate::api::changes::ChangeKind;
use crate::domain::{timestamp, Note};
use crate::reminders::due::Pending;
use crate::reminders::{ReminderChange, ReminderState};

/// The most reminders one look reads: more due at once are one summary anyway.
pub const PENDING_LIMIT: u32 = 500;

impl Store {
    /// Changes a note's reminder; replies with the note as it is now. A note in the
    /// trash, or done, reopened or snoozed without a reminder, or a suggestion accepted
    /// where there is none, is a conflict and nothing is written. A change that changes
    /// nothing writes nothing. A reminder set by hand or accepted ends the suggestion.
    pub fn set_reminder(
        &mut self,
        note_id: &str,
        change: ReminderChange,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        let before = self.get(note_id)?;
        if before.deleted_at.is_some() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is in the trash; restore it first"
            )));
        }
        let needs_one = matches!(
            change,
            ReminderChange::Done | ReminderChange::Reopen | ReminderChange::Snooze(_)
        );
        if needs_one && before.remind_at.is_none() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} has no reminder; set one with remind_at first"
            )));
        }
        let kept = (before.remind_at.clone(), before.remind_state);
        let (at, state) = match change {
            ReminderChange::Set(at) => (Some(timestamp(at)), Some(ReminderState::Open)),
            ReminderChange::Clear => (None, None),
            ReminderChange::Done => (before.remind_at.clone(), Some(ReminderState::Done)),
            ReminderChange::Reopen => (before.remind_at.clone(), Some(ReminderState::Open)),
            ReminderChange::Snooze(until) => (Some(timestamp(until)), Some(ReminderState::Snoozed)),
            ReminderChange::AcceptSuggestion => match &before.remind_suggested_at {
                Some(at) => (Some(at.clone()), Some(ReminderState::Open)),
                None => {
                    return Err(StoreError::Conflict(format!(
                        "note {note_id} has no suggested reminder to accept; set one with remind_at"
                    )))
                }
            },
            ReminderChange::DismissSuggestion => kept.clone(),
        };
        // Any reminder a person sets or accepts ends the suggestion; a dismissal ends
        // it for good. Clearing, done, reopening and snoozing leave it as it is (there
        // is none beside a reminder).
        let (suggested, dismissed) = match change {
            ReminderChange::Set(_) | ReminderChange::AcceptSuggestion => {
                (None, before.remind_suggestion_dismissed)
            }
            ReminderChange::DismissSuggestion => (None, true),
            _ => (
                before.remind_suggested_at.clone(),
                before.remind_suggestion_dismissed,
            ),
        };
        if (at.clone(), state) == kept
            && suggested == before.remind_suggested_at
            && dismissed == before.remind_suggestion_dismissed
        {
            return Ok(before);
        }
        self.write(|w| {
            w.execute(
                "UPDATE notes SET remind_at = ?2, remind_state = ?3, updated_at = ?4,
                     remind_suggested_at = ?5, remind_suggestion_dismissed = ?6
                 WHERE id = ?1",
                params![
                    note_id,
                    at,
                    state.map(ReminderState::as_str),
                    timestamp(now),
                    suggested,
                    dismissed
                ],
            )?;
            w.record(note_id, ChangeKind::Reminded, now)?;
            Ok(())
        })?;
        self.get(note_id)
    }

    /// Active notes with a reminder not done at or before `until`, earliest first (so
    /// the overdue come first, then the due): the first `limit` of them.
    pub fn reminders_until(&self, until: DateTime<Utc>, limit: u32) -> StoreResult<Vec<Note>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE {DUE}
             ORDER BY n.remind_at, n.id LIMIT ?2"
        ))?;
        let notes = stmt
            .query_map(params![timestamp(until), limit], note_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(notes)
    }

    /// How many active notes have a reminder not done at or before `until`.
    pub fn due_count(&self, until: DateTime<Utc>) -> StoreResult<u64> {
        let due: i64 = self.conn.query_row(
            &format!("SELECT COUNT(*) FROM notes n WHERE {DUE}"),
            [timestamp(until)],
            |r| r.get(0),
        )?;
        Ok(u64::try_from(due).unwrap_or(0))
    }

    /// For the reminder actor: the reminders at or before `now` not yet shown for
    /// their time (at most [`PENDING_LIMIT`], earliest first), and the first one still
    /// to come.
    pub fn pending_reminders(&self, now: DateTime<Utc>) -> StoreResult<Vec<Pending>> {
        let select = "SELECT n.id, coalesce(n.title, n.body), n.remind_at, n.remind_state
             FROM notes n LEFT JOIN reminder_shown s
                  ON s.note_id = n.id AND s.remind_at = n.remind_at
             WHERE n.remind_at IS NOT NULL AND n.remind_state <> 'done'
               AND n.deleted_at IS NULL AND s.note_id IS NULL";
        let row = |r: &rusqlite::Row| -> rusqlite::Result<(String, String, String, String)> {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        };
        let at = timestamp(now);
        let mut rows: Vec<_> = self
            .conn
            .prepare_cached(&format!(
                "{select} AND n.remind_at <= ?1 ORDER BY n.remind_at LIMIT ?2"
            ))?
            .query_map(params![at, PENDING_LIMIT], row)?
            .collect::<Result<_, _>>()?;
        let next = self
            .conn
            .prepare_cached(&format!(
                "{select} AND n.remind_at > ?1 ORDER BY n.remind_at LIMIT 1"
            ))?
            .query_row([at], row)
            .optional()?;
        rows.extend(next);
        rows.into_iter()
            .map(|(note_id, text, remind_at, state)| {
                Ok(Pending {
                    title: first_line(&text),
                    remind_at: DateTime::parse_from_rfc3339(&remind_at)
                        .map_err(|e| {
                            StoreError::Unavailable(format!(
                                "note {note_id} has a remind_at that is not a time ({e})"
                            ))
                        })?
                        .with_timezone(&Utc),
                    state: ReminderState::parse(&state).unwrap_or(ReminderState::Open),
                    note_id,
                })
            })
            .collect()
    }

    /// Keeps which time each reminder was shown for (`due::Decision::shown`).
    pub fn mark_reminders_shown(&mut self, shown: &[(String, DateTime<Utc>)]) -> StoreResult<()> {
        if shown.is_empty() {
            return Ok(());
        }
        self.write(|w| {
            let mut stmt = w.prepare_cached(
                "INSERT INTO reminder_shown (note_id, remind_at) SELECT id, ?2 FROM notes
                 WHERE id = ?1
                 ON CONFLICT (note_id) DO UPDATE SET remind_at = excluded.remind_at",
            )?;
            for (note_id, at) in shown {
                stmt.execute(params![note_id, timestamp(*at)])?;
            }
            Ok(())
        })
    }
}

/// What the daily review says, and the day it was last shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewFacts {
    /// `YYYY-MM-DD`, the day it was last shown; `None`: never.
    pub last_day: Option<String>,
    /// Reminders not done due by the end of today (the overdue included).
    pub due: u64,
    /// Active notes captured yesterday and never opened ([`Store::unopened_between`]'s
    /// rule): the ones the review is there to bring back.
    pub unopened: u64,
}

impl Store {
    /// The daily review's facts: reminders due up to `due_until`, active notes
    /// captured from `from` up to `to` and never opened.
    pub fn review_facts(
        &self,
        due_until: DateTime<Utc>,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<ReviewFacts> {
        let last_day = self
            .conn
            .query_row(
                "SELECT last_day FROM reminder_review WHERE id = 1",
                [],
                |r| r.get(0),
            )
            .optional()?;
        let due = self.due_count(due_until)?;
        let unopened: i64 = self.conn.query_row(
            &format!("SELECT COUNT(*) FROM notes n WHERE {UNOPENED}"),
            params![timestamp(from), timestamp(to)],
            |r| r.get(0),
        )?;
        Ok(ReviewFacts {
            last_day,
            due,
            unopened: u64::try_from(unopened).unwrap_or(0),
        })
    }

    /// Today's "from yesterday": the active notes captured from `from` up to `to` that
    /// nobody has opened, oldest first (at most [`UNOPENED_LIMIT`]).
    pub fn unopened_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<Vec<Note>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {NOTE_COLUMNS} FROM notes n WHERE {UNOPENED}
             ORDER BY n.created_at, n.id LIMIT ?3"
        ))?;
        let notes = stmt
            .query_map(
                params![timestamp(from), timestamp(to), UNOPENED_LIMIT],
                note_from_row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(notes)
    }

    /// Keeps that a person opened the note now (the page's note view); replies with
    /// the note. A view, not an edit: not in the change log, `updated_at` kept.
    pub fn mark_opened(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Note> {
        let changed = self.write(|w| {
            Ok(w.execute(
                "UPDATE notes SET opened_at = ?2 WHERE id = ?1",
                params![note_id, timestamp(now)],
            )?)
        })?;
        if changed == 0 {
            return Err(StoreError::NotFound(note_id.to_string()));
        }
        self.get(note_id)
    }

    /// Keeps the day the daily review was shown (`YYYY-MM-DD`).
    pub fn mark_review_shown(&mut self, day: &str) -> StoreResult<()> {
        self.write(|w| {
            w.execute(
                "INSERT INTO reminder_review (id, last_day) VALUES (1, ?1)
                 ON CONFLICT (id) DO UPDATE SET last_day = excluded.last_day",
                [day],
            )?;
            Ok(())
        })
    }
}

/// The rule of "from yesterday, never opened", on `notes n` with ?1 and ?2 the day's
/// bounds: one rule for Today and the daily review's count.
const UNOPENED: &str = "n.deleted_at IS NULL AND n.opened_at IS NULL
     AND n.created_at >= ?1 AND n.created_at < ?2";

/// The rule of "a reminder not done, at or before ?1", on `notes n`: one rule for
/// Today's list and the counts of reminders due.
const DUE: &str = "n.remind_at IS NOT NULL AND n.remind_state <> 'done'
     AND n.deleted_at IS NULL AND n.remind_at <= ?1";

/// The most of yesterday's unopened notes Today lists: a day's capture, and past this
/// many a list is no longer a review.
pub const UNOPENED_LIMIT: u32 = 200;

/// A note's first line, for a notification's title (at most 80 characters).
fn first_line(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut out: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        out.push('…');
    }
    out
}
