//! What a failed call does: the provider's outage parks the whole worker (its
//! schedule, the resume when the provider is ready again), the note's own failure
//! (schema, other) counts an attempt and waits, and the last attempt marks the note
//! failed. [`decide`] is the policy as a plain function.

use chrono::{DateTime, Utc};

use super::super::backoff::{next_outage_step, outage_backoff, retry_backoff};
use super::super::queue::QueuedJob;
use super::knowledge::Warmth;
use super::look::looks_at_once;
use super::rules::{after, STORAGE_RETRY_DELAY};
use super::state::WorkerCore;
use super::{Effect, Failure, MarkOutcome};
use crate::ai::{classify_reason, FailureReason, ProviderError, ProviderHealth};
use crate::api::worker::ModelUse;
use crate::configuration::WorkerSettings;
use crate::domain::{timestamp, WaitReason};

/// What the policy does with one failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureDecision {
    /// Unreachable, timeout with Ollama down, model missing: park the whole worker for
    /// `wait`, then probe again; the job's attempts are untouched and it is never
    /// failed for this.
    ParkWorker {
        wait: std::time::Duration,
        next_step: usize,
    },
    /// Schema/other, attempts left: the job waits `wait`; the count becomes `attempts`.
    RetryJobLater {
        wait: std::time::Duration,
        attempts: u32,
    },
    /// Schema/other, no attempts left: mark the note failed after `attempts` attempts.
    GiveUp { attempts: u32 },
}

/// The policy's decision for one failure of a job that had `attempts_before`
/// counted failures, with the worker at outage step `outage_step`.
pub fn decide(
    reason: FailureReason,
    outage_step: usize,
    attempts_before: u32,
    rules: &WorkerSettings,
) -> FailureDecision {
    if reason.is_provider_outage() {
        return FailureDecision::ParkWorker {
            wait: outage_backoff(outage_step, &rules.unreachable_backoffs_ms),
            next_step: next_outage_step(outage_step, &rules.unreachable_backoffs_ms),
        };
    }
    let attempts = attempts_before.saturating_add(1);
    if attempts >= rules.max_attempts {
        FailureDecision::GiveUp { attempts }
    } else {
        FailureDecision::RetryJobLater {
            wait: retry_backoff(attempts, &rules.retry_backoffs_ms),
            attempts,
        }
    }
}

impl WorkerCore {
    /// The provider was seen healthy by hand (recheck, retry-all): resume at once.
    pub fn resume_requested(&mut self, why: &'static str, now: DateTime<Utc>) -> Vec<Effect> {
        self.resume(why, now)
    }

    /// The health monitor announced the provider's health. Ready (from anything else)
    /// resumes at once, and first requeues notes that failed only for a missing model;
    /// not running cools the model (Ollama restarted or went away); a missing model
    /// holds every call until it is there.
    pub fn health_changed(&mut self, health: ProviderHealth, now: DateTime<Utc>) -> Vec<Effect> {
        let was_ready = self.provider_ready();
        let was_known = self.model.health.is_some();
        if !health.is_ready() {
            self.model.warmth = Warmth::Cold;
        }
        self.model.health = Some(health);
        if self.provider_ready() {
            let mut effects = Vec::new();
            if !was_ready {
                // Back, perhaps restarted with another model or context: what was
                // learned of the model is learned again.
                self.model.back(now);
                effects.push(Effect::RequeueModelMissingFailures);
            }
            effects.extend(self.resume("the health monitor sees the provider ready", now));
            effects
        } else if !was_known {
            // The first check answered: the worker may start (and probe, if down).
            self.schedule(now)
        } else {
            Vec::new()
        }
    }

    /// A provider call failed. Its reason decides ([`classify_reason`]); a call that ran
    /// out of our time is first judged by a health check ([`Effect::CheckHealth`]).
    pub fn call_failed(
        &mut self,
        note_id: String,
        failure: ProviderError,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let reason = classify_reason(&failure);
        let error = format!("{}: {failure}", reason.as_str());
        tracing::info!(%note_id, reason = reason.as_str(), %error, "provider call failed");
        let ms = self.model_ms(now);
        let mut effects = self.spent(ModelUse::of_failure(reason), ms);
        if matches!(failure, ProviderError::TimedOut(_)) {
            // Hung up: the stream's connection closed, the server stops (counted, and
            // measured on the next call).
            self.model.hung_up();
            // Slow note or Ollama down? The monitor looks now; the call stays in
            // flight until it has answered.
            effects.push(Effect::CheckHealth { note_id, error });
            return effects;
        }
        if !reason.is_provider_outage() {
            // Ollama answered: the model is loaded now.
            self.model_used(now);
        }
        if self.flight.requeued && !reason.is_provider_outage() {
            // About a body the note may no longer have; its new job stands as queued.
            tracing::info!(%note_id, "the note was queued again meanwhile; the failure is not counted");
            effects.extend(self.finish(now));
            return effects;
        }
        let look = looks_at_once(reason, self.waits.outage_step);
        self.waits.looking = look;
        let failed = self.apply_failure(note_id.clone(), reason, error, true, now);
        effects.extend(failed.into_iter().map(|effect| match effect {
            Effect::SuspectDown if look => Effect::LookNow,
            effect => effect,
        }));
        if let ProviderError::Unusable(refused) = failure {
            if self.queues.jobs.contains(&note_id) {
                self.queues.refused.insert(note_id, refused);
            }
        }
        effects
    }

    /// The answer to [`Effect::StoreNextRun`] or [`Effect::StoreAttempt`]. A failed
    /// write is only logged: the job keeps its previous row, which at worst makes it
    /// due a little early after a restart.
    pub fn write_done(&mut self, ends_call: bool, now: DateTime<Utc>) -> Vec<Effect> {
        if ends_call {
            self.finish(now)
        } else {
            Vec::new()
        }
    }

    /// The answer to [`Effect::MarkFailed`].
    pub fn marked_failed(
        &mut self,
        failure: Failure,
        outcome: MarkOutcome,
        ends_call: bool,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let mut effects = Vec::new();
        match outcome {
            MarkOutcome::Marked(_) => {
                tracing::info!(note_id = %failure.note_id, attempts = failure.attempts, "note marked failed");
                effects.push(Effect::AnnounceFailed { failure });
            }
            MarkOutcome::NoteGone => {}
            MarkOutcome::Refused(error) => {
                // Still pending in the database: keep it queued, try later (unless a
                // retry-all queued it afresh meanwhile: that entry stands).
                tracing::error!(note_id = %failure.note_id, %error,
                    "cannot mark the note failed; trying again later");
                if !self.queues.jobs.contains(&failure.note_id) {
                    self.queues.jobs.upsert(
                        failure.note_id,
                        QueuedJob {
                            attempts: failure.attempts.saturating_sub(1),
                            wait_reason: Some(WaitReason::Retry),
                            // A failure being written: never a fresh note.
                            queued_at: DateTime::<Utc>::MIN_UTC,
                            ..QueuedJob::fresh(now + STORAGE_RETRY_DELAY)
                        },
                    );
                }
            }
            MarkOutcome::RepositoryGone => tracing::warn!("repository gone"),
        }
        if ends_call {
            effects.extend(self.finish(now));
        }
        effects
    }

    /// The provider is healthy: jobs parked by the outage are due now; jobs waiting
    /// out their own retry delay keep their time. The outage step is kept until a real
    /// success resets it.
    pub(super) fn resume(&mut self, why: &'static str, now: DateTime<Utc>) -> Vec<Effect> {
        for note_id in self.queues.jobs.waiting_on_provider(now) {
            self.queues
                .jobs
                .reschedule(&note_id, now, Some(WaitReason::Provider));
        }
        if self.waits.parked.take().is_some() {
            tracing::info!(why, "resuming: the provider is healthy again");
        }
        self.embedding.provider_ready();
        self.schedule(now)
    }

    /// What the policy does with one failure of a queued job ([`decide`]): park the
    /// worker (unreachable/timeout), or count an attempt and retry the job later, or
    /// mark the note failed after its last attempt. The queue is updated at once, the
    /// database write follows; `ends_call` says whether that write ends the call in
    /// flight (a refused save runs beside the next call, so it does not).
    pub(super) fn apply_failure(
        &mut self,
        note_id: String,
        reason: FailureReason,
        error: String,
        ends_call: bool,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let attempts_before = self.queues.jobs.attempts(&note_id);
        let decision = decide(
            reason,
            self.waits.outage_step,
            attempts_before,
            &self.rules.schedule,
        );
        tracing::info!(%note_id, reason = reason.as_str(), ?decision, "failure decided");
        match decision {
            FailureDecision::ParkWorker { wait, next_step } => {
                let until = after(now, wait);
                tracing::info!(until = %timestamp(until), step = self.waits.outage_step,
                    "provider unavailable; worker parked");
                self.waits.park(until, next_step);
                // Ollama restarted or went away: the model needs loading again.
                self.model.warmth = Warmth::Cold;
                self.queues
                    .jobs
                    .reschedule(&note_id, until, Some(WaitReason::Provider));
                vec![
                    Effect::SuspectDown,
                    Effect::StoreNextRun {
                        note_id,
                        at: until,
                        last_error: error,
                        ends_call,
                    },
                ]
            }
            FailureDecision::RetryJobLater { wait, attempts } => {
                let at = after(now, wait);
                self.queues.jobs.set_attempts(&note_id, attempts);
                self.queues
                    .jobs
                    .reschedule(&note_id, at, Some(WaitReason::Retry));
                vec![Effect::StoreAttempt {
                    note_id,
                    next_run_at: at,
                    last_error: error,
                    ends_call,
                }]
            }
            FailureDecision::GiveUp { attempts } => {
                // Out of the queue before the database says "failed": a retry-all that
                // requeues the note in between then adds a fresh entry that stays.
                self.drop_job(&note_id);
                vec![Effect::MarkFailed {
                    failure: Failure {
                        note_id,
                        reason,
                        attempts,
                        error,
                    },
                    ends_call,
                }]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    #[test]
    fn unreachable_parks_the_worker_30_60_120_240_480_900_capped_never_counting_an_attempt() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let mut now = t(0);
        let mut waits = Vec::new();
        for _ in 0..8 {
            let effects = core.call_failed(
                "a".into(),
                failure(FailureReason::Unreachable, "refused"),
                now,
            );
            // The first in a row looks at once (`look.rs`; here nothing answers it).
            let told = if waits.is_empty() {
                Effect::LookNow
            } else {
                Effect::SuspectDown
            };
            assert!(effects.contains(&told), "{effects:?}");
            let Some(Effect::StoreNextRun {
                at,
                last_error,
                ends_call,
                ..
            }) = effects
                .iter()
                .find(|e| matches!(e, Effect::StoreNextRun { .. }))
                .cloned()
            else {
                panic!("the park is stored: {effects:?}")
            };
            assert!(ends_call);
            assert_eq!(last_error, "unreachable: refused");
            waits.push((at - now).num_seconds());
            let effects = core.write_done(true, now);
            assert_eq!(effects, [Effect::Wake(Some(at))], "one probe per wake-up");
            assert_eq!(core.queues.jobs.attempts("a"), 0, "never counted");
            now = at;
            let effects = core.woke(now);
            assert_eq!(call_started(&mut core, effects, now), "a");
        }
        assert_eq!(waits, [30, 60, 120, 240, 480, 900, 900, 900]);
    }

    #[test]
    fn a_timeout_parks_the_worker_like_unreachable() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.call_failed(
            "a".into(),
            failure(FailureReason::Timeout, "no answer"),
            t(120),
        );
        assert!(effects.contains(&Effect::SuspectDown));
        assert!(effects.iter().any(|e| matches!(e,
            Effect::StoreNextRun { at, .. } if *at == t(150))));
        core.write_done(true, t(120));
        assert_eq!(
            core.status(t(120)).state,
            WorkerState::Parked {
                until: timestamp(t(150)),
                step: 0
            }
        );
    }

    #[test]
    fn while_parked_the_worker_tries_nothing_else() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.call_failed(
            "a".into(),
            failure(FailureReason::Unreachable, "refused"),
            t(0),
        );
        write_answered(&mut core, &effects, t(0));
        let effects = core.enqueued(vec!["b".into()], t(1), t(1));
        assert_eq!(
            effects,
            [Effect::Wake(Some(t(30)))],
            "b waits for the probe"
        );
    }

    #[test]
    fn a_success_resets_the_outage_step() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let mut now = t(0);
        for _ in 0..3 {
            let effects =
                core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), now);
            write_answered(&mut core, &effects, now);
            now += TimeDelta::seconds(900);
            let effects = core.woke(now);
            call_started(&mut core, effects, now);
        }
        assert_eq!(core.waits.outage_step, 3);
        let effects = core.answered("a".into(), enrichment(), 5, now);
        assert_eq!(core.waits.outage_step, 0);
        assert_eq!(wake_of(&effects), Some(None));
        capture_and_call(&mut core, "b", now);
        let effects = core.call_failed("b".into(), failure(FailureReason::Unreachable, "x"), now);
        assert!(effects.iter().any(|e| matches!(e,
            Effect::StoreNextRun { at, .. } if *at == now + TimeDelta::seconds(30))));
    }

    #[test]
    fn a_ready_provider_resumes_at_once_and_jobs_waiting_out_their_own_delay_keep_their_time() {
        let mut core = started();
        let effects = core.enqueued(vec!["parked".into(), "retrying".into()], t(0), t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "parked");
        let effects = core.call_failed(
            "parked".into(),
            failure(FailureReason::Unreachable, "x"),
            t(0),
        );
        write_answered(&mut core, &effects, t(0));
        // The park (30 s) holds "retrying" back too; give it a delay of its own.
        core.queues
            .jobs
            .reschedule("retrying", t(100), Some(WaitReason::Retry));
        core.waits.outage_step = 4;

        let effects = core.health_changed(up(), t(10));
        assert_eq!(
            call_started(&mut core, effects, t(10)),
            "parked",
            "at once, not at 30 s"
        );
        assert_eq!(
            core.queues.jobs.get("retrying").map(|j| j.next_run_at),
            Some(t(100))
        );
        assert_eq!(core.waits.outage_step, 4, "kept until a real success");
        assert!(core.health_changed(down(), t(11)).is_empty());
    }

    #[test]
    fn a_manual_resume_ends_the_park_too() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), t(0));
        write_answered(&mut core, &effects, t(0));
        let effects = core.resume_requested("manual retry", t(5));
        assert_eq!(call_started(&mut core, effects, t(5)), "a");
    }

    #[test]
    fn schema_and_other_wait_30_then_120_s_then_mark_the_note_failed_at_the_third() {
        for reason in [FailureReason::Schema, FailureReason::Other] {
            let mut core = started();
            capture_and_call(&mut core, "a", t(0));
            let mut now = t(0);
            let mut waits = Vec::new();
            for attempt in 1..=2 {
                let effects = core.call_failed("a".into(), failure(reason, "bad"), now);
                let Some(Effect::StoreAttempt { next_run_at, .. }) = effects.first().cloned()
                else {
                    panic!("an attempt is counted: {effects:?}")
                };
                assert!(
                    !effects.contains(&Effect::SuspectDown),
                    "the provider is fine"
                );
                assert_eq!(core.queues.jobs.attempts("a"), attempt);
                waits.push((next_run_at - now).num_seconds());
                assert_eq!(
                    core.write_done(true, now),
                    [Effect::Wake(Some(next_run_at))]
                );
                now = next_run_at;
                let effects = core.woke(now);
                call_started(&mut core, effects, now);
            }
            assert_eq!(waits, [30, 120]);
            let effects = core.call_failed("a".into(), failure(reason, "bad"), now);
            let failure = Failure {
                note_id: "a".into(),
                reason,
                attempts: 3,
                error: format!("{}: bad", reason.as_str()),
            };
            assert_eq!(
                effects,
                [Effect::MarkFailed {
                    failure: failure.clone(),
                    ends_call: true
                }]
            );
            assert!(
                !core.queues.jobs.contains("a"),
                "out of the queue before it is marked"
            );
            let failed = note("a", crate::domain::AiStatus::Failed);
            let effects = core.marked_failed(
                failure.clone(),
                MarkOutcome::Marked(Box::new(failed.clone())),
                true,
                now,
            );
            assert_eq!(effects[0], Effect::AnnounceFailed { failure });
            assert_eq!(core.status(now).state, WorkerState::Idle);
        }
    }

    #[test]
    fn a_schema_wait_delays_only_its_own_job() {
        let mut core = started();
        let effects = core.enqueued(vec!["bad".into(), "good".into()], t(0), t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "bad");
        let effects = core.call_failed("bad".into(), failure(FailureReason::Schema, "x"), t(0));
        let effects = write_answered(&mut core, &effects, t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "good", "at once");
    }

    #[test]
    fn a_note_that_cannot_be_marked_failed_stays_queued_and_is_tried_again_in_30_s() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let failure = Failure {
            note_id: "a".into(),
            reason: FailureReason::Schema,
            attempts: 3,
            error: "schema: x".into(),
        };
        core.queues.jobs.remove("a");
        let effects = core.marked_failed(failure, MarkOutcome::Refused("busy".into()), true, t(0));
        assert_eq!(effects, [Effect::Wake(Some(t(30)))]);
        let job = core.queues.jobs.get("a").copied().expect("queued again");
        assert_eq!(
            (job.attempts, job.wait_reason),
            (2, Some(WaitReason::Retry))
        );
    }

    #[test]
    fn a_retry_all_between_giving_up_and_the_mark_keeps_its_fresh_entry() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        core.queues.jobs.set_attempts("a", 2);
        let effects = core.call_failed("a".into(), failure(FailureReason::Schema, "x"), t(0));
        let Some(Effect::MarkFailed { failure, .. }) = effects.first().cloned() else {
            panic!("{effects:?}")
        };
        core.enqueued(vec!["a".into()], t(1), t(1)); // retry-all, while in flight
        core.marked_failed(failure, MarkOutcome::NoteGone, true, t(1));
        assert_eq!(core.queues.jobs.get("a"), Some(&QueuedJob::fresh(t(1))));
    }

    #[test]
    fn decide_counts_only_schema_and_other() {
        assert_eq!(
            decide(FailureReason::Timeout, 2, 2, &rules().schedule),
            FailureDecision::ParkWorker {
                wait: std::time::Duration::from_secs(120),
                next_step: 3
            }
        );
        assert_eq!(
            decide(FailureReason::Other, 0, 1, &rules().schedule),
            FailureDecision::RetryJobLater {
                wait: std::time::Duration::from_secs(120),
                attempts: 2
            }
        );
        assert_eq!(
            decide(FailureReason::Schema, 0, 2, &rules().schedule),
            FailureDecision::GiveUp { attempts: 3 }
        );
    }
}
