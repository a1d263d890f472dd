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
mod tests;
