//! Disk trouble: an answer lost because the database could not be written makes
//! the whole worker wait (longer with each lost answer), saving each answer before
//! the next call until a save succeeds; a write that succeeds elsewhere ends the wait.

use chrono::{DateTime, Utc};

use super::super::queue::QueuedJob;
use super::state::WorkerCore;
use super::PendingSave;
use crate::domain::timestamp;

impl WorkerCore {
    /// Until when answers lost to disk trouble hold the worker back, if they still do.
    pub(super) fn storage_wait_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.waits.storage_wait_until(now)
    }

    /// A write elsewhere just succeeded (a capture, a requeue, a restore): the disk may
    /// have room again, so the storage wait ends now. The next answer is still saved
    /// before the call after it, and if it is lost too the wait grows from where it was.
    pub(super) fn storage_may_be_back(&mut self, why: &'static str, now: DateTime<Utc>) {
        if self.waits.storage_may_be_back(now) {
            tracing::info!(why, "a write succeeded; trying to save answers again");
        }
    }

    /// An answer was lost because the disk is full, read-only or failing. Every other
    /// answer would be lost the same way, so the whole worker waits (a wait that grows
    /// with each lost answer; `backoff::storage_wait`) and no attempt is counted: the note is
    /// not at fault. Its job goes back as it was, due at once behind the wait.
    pub(super) fn answer_lost_to_the_disk(
        &mut self,
        save: &PendingSave,
        error: &str,
        now: DateTime<Utc>,
    ) {
        let note_id = &save.note_id;
        match self.waits.answer_lost(now) {
            Some((until, lost_saves)) => {
                tracing::error!(%note_id, %error, lost_saves, until = %timestamp(until),
                    "cannot save the enrichment; the worker waits, then tries again");
            }
            None => {
                // Lost in the same stretch as the one that started the wait (answers
                // saved beside the next call): the wait stands as it is.
                tracing::error!(%note_id, %error,
                    "cannot save the enrichment; the worker is already waiting");
            }
        }
        if !self.queues.jobs.contains(note_id) {
            self.queues.jobs.upsert(
                note_id.clone(),
                QueuedJob {
                    attempts: save.attempts,
                    ..QueuedJob::fresh(now)
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    #[test]
    fn an_answer_lost_to_the_disk_makes_the_whole_worker_wait_30_then_60_s_with_no_attempt() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into(), "b".into()], t(0), t(0));
        call_started(&mut core, effects, t(0));
        let effects = core.answered("a".into(), enrichment(), 7, t(1));
        let save = the_save(&effects);
        // b's call is in flight beside the save; the loss holds the worker after it.
        let effects = untimed(core.saved(save, SaveOutcome::DiskTrouble("disk full".into()), t(1)));
        assert!(effects.is_empty(), "b's call still runs: {effects:?}");
        assert_eq!(
            core.queues.jobs.get("a"),
            Some(&QueuedJob::fresh(t(1))),
            "back, attempts unchanged"
        );
        // b's answer is lost in the same stretch: the wait stands at 30 s.
        let effects = core.answered("b".into(), enrichment(), 7, t(2));
        let save = the_save(&effects);
        assert!(!save.beside_next_call, "saved before the next call");
        assert_eq!(effects.len(), 1, "no call before the save is answered");
        let effects = untimed(core.saved(save, SaveOutcome::DiskTrouble("disk full".into()), t(2)));
        assert_eq!(effects, [Effect::Wake(Some(t(31)))]);
        assert_eq!(
            core.status(t(2)).state,
            WorkerState::StorageUnavailable {
                until: timestamp(t(31))
            }
        );
        // After the wait, one answer is bought and lost again: the wait doubles.
        let effects = core.woke(t(31));
        let note = call_started(&mut core, effects, t(31));
        let effects = core.answered(note, enrichment(), 7, t(32));
        let effects = untimed(core.saved(
            the_save(&effects),
            SaveOutcome::DiskTrouble("full".into()),
            t(32),
        ));
        assert_eq!(effects, [Effect::Wake(Some(t(92)))]);
        assert_eq!(
            core.queues.jobs.attempts("a") + core.queues.jobs.attempts("b"),
            0
        );
    }

    #[test]
    fn a_write_that_succeeds_elsewhere_ends_the_disk_wait_and_a_saved_answer_ends_the_trouble() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.answered("a".into(), enrichment(), 7, t(1));
        let effects = untimed(core.saved(
            the_save(&effects),
            SaveOutcome::DiskTrouble("full".into()),
            t(1),
        ));
        assert_eq!(effects, [Effect::Wake(Some(t(31)))]);
        // A capture was stored: the disk has room again.
        let effects = core.enqueued(vec!["b".into()], t(5), t(5));
        assert_eq!(call_started(&mut core, effects, t(5)), "a");
        let effects = core.answered("a".into(), enrichment(), 7, t(6));
        let save = the_save(&effects);
        assert!(!save.beside_next_call, "still saved before the next call");
        let effects = untimed(core.saved(save, saved("a"), t(6)));
        assert!(matches!(effects[0], Effect::AnnounceEnriched { .. }));
        assert_eq!(call_started(&mut core, effects, t(6)), "b");
        let effects = core.answered("b".into(), enrichment(), 7, t(7));
        assert!(the_save(&effects).beside_next_call, "storage is back");
    }
}
