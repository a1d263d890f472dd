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
mod tests {
    use super::*;
    use crate::words::Locale;

    #[test]
    fn each_notice_reads_in_the_person_s_words() {
        let at = DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let en = crate::words::words(Locale::En);
        let due = notification(
            &Notice::Due {
                note_id: "a".into(),
                title: "call the plumber".into(),
                at,
            },
            en,
            &Utc,
        );
        assert_eq!(due.summary, "Reminder");
        assert_eq!(due.body, "call the plumber");
        let keys: Vec<&str> = due.actions.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, [OPEN, DONE, SNOOZE]);
        assert_eq!(due.actions[2].1, "Snooze 1 h");
        let seoul = chrono::FixedOffset::east_opt(9 * 3600).unwrap();
        let ko = crate::words::words(Locale::Ko);
        let overdue = notification(
            &Notice::Overdue {
                note_id: "a".into(),
                title: "배관공".into(),
                at,
            },
            ko,
            &seoul,
        );
        assert_eq!(overdue.summary, "Tue 01 Dec 18:00부터 지남");
        let summary = notification(
            &Notice::Summary {
                due: 0,
                overdue: 5,
                note_ids: vec!["a".into(), "b".into()],
            },
            en,
            &Utc,
        );
        assert_eq!(summary.summary, "0 reminders due, 5 overdue");
        assert_eq!(summary.actions.len(), 1, "open only");
        assert_eq!(summary.notes, ["a", "b"]);
        let review = review(3, 5, en);
        assert_eq!(
            (review.summary.as_str(), review.body.as_str()),
            ("Daily review", "3 due today, 5 notes from yesterday")
        );
    }
}
