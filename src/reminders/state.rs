//! Where a note's reminder stands, and a change a person asks for, checked.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How long "Snooze" puts a reminder off (the notification's button, `remind_state:
/// "snoozed"` without a time).
pub const SNOOZE: chrono::Duration = chrono::Duration::hours(1);

/// A reminder's state: a note with a `remind_at` has exactly one (migration 0010).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReminderState {
    /// Set, waiting for its time (or due and not dealt with yet).
    Open,
    /// Dealt with: never shown again, kept so the note says when it was for.
    Done,
    /// Put off: its time was moved later; shown again then.
    Snoozed,
}

impl ReminderState {
    /// The word stored in `notes.remind_state` and sent on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ReminderState::Open => "open",
            ReminderState::Done => "done",
            ReminderState::Snoozed => "snoozed",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "open" => Some(ReminderState::Open),
            "done" => Some(ReminderState::Done),
            "snoozed" => Some(ReminderState::Snoozed),
            _ => None,
        }
    }

    /// Whether a reminder in this state is still to be shown at its time.
    pub fn is_pending(self) -> bool {
        self != ReminderState::Done
    }
}

/// A change of a note's reminder, checked: what `PATCH /api/notes/{id}` with
/// `remind_at` or `remind_state` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReminderChange {
    /// Remind at this time (open): set by hand or a suggestion accepted; the AI never
    /// changes it.
    Set(DateTime<Utc>),
    /// No reminder any more.
    Clear,
    /// Dealt with.
    Done,
    /// Open again (at its time; shown at once if that has passed and it was done).
    Reopen,
    /// Put off until this time.
    Snooze(DateTime<Utc>),
    /// The AI's suggested time taken as the reminder (open), the one click of
    /// `POST /api/notes/{id}/reminder/accept`.
    AcceptSuggestion,
    /// The AI's suggestion declined: gone, and none offered on this note again.
    DismissSuggestion,
}

/// Why a reminder change was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReminderError {
    #[error("remind_at \"{0}\" is not a time: give RFC 3339, e.g. \"2026-12-24T18:00:00Z\" (or null to clear)")]
    NotATime(String),
    #[error("remind_state \"{0}\" is unknown: use open, done or snoozed")]
    UnknownState(String),
    #[error("remind_at null clears the reminder: give no remind_state with it")]
    StateWithClear,
    #[error("a done reminder takes no new time: give remind_at alone to set it again")]
    TimeWithDone,
}

impl ReminderChange {
    /// The change `remind_at` (absent; `Some(None)`: null, clear) and `remind_state`
    /// ask for at `now`; `None` when neither is given. A time alone (or with `open`)
    /// sets it; `snoozed` alone puts it off by [`SNOOZE`], with a time until then.
    pub fn parse(
        remind_at: Option<Option<&str>>,
        state: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Option<Self>, ReminderError> {
        let state = state
            .map(|s| ReminderState::parse(s).ok_or_else(|| ReminderError::UnknownState(s.into())))
            .transpose()?;
        let at = match remind_at {
            None => None,
            Some(None) => Some(None),
            Some(Some(text)) => Some(Some(
                DateTime::parse_from_rfc3339(text.trim())
                    .map_err(|_| ReminderError::NotATime(text.into()))?
                    .with_timezone(&Utc),
            )),
        };
        Ok(Some(match (at, state) {
            (None, None) => return Ok(None),
            (Some(None), None) => ReminderChange::Clear,
            (Some(None), Some(_)) => return Err(ReminderError::StateWithClear),
            (Some(Some(at)), None | Some(ReminderState::Open)) => ReminderChange::Set(at),
            (Some(Some(at)), Some(ReminderState::Snoozed)) => ReminderChange::Snooze(at),
            (Some(Some(_)), Some(ReminderState::Done)) => return Err(ReminderError::TimeWithDone),
            (None, Some(ReminderState::Open)) => ReminderChange::Reopen,
            (None, Some(ReminderState::Done)) => ReminderChange::Done,
            (None, Some(ReminderState::Snoozed)) => ReminderChange::Snooze(now + SNOOZE),
        }))
    }
}

#[cfg(test)]
mod tests;
