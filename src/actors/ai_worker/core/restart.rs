//! Start-up and restore: the queue as the database has it, and a note back from the
//! trash with its job as stored (attempts included).

use chrono::{DateTime, Utc};

use super::super::queue::QueuedJob;
use super::state::WorkerCore;
use super::Effect;

impl WorkerCore {
    /// The queue as the database has it, at start-up. The outage step starts at 0;
    /// if the provider was already announced ready, jobs parked on an outage before the
    /// restart run at once.
    pub fn loaded(
        &mut self,
        jobs: impl IntoIterator<Item = (String, QueuedJob)>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        for (note_id, job) in jobs {
            self.queues.jobs.upsert(note_id, job);
        }
        self.queues.loaded = true;
        tracing::info!(jobs = self.queues.jobs.len(), "AI queue loaded");
        if self.provider_ready() {
            self.resume("provider already healthy at start-up", now)
        } else {
            self.schedule(now)
        }
    }

    /// A note came back from the trash, or had its AI asked for again, with its job as
    /// stored (attempts included, so a trip through the trash buys no attempts).
    pub fn tracked(&mut self, note_id: String, job: QueuedJob, now: DateTime<Utc>) -> Vec<Effect> {
        self.requeued(&note_id);
        self.embedding.notes_changed(std::slice::from_ref(&note_id));
        self.queues.jobs.upsert(note_id, job);
        self.storage_may_be_back("a note was just restored", now);
        self.schedule(now)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    #[test]
    fn after_a_restart_due_jobs_run_at_once_and_future_ones_wait() {
        let mut core = WorkerCore::new(rules());
        let jobs = [
            ("future".to_string(), QueuedJob::fresh(t(60))),
            ("overdue".to_string(), QueuedJob::fresh(t(-60))),
        ];
        assert!(
            core.loaded(jobs, t(0)).is_empty(),
            "no call before the first health check has answered"
        );
        let effects = core.health_changed(down(), t(0));
        assert_eq!(
            call_started(&mut core, effects, t(0)),
            "overdue",
            "the model server not answering: the call is the probe"
        );
        let effects = core.answered("overdue".into(), enrichment(), 5, t(1));
        assert_eq!(wake_of(&effects), Some(Some(t(60))));
        assert_eq!(core.waits.outage_step, 0, "the step starts at 0");
    }

    #[test]
    fn after_a_restart_with_the_provider_already_ready_parked_jobs_run_and_retrying_ones_wait() {
        let mut core = WorkerCore::new(rules());
        assert_eq!(
            core.health_changed(up(), t(0)),
            [Effect::RequeueModelMissingFailures],
            "announced before the load"
        );
        let parked = QueuedJob {
            wait_reason: Some(WaitReason::Provider),
            ..QueuedJob::fresh(t(800))
        };
        let retrying = QueuedJob {
            wait_reason: Some(WaitReason::Retry),
            ..QueuedJob::fresh(t(100))
        };
        let effects = core.loaded([("p".into(), parked), ("r".into(), retrying)], t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "p");
        let effects = core.answered("p".into(), enrichment(), 5, t(1));
        assert_eq!(wake_of(&effects), Some(Some(t(100))));
    }

    #[test]
    fn a_restored_note_keeps_its_stored_attempts() {
        let mut core = started();
        let job = QueuedJob {
            attempts: 2,
            ..QueuedJob::fresh(t(0))
        };
        let effects = core.tracked("a".into(), job, t(0));
        call_started(&mut core, effects, t(0));
        let effects = core.call_failed("a".into(), failure(FailureReason::Schema, "x"), t(0));
        assert!(matches!(&effects[0], Effect::MarkFailed { failure, .. } if failure.attempts == 3));
    }
}
