//! Reminders on the wire: `GET /api/reminders?until=…`'s query and answer (docs/API.md,
//! "Reminders"). A reminder is set through `PATCH /api/notes/{id}` (`remind_at`,
//! `remind_state` in [`super::requests::EditRequest`]), the AI's suggestion taken or
//! declined with `POST /api/notes/{id}/reminder/accept` and `…/dismiss` (no body, the
//! note back); the notes carry theirs.

use serde::{Deserialize, Serialize};

use super::notes::NoteView;

/// The most reminders one answer lists (`GET /api/reminders`, Today, `inkling today`,
/// MCP's `list_reminders`): a day's worth many times over; past it the answer says
/// there are more (`more`); marking some done makes room for the rest.
pub const MAX_REMINDERS: u32 = 200;

/// `GET /api/reminders` query string.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RemindersQuery {
    /// RFC 3339: the reminders up to this time. Absent: the end of today, in the
    /// service's time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

/// `GET /api/reminders`: the reminders not done up to `until`, earliest first (the
/// overdue first, then the due, then those still to come before `until`), and the
/// notes captured yesterday that nobody has opened: the page's and `inkling today`'s
/// Today, and what the daily review counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemindersAnswer {
    /// The time asked for (RFC 3339, UTC).
    pub until: String,
    /// The time of the answer: a reminder at or before it is due (RFC 3339, UTC).
    pub now: String,
    pub reminders: Vec<NoteView>,
    /// Active notes captured yesterday (in the service's time zone) never opened,
    /// oldest first. Absent in an older service's answer: none.
    #[serde(default)]
    pub unopened: Vec<NoteView>,
    /// More reminders than one answer lists ([`MAX_REMINDERS`]) are due up to `until`:
    /// `reminders` holds the earliest. Absent in an older service's answer: none.
    #[serde(default)]
    pub more: bool,
}
