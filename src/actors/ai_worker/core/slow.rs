//! A slow note: a call that ran out of time while Ollama was up is the note's own,
//! not an outage. The others go first, and it is tried again later with a longer
//! deadline, never failed; after [`SLOW_AFTER_TIMEOUTS`] it is shown as slow.

use chrono::{DateTime, Utc};

use super::super::backoff::retry_backoff;
use super::knowledge::Warmth;
use super::rules::after;
use super::state::WorkerCore;
use super::{Effect, SlowNote};

/// After this many timeouts while Ollama was up, a note is shown as slow, with what to do.
pub const SLOW_AFTER_TIMEOUTS: u32 = 3;
use crate::ai::{FailureReason, ProviderHealth};
use crate::domain::{timestamp, WaitReason};

impl WorkerCore {
    /// The answer to [`Effect::CheckHealth`] after a call ran out of time. Ollama up with
    /// the model: the note is slow. It goes behind the others (a wait from
    /// `worker.retry_backoffs_ms` by its count of such timeouts) with twice the deadline
    /// next time, up to `ollama.max_request_timeout_ms`; no attempt is counted, the
    /// worker does not park, and the next due note runs at once. Otherwise the provider
    /// is down (or its model gone) and the worker parks as for any outage.
    pub fn timeout_checked(
        &mut self,
        note_id: String,
        error: String,
        health: ProviderHealth,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        if !health.is_ready() {
            self.model.warmth = Warmth::Cold;
            self.model.health = Some(health);
            return self.apply_failure(note_id, FailureReason::Timeout, error, true, now);
        }
        self.model.health = Some(health);
        self.model_used(now);
        if self.flight.requeued || !self.queues.jobs.contains(&note_id) {
            tracing::info!(%note_id, "slow call of a note queued again or trashed meanwhile; not counted");
            return self.finish(now);
        }
        let slow_timeouts = self
            .queues
            .jobs
            .get(&note_id)
            .map_or(0, |job| job.slow_timeouts)
            .saturating_add(1);
        let next_run_at = after(
            now,
            retry_backoff(slow_timeouts, &self.rules.schedule.retry_backoffs_ms),
        );
        let next_deadline = self.deadline_for(slow_timeouts);
        tracing::warn!(%note_id, slow_timeouts, next_run_at = %timestamp(next_run_at),
            next_deadline_ms = next_deadline.as_millis() as u64,
            "a note took longer than its deadline while the model server is up; the others go first");
        self.queues.jobs.set_slow_timeouts(&note_id, slow_timeouts);
        self.queues
            .jobs
            .reschedule(&note_id, next_run_at, Some(WaitReason::Retry));
        let mut effects = vec![Effect::StoreSlowTimeout {
            note_id: note_id.clone(),
            next_run_at,
            slow_timeouts,
            last_error: error,
        }];
        if slow_timeouts >= SLOW_AFTER_TIMEOUTS {
            effects.push(Effect::AnnounceSlow(self.slow_note(note_id, slow_timeouts)));
        }
        effects.extend(self.finish(now));
        effects
    }

    /// What is said about a slow note.
    pub(super) fn slow_note(&self, note_id: String, timeouts: u32) -> SlowNote {
        SlowNote {
            note_id,
            timeouts,
            request_timeout_ms: self.rules.request_timeout.as_millis() as u64,
            next_deadline_ms: self.deadline_for(timeouts).as_millis() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;

    #[test]
    fn a_timeout_with_ollama_up_is_the_notes_own_the_others_go_on_and_its_deadline_doubles() {
        let mut core = started();
        let effects = core.enqueued(vec!["long".into(), "short".into()], t(0), t(0));
        let (id, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!((id.as_str(), plan.deadline.as_secs()), ("long", 120));
        let effects = untimed(core.call_failed("long".into(), timed_out(), t(120)));
        assert!(
            matches!(&effects[..], [Effect::CheckHealth { note_id, .. }] if note_id == "long"),
            "asks the monitor first: {effects:?}"
        );
        assert!(
            core.status(t(120)).state
                == WorkerState::Running {
                    note_id: "long".into()
                }
        );

        let effects = core.timeout_checked("long".into(), "timeout: x".into(), up(), t(120));
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::StoreSlowTimeout {
            note_id, slow_timeouts: 1, next_run_at, ..
        } if note_id == "long" && *next_run_at == t(150))),
            "{effects:?}"
        );
        assert!(!effects.contains(&Effect::SuspectDown), "not an outage");
        let (id, _) = plan_of(&mut core, effects, t(120));
        assert_eq!(id, "short", "the next note runs at once: no park");
        assert_eq!(core.queues.jobs.attempts("long"), 0, "no attempt counted");

        // Its next tries: 240 s, then 480, then 600 (the longest), each after a wait.
        let effects = core.answered("short".into(), enrichment(), 5, t(121));
        assert_eq!(wake_of(&effects), Some(Some(t(150))));
        let mut now = t(150);
        for (deadline, wait) in [(240, 120), (480, 120), (600, 120)] {
            let woke = core.woke(now);
            let (id, plan) = plan_of(&mut core, woke, now);
            assert_eq!((id.as_str(), plan.deadline.as_secs()), ("long", deadline));
            now += TimeDelta::seconds(deadline as i64);
            core.call_failed("long".into(), timed_out(), now);
            let effects = core.timeout_checked("long".into(), "timeout: x".into(), up(), now);
            now += TimeDelta::seconds(wait);
            assert_eq!(wake_of(&effects), Some(Some(now)));
        }
        assert_eq!(
            core.queues.jobs.attempts("long"),
            0,
            "never an attempt, never failed"
        );
        assert_eq!(
            core.status(now).slow_notes,
            [SlowNote {
                note_id: "long".into(),
                timeouts: 4,
                request_timeout_ms: 120_000,
                next_deadline_ms: 600_000,
            }],
            "shown as slow after three"
        );
    }

    #[test]
    fn a_timeout_with_ollama_down_parks_the_worker_as_before() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        core.call_failed("a".into(), timed_out(), t(120));
        let effects = core.timeout_checked("a".into(), "timeout: x".into(), down(), t(120));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::StoreNextRun { at, .. } if *at == t(150))));
        write_answered(&mut core, &effects, t(120));
        assert!(matches!(
            core.status(t(121)).state,
            WorkerState::Parked { step: 0, .. }
        ));
        assert_eq!(core.queues.jobs.get("a").map(|j| j.slow_timeouts), Some(0));
    }
}
