//! Reminders by hand: a note's reminder set, cleared, done or snoozed (or the AI's
//! suggestion accepted or dismissed), the reminders up to a time, and Today's notes
//! from yesterday never opened (docs/DESIGN.md, "Reminders"). What a change means is
//! `crate::reminders::ReminderChange`; the store keeps it.

use chrono::{DateTime, Utc};

use super::{unavailable, Inbox};
use crate::actors::repository::{
    CountDue, GetPendingReminders, GetReviewFacts, ListReminders, ListUnopened, MarkOpened,
    MarkRemindersShown, MarkReviewShown, SetReminder,
};
use crate::domain::Note;
use crate::reminders::due::Pending;
use crate::reminders::ReminderChange;
use crate::storage::{ReviewFacts, StoreResult};

impl Inbox {
    /// Changes a note's reminder; replies with the note as it is now (the live page
    /// hears of it as of any write). The reminder actor finds the new time at its next
    /// look, a minute at most.
    pub async fn set_reminder(&self, id: String, change: ReminderChange) -> StoreResult<Note> {
        let now = self.clock.now();
        self.repository
            .send(SetReminder { id, change, now })
            .await
            .map_err(unavailable)?
    }

    /// The first `limit` reminders not done up to `until`, earliest first.
    pub async fn reminders_until(
        &self,
        until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<Note>> {
        self.repository
            .send(ListReminders { until, limit })
            .await
            .map_err(unavailable)?
    }

    /// How many reminders not done there are up to `until`.
    pub async fn due_count(&self, until: DateTime<Utc>) -> StoreResult<u64> {
        self.repository
            .send(CountDue { until })
            .await
            .map_err(unavailable)?
    }

    /// The notes captured from `from` up to `to` (yesterday) that nobody opened.
    pub async fn unopened_between(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<Vec<Note>> {
        self.repository
            .send(ListUnopened { from, to })
            .await
            .map_err(unavailable)?
    }

    /// Keeps that a person opened the note now (the page's note view).
    pub async fn mark_opened(&self, id: String) -> StoreResult<Note> {
        let now = self.clock.now();
        self.repository
            .send(MarkOpened { id, now })
            .await
            .map_err(unavailable)?
    }

    /// For the reminder actor: the reminders not yet shown for their time at `now`,
    /// and the next to come.
    pub async fn pending_reminders(&self, now: DateTime<Utc>) -> StoreResult<Vec<Pending>> {
        self.repository
            .send(GetPendingReminders { now })
            .await
            .map_err(unavailable)?
    }

    /// Keeps which time each reminder was shown for: not shown again for it.
    pub async fn mark_reminders_shown(
        &self,
        shown: Vec<(String, DateTime<Utc>)>,
    ) -> StoreResult<()> {
        self.repository
            .send(MarkRemindersShown { shown })
            .await
            .map_err(unavailable)?
    }

    /// The daily review's facts: reminders due up to `due_until`, notes captured from
    /// `from` up to `to`, and the day it was last shown.
    pub async fn review_facts(
        &self,
        due_until: DateTime<Utc>,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> StoreResult<ReviewFacts> {
        self.repository
            .send(GetReviewFacts {
                due_until,
                from,
                to,
            })
            .await
            .map_err(unavailable)?
    }

    /// Keeps the day (`YYYY-MM-DD`) the daily review was shown.
    pub async fn mark_review_shown(&self, day: String) -> StoreResult<()> {
        self.repository
            .send(MarkReviewShown { day })
            .await
            .map_err(unavailable)?
    }

    /// The clock the use cases read "now" from.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}
