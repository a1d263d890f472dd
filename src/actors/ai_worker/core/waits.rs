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
mod tests {
    use super::super::test_fixture::t;
    use super::*;

    #[test]
    fn a_park_holds_until_its_time_and_the_steps_go_on_until_an_answer() {
        let mut waits = Waits::default();
        waits.park(t(30), 1);
        assert_eq!(waits.parked_until(t(10)), Some(t(30)));
        assert_eq!(waits.parked_until(t(30)), None, "over at its time");
        assert_eq!(waits.parked, None);
        waits.park(t(90), 2);
        assert_eq!(waits.parked.map(|park| park.step), Some(1));
        assert!(waits.provider_answered());
        assert!(!waits.provider_answered(), "already at the first wait");
    }

    #[test]
    fn answers_lost_in_a_row_wait_longer_and_a_write_elsewhere_ends_the_wait() {
        let mut waits = Waits::default();
        let (first, lost) = waits.answer_lost(t(0)).expect("a wait starts");
        assert_eq!(lost, 1);
        assert_eq!(waits.answer_lost(t(1)), None, "the same stretch");
        assert!(waits.storage_may_be_back(t(2)));
        assert_eq!(waits.storage_wait_until(t(2)), None);
        let (second, lost) = waits.answer_lost(t(3)).expect("a longer wait");
        assert_eq!(lost, 2);
        assert!(second - t(3) > first - t(0));
    }
}
