//! The worker's waits, as pure arithmetic over the configured schedules
//! (docs/DESIGN.md, "The worker policy"); [`super::core`] decides which one applies.
//!
//! Two independent counters:
//! - the worker-wide **outage step**: consecutive unreachable/timeout failures, which
//!   park the whole worker (the provider is down for every job). It picks the wait
//!   from `worker.unreachable_backoffs_ms` (30 s → … → 900 s, the last repeating),
//!   goes up by one per failure, and goes back to 0 only on a success;
//! - the per-job **attempts**: schema/other failures of that note. After failure n
//!   (n < max) the job waits `worker.retry_backoffs_ms[n]`; failure `max_attempts`
//!   marks the note failed.
//!
//! And one more wait, for the disk rather than the provider: after answers were lost
//! because the database could not be written, [`storage_wait`].

use std::time::Duration;

/// The wait at outage step `step`: the schedule's entry, its last one past the end.
pub fn outage_backoff(step: usize, schedule_ms: &[u64]) -> Duration {
    let index = step.min(schedule_ms.len().saturating_sub(1));
    Duration::from_millis(schedule_ms.get(index).copied().unwrap_or(0))
}

/// The step after one more consecutive outage failure; it stops at the schedule's end.
pub fn next_outage_step(step: usize, schedule_ms: &[u64]) -> usize {
    (step + 1).min(schedule_ms.len().saturating_sub(1))
}

/// The wait before attempt `attempts + 1`, after `attempts` counted failures.
/// `retry_backoffs_ms[0]` is the wait before the first attempt (0: at once).
pub fn retry_backoff(attempts: u32, retry_backoffs_ms: &[u64]) -> Duration {
    let index = (attempts as usize).min(retry_backoffs_ms.len().saturating_sub(1));
    Duration::from_millis(retry_backoffs_ms.get(index).copied().unwrap_or(0))
}

/// The deadline of a note's call after `slow_timeouts` timeouts while Ollama was up:
/// the configured one, doubled per such timeout, at most `longest`.
pub fn slow_note_deadline(slow_timeouts: u32, first: Duration, longest: Duration) -> Duration {
    first
        .saturating_mul(1u32 << slow_timeouts.min(16))
        .min(longest)
        .max(first)
}

/// The first wait after an answer was lost to disk trouble (a full or read-only disk).
const FIRST_STORAGE_WAIT: Duration = Duration::from_secs(30);
/// The longest: a disk full for a day costs one provider call per 5 minutes.
const LONGEST_STORAGE_WAIT: Duration = Duration::from_secs(300);

/// How long the worker makes no call after the `lost_saves`-th answer in a row was lost
/// because the database could not be written: 30 s, doubling, at most 5 min. Each call
/// in that state buys an answer that is likely thrown away, so a long disk problem
/// should cost few of them; the worker does not wait this out when a write elsewhere
/// (a capture) shows the disk is back.
pub fn storage_wait(lost_saves: u32) -> Duration {
    let doublings = lost_saves.saturating_sub(1).min(16);
    FIRST_STORAGE_WAIT
        .saturating_mul(1 << doublings)
        .min(LONGEST_STORAGE_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTAGE: [u64; 6] = [30_000, 60_000, 120_000, 240_000, 480_000, 900_000];

    #[test]
    fn a_slow_notes_deadline_doubles_per_timeout_up_to_the_longest() {
        let (first, longest) = (Duration::from_secs(120), Duration::from_secs(600));
        let deadlines: Vec<u64> = (0..6)
            .map(|n| slow_note_deadline(n, first, longest).as_secs())
            .collect();
        assert_eq!(deadlines, [120, 240, 480, 600, 600, 600]);
        assert_eq!(slow_note_deadline(40, first, longest), longest);
    }

    #[test]
    fn the_outage_step_walks_the_schedule_and_stays_on_its_last_wait() {
        let mut step = 0;
        let mut waits = Vec::new();
        for _ in 0..9 {
            waits.push(outage_backoff(step, &OUTAGE).as_secs());
            step = next_outage_step(step, &OUTAGE);
        }
        assert_eq!(waits, [30, 60, 120, 240, 480, 900, 900, 900, 900]);
        assert_eq!(step, 5, "the step caps at the schedule's last entry");
    }

    #[test]
    fn a_short_retry_schedule_repeats_its_last_wait() {
        assert_eq!(retry_backoff(7, &[0, 5]), Duration::from_millis(5));
        assert_eq!(outage_backoff(99, &[10]), Duration::from_millis(10));
        assert_eq!(
            retry_backoff(1, &[]),
            Duration::ZERO,
            "an empty schedule waits not at all"
        );
    }

    #[test]
    fn answers_lost_to_the_disk_wait_30_60_120_240_then_300_s() {
        let waits: Vec<u64> = (1..=7).map(|n| storage_wait(n).as_secs()).collect();
        assert_eq!(waits, [30, 60, 120, 240, 300, 300, 300]);
        assert_eq!(storage_wait(u32::MAX), Duration::from_secs(300));
        assert_eq!(storage_wait(0), Duration::from_secs(30), "as for the first");
    }
}
