//! What holds the whole worker back ([`Waits`]): the park after the provider's outage
//! (and how far along its schedule the outages in a row have come), and the wait after
//! answers lost to disk trouble. While either runs, no background call starts; a
//! person's question is not held by them (`super::lanes`).

use chrono::{DateTime, Utc};

/// The worker-wide park after an outage failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Park {
    pub(super) until: DateTime<Utc>,
    /// The index in `worker.unreachable_backoffs_ms` of the wait being served.
    pub(super) step: usize,
}

/// Answers lost in a row because the database could not be written, and until when
/// the worker makes no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DiskTrouble {
    pub(super) lost_saves: u32,
    pub(super) retry_at: DateTime<Utc>,
}

/// The worker-wide waits.
#[derive(Debug, Default)]
pub(super) struct Waits {
    pub(super) parked: Option<Park>,
    /// Consecutive unreachable/timeout failures (capped); reset by a success only.
    pub(super) outage_step: usize,
    /// `Some` from an answer lost to disk trouble until the next save that succeeds.
    pub(super) disk_trouble: Option<DiskTrouble>,
}

impl Waits {
    /// Until when answers lost to disk trouble hold the worker back, if they still do.
    pub(super) fn storage_wait_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.disk_trouble
            .map(|trouble| trouble.retry_at)
            .filter(|retry_at| *retry_at > now)
    }

    /// Until when the outage park holds the worker back, if it still does; a park that
    /// has run out ends here.
    pub(super) fn parked_until(&mut self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let park = self.parked?;
        if park.until > now {
            return Some(park.until);
        }
        self.parked = None;
        None
    }
}
