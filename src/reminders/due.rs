//! Which reminders to show at a moment, as a plain function ([`decide`]) the reminder
//! actor carries out.
//!
//! The rules (docs/DESIGN.md, "Reminders"): a reminder is shown once for each time it
//! is set to (the store keeps which time was shown, so a restart does not show it
//! again); one whose time passed while the service was stopped or the machine slept is
//! shown once when it is back; one missed by more than [`LATE`] is shown as overdue,
//! and several such are one summary, not a burst; more than [`AT_ONCE`] due together
//! are one summary too. All in UTC instants: a change of time zone or a daylight-saving
//! change moves no reminder.

use chrono::{DateTime, Duration, Utc};

use super::ReminderState;

/// Missed by more than this, a reminder is overdue rather than due.
pub const LATE: Duration = Duration::hours(1);
/// More reminders than this due at one look are one summary.
pub const AT_ONCE: usize = 3;
/// The longest the actor waits between two looks, whatever is next: a timer does not
/// run while the machine sleeps, and the wall clock can be set; a look a minute bounds
/// how late either makes a reminder.
pub const LONGEST_WAIT: Duration = Duration::minutes(1);

/// A reminder not yet shown for its time, as the store reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub note_id: String,
    /// What the notification says: the note's title, else its first line.
    pub title: String,
    pub remind_at: DateTime<Utc>,
    pub state: ReminderState,
}

/// One notification to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A reminder at its time (or late by at most [`LATE`]).
    Due {
        note_id: String,
        title: String,
        at: DateTime<Utc>,
    },
    /// One reminder missed by more than [`LATE`] (the service was stopped, the machine
    /// asleep).
    Overdue {
        note_id: String,
        title: String,
        at: DateTime<Utc>,
    },
    /// Many at once: how many are due and overdue, and which notes.
    Summary {
        due: usize,
        overdue: usize,
        note_ids: Vec<String>,
    },
}

/// What to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub show: Vec<Notice>,
    /// The reminders shown, each with the time it was shown for: the store keeps it,
    /// so it is never shown again for that time.
    pub shown: Vec<(String, DateTime<Utc>)>,
    /// When to look again.
    pub next_look: DateTime<Utc>,
}

/// What to show at `now` of `pending` (the reminders not yet shown for their time,
/// done ones left out by the store; any still to come only set the next look).
pub fn decide(now: DateTime<Utc>, pending: &[Pending]) -> Decision {
    let (arrived, to_come): (Vec<&Pending>, Vec<&Pending>) = pending
        .iter()
        .filter(|p| p.state.is_pending())
        .partition(|p| p.remind_at <= now);
    let (late, on_time): (Vec<&Pending>, Vec<&Pending>) =
        arrived.iter().partition(|p| now - p.remind_at > LATE);
    let mut show = Vec::new();
    if on_time.len() > AT_ONCE {
        show.push(summary(on_time.len(), 0, &on_time));
    } else {
        show.extend(on_time.iter().map(|p| Notice::Due {
            note_id: p.note_id.clone(),
            title: p.title.clone(),
            at: p.remind_at,
        }));
    }
    match late.as_slice() {
        [] => {}
        [one] => show.push(Notice::Overdue {
            note_id: one.note_id.clone(),
            title: one.title.clone(),
            at: one.remind_at,
        }),
        many => show.push(summary(0, many.len(), many)),
    }
    let shown = arrived
        .iter()
        .map(|p| (p.note_id.clone(), p.remind_at))
        .collect();
    let next_look = to_come
        .iter()
        .map(|p| p.remind_at)
        .min()
        .map_or(now + LONGEST_WAIT, |at| at.min(now + LONGEST_WAIT));
    Decision {
        show,
        shown,
        next_look,
    }
}

fn summary(due: usize, overdue: usize, of: &[&Pending]) -> Notice {
    Notice::Summary {
        due,
        overdue,
        note_ids: of.iter().map(|p| p.note_id.clone()).collect(),
    }
}

#[cfg(test)]
mod tests;
