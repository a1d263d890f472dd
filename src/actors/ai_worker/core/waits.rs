//! What holds the whole worker back ([`Waits`]): the park after the provider's outage
//! (and how far along its schedule the outages in a row have come), and the wait after
//! answers lost to disk trouble. While either runs, no background call starts; a
//! person's question is not held by them (`super::lanes`).

use chrono::{DateTime, Utc};

use super::super::backoff::storage_wait;
use super::rules::after;

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
    /// A look asked for at once after a refused call (`super::look`), not answered yet.
    pub(super) looking: bool,
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

    /// The provider is down: the worker parks until `until`, serving the current step
    /// of the outage schedule; the next outage in a row serves `next_step`.
    pub(super) fn park(&mut self, until: DateTime<Utc>, next_step: usize) {
        self.parked = Some(Park {
            until,
            step: self.outage_step,
        });
        self.outage_step = next_step;
    }

    /// The provider answered: the outage schedule starts again from its first wait
    /// (`true`: it had moved on).
    pub(super) fn provider_answered(&mut self) -> bool {
        std::mem::take(&mut self.outage_step) > 0
    }

    /// A write elsewhere succeeded: the disk may have room again, so a disk-trouble
    /// wait still running ends now (`true`). The count of lost answers stays: if the
    /// next is lost too, the wait grows from where it was.
    pub(super) fn storage_may_be_back(&mut self, now: DateTime<Utc>) -> bool {
        match self.disk_trouble.as_mut() {
            Some(trouble) if trouble.retry_at > now => {
                trouble.retry_at = now;
                true
            }
            _ => false,
        }
    }

    /// An answer was lost to the disk: the wait it starts, longer with each answer
    /// lost in a row ([`storage_wait`]), and how many that makes; `None` when a wait is
    /// already running (an answer saved beside the next call, lost in the same stretch).
    pub(super) fn answer_lost(&mut self, now: DateTime<Utc>) -> Option<(DateTime<Utc>, u32)> {
        if self.storage_wait_until(now).is_some() {
            return None;
        }
        let lost_saves = self
            .disk_trouble
            .map_or(0, |trouble| trouble.lost_saves)
            .saturating_add(1);
        let until = after(now, storage_wait(lost_saves));
        self.disk_trouble = Some(DiskTrouble {
            lost_saves,
            retry_at: until,
        });
        Some((until, lost_saves))
    }
}

#[cfg(test)]
mod tests;
