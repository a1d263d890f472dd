//! Saving answers: an answer is saved beside the next call; its save's outcome
//! decides what follows, and a save refused for a reason other than the disk is the
//! note's own `other` failure.

use chrono::{DateTime, Utc};

use super::super::queue::QueuedJob;
use super::state::WorkerCore;
use super::{Effect, PendingSave, SaveOutcome};
use crate::ai::FailureReason;
use crate::api::worker::ModelUse;
use crate::domain::Enrichment;

impl WorkerCore {
    /// The provider answered with a valid enrichment. The job leaves the queue now so
    /// nothing picks it again (a failed save puts it back), and the outage step is
    /// reset. Its save runs beside the next call: one call is still the most in flight.
    /// After an answer was lost to the disk, until a save succeeds, the next call waits
    /// for the save instead: no answers are bought that cannot be kept.
    pub fn answered(
        &mut self,
        note_id: String,
        enrichment: Enrichment,
        latency_ms: u64,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let beside_next_call = self.waits.disk_trouble.is_none();
        let attempts = self.queues.jobs.attempts(&note_id);
        let body = self.flight.body.take().unwrap_or_default();
        let model_ms = self.model_ms(now);
        self.model_used(now);
        if !self.flight.requeued {
            self.drop_job(&note_id);
        }
        if self.waits.provider_answered() {
            tracing::info!("provider answered; outage backoff reset");
        }
        let mut effects = vec![Effect::Save {
            save: PendingSave {
                note_id,
                body,
                attempts,
                latency_ms,
                model_ms,
                beside_next_call,
            },
            enrichment,
        }];
        if beside_next_call {
            effects.extend(self.finish(now));
        }
        effects
    }

    /// The answer to [`Effect::Save`].
    pub fn saved(
        &mut self,
        save: PendingSave,
        outcome: SaveOutcome,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let usage = match &outcome {
            SaveOutcome::Saved(_) => Some(ModelUse::Kept),
            SaveOutcome::NoteGone => Some(ModelUse::Deleted),
            SaveOutcome::Stale => Some(ModelUse::Edited),
            SaveOutcome::DiskTrouble(_) | SaveOutcome::Refused(_) => Some(ModelUse::Unsaved),
            SaveOutcome::RepositoryGone => None,
        };
        let mut effects = usage.map_or_else(Vec::new, |usage| self.spent(usage, save.model_ms));
        match outcome {
            SaveOutcome::Saved(_) | SaveOutcome::NoteGone => {
                if self.waits.disk_trouble.take().is_some() {
                    tracing::info!("an answer was saved again; storage is back");
                }
                tracing::info!(note_id = %save.note_id, latency_ms = save.latency_ms, "note enriched");
                effects.push(Effect::AnnounceEnriched {
                    latency_ms: save.latency_ms,
                });
            }
            SaveOutcome::Stale => {
                tracing::info!(note_id = %save.note_id,
                    "the note was edited while the AI read it; its answer is not saved");
            }
            SaveOutcome::DiskTrouble(error) => self.answer_lost_to_the_disk(&save, &error, now),
            SaveOutcome::Refused(error) => effects.extend(self.answer_refused(&save, &error, now)),
            SaveOutcome::RepositoryGone => {
                tracing::warn!(note_id = %save.note_id, "repository gone");
            }
        }
        if save.beside_next_call {
            // The next call may have started already; if a failure above set a wait,
            // this is where the worker takes it up instead of calling.
            effects.extend(self.schedule(now));
        } else {
            effects.extend(self.finish(now));
        }
        effects
    }

    /// An answer was refused for a reason other than the disk (a constraint, a bug):
    /// the note's own `other` failure. It counts an attempt like a failed call, so a
    /// note that can never be saved ends `failed` with the reason on it, retryable by
    /// hand, instead of buying an answer every 30 s for ever.
    pub(super) fn answer_refused(
        &mut self,
        save: &PendingSave,
        error: &str,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let note_id = &save.note_id;
        if self.queues.jobs.contains(note_id) {
            // Queued again meanwhile (a restore, a retry-all): that entry stands.
            tracing::error!(%note_id, %error,
                "cannot save the enrichment; the job was queued again meanwhile");
            return Vec::new();
        }
        tracing::error!(%note_id, %error, "cannot save the enrichment; counted as a failed attempt");
        self.queues.jobs.upsert(
            note_id.clone(),
            QueuedJob {
                attempts: save.attempts,
                ..QueuedJob::fresh(now)
            },
        );
        let error = format!(
            "{}: the answer could not be saved: {error}",
            FailureReason::Other.as_str()
        );
        self.apply_failure(note_id.clone(), FailureReason::Other, error, false, now)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    #[test]
    fn an_answer_is_saved_beside_the_next_call() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into(), "b".into()], t(0), t(0));
        call_started(&mut core, effects, t(0));
        let effects = core.answered("a".into(), enrichment(), 7, t(1));
        assert!(matches!(&effects[0], Effect::Save { save, .. } if save.beside_next_call));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::PrepareCall { note_id, .. } if note_id == "b")));
        let save = the_save(&effects);
        let effects = untimed(core.saved(save, saved("a"), t(1)));
        assert_eq!(
            effects,
            [Effect::AnnounceEnriched { latency_ms: 7 }],
            "the call for b is still in flight: nothing to schedule"
        );
    }

    #[test]
    fn a_save_refused_for_another_reason_is_the_notes_own_other_failure() {
        let mut core = started();
        let mut now = t(0);
        capture_and_call(&mut core, "a", now);
        for attempt in 1..=3 {
            let effects = core.answered("a".into(), enrichment(), 7, now);
            let effects = core.saved(
                the_save(&effects),
                SaveOutcome::Refused("constraint".into()),
                now,
            );
            let error = "other: the answer could not be saved: constraint".to_string();
            if attempt < 3 {
                let Some(Effect::StoreAttempt {
                    next_run_at,
                    last_error,
                    ends_call,
                    ..
                }) = effects.first().cloned()
                else {
                    panic!("{effects:?}")
                };
                assert_eq!((last_error, ends_call), (error, false));
                assert_eq!(core.queues.jobs.attempts("a"), attempt);
                now = next_run_at;
                let effects = core.woke(now);
                call_started(&mut core, effects, now);
            } else {
                assert!(
                    matches!(&effects[0], Effect::MarkFailed { failure, ends_call: false }
                    if failure.attempts == 3 && failure.error == error)
                );
            }
        }
    }

    #[test]
    fn a_refused_save_of_a_note_queued_again_meanwhile_leaves_that_entry() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.answered("a".into(), enrichment(), 7, t(1));
        core.enqueued(vec!["a".into()], t(2), t(2)); // requeued while the save ran
        let effects = core.saved(the_save(&effects), SaveOutcome::Refused("x".into()), t(2));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::StoreAttempt { .. } | Effect::MarkFailed { .. })),
            "no attempt counted: {effects:?}"
        );
        assert_eq!(core.queues.jobs.get("a"), Some(&QueuedJob::fresh(t(2))));
    }
}
