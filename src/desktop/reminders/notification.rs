//! What a reminder's notification says, as plain data: a notice of the due-time policy
//! (`crate::reminders::due::Notice`) in the person's words, with its buttons. No D-Bus
//! here: the notifier (`notifier.rs`) shows it.

use chrono::{DateTime, TimeZone, Utc};

use crate::reminders::due::Notice;
use crate::words::{fill, Words};

/// The button's key for "dealt with" (the spec's action keys are ours to name).
pub const DONE: &str = "done";
/// The button's key for an hour later.
pub const SNOOZE: &str = "snooze";
/// The notification clicked, or its Open button: the spec's default action.
pub const OPEN: &str = "default";

/// One desktop notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub summary: String,
    pub body: String,
    /// (key, label) pairs, in the order shown.
    pub actions: Vec<(String, String)>,
    /// The notes it is about (one for a reminder, several for a summary).
    pub notes: Vec<String>,
}

/// `notice` in `words`, times on the wall clock of `zone`.
pub fn notification<Tz: TimeZone>(notice: &Notice, words: &Words, zone: &Tz) -> Notification
where
    Tz::Offset: std::fmt::Display,
{
    let buttons = |all: bool| {
        let mut actions = vec![(OPEN.to_string(), words.reminder_open.to_string())];
        if all {
            actions.push((DONE.to_string(), words.reminder_done.to_string()));
            actions.push((SNOOZE.to_string(), words.reminder_snooze.to_string()));
        }
        actions
    };
    match notice {
        Notice::Due { note_id, title, .. } => Notification {
            summary: words.reminder_due.to_string(),
            body: title.clone(),
            actions: buttons(true),
            notes: vec![note_id.clone()],
        },
        Notice::Overdue { note_id, title, at } => Notification {
            summary: fill(words.reminder_overdue, &[("at", &wall_clock(*at, zone))]),
            body: title.clone(),
            actions: buttons(true),
            notes: vec![note_id.clone()],
        },
        Notice::Summary {
            due,
            overdue,
            note_ids,
        } => Notification {
            summary: fill(
                words.reminder_summary,
                &[("due", due), ("overdue", overdue)],
            ),
            body: String::new(),
            // Done or an hour later for many at once is the page's to do, one by one.
            actions: buttons(false),
            notes: note_ids.clone(),
        },
    }
}

/// The daily review: `due` reminders due today, `unopened` notes from yesterday never
/// opened; its one button opens the page.
pub fn review(due: u64, unopened: u64, words: &Words) -> Notification {
    Notification {
        summary: words.review_title.to_string(),
        body: fill(words.review_body, &[("due", &due), ("captured", &unopened)]),
        actions: vec![(OPEN.to_string(), words.reminder_open.to_string())],
        notes: Vec::new(),
    }
}

fn wall_clock<Tz: TimeZone>(at: DateTime<Utc>, zone: &Tz) -> String
where
    Tz::Offset: std::fmt::Display,
{
    at.with_timezone(zone).format("%a %d %b %H:%M").to_string()
}

#[cfg(test)]
mod tests;
