//! Scheduling: one call at a time, the earliest due job first, one timer for the
//! next one and none when idle; the bodies of the next jobs read in one query.

use chrono::{DateTime, Utc};

use super::super::queue::QueuedJob;
use super::embedding::EmbedStep;
use super::lanes::{next, Next};
use super::rules::STORAGE_RETRY_DELAY;
use super::state::WorkerCore;
use super::Effect;

/// How many upcoming jobs' bodies are read in one query (at most 64 KiB each).
pub const PREFETCH: usize = 32;

impl WorkerCore {
    /// Notes just stored as pending with no attempts, due at `at` (captures, or failed
    /// notes requeued): any entry still here is stale bookkeeping and is replaced. A
    /// write just succeeded, so a disk-trouble wait ends.
    pub fn enqueued(
        &mut self,
        note_ids: Vec<String>,
        at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        self.embedding.notes_changed(&note_ids);
        for note_id in note_ids {
            self.requeued(&note_id);
            self.queues.jobs.upsert(note_id, QueuedJob::fresh(at));
        }
        self.storage_may_be_back("notes were just stored as pending", now);
        self.schedule(now)
    }

    /// Notes left the queue outside the worker (trashed). A call already in flight for
    /// one still finishes and its answer is saved to the note in the trash: harmless,
    /// and restoring shows it enriched.
    pub fn forgotten(&mut self, note_ids: &[String]) {
        for note_id in note_ids {
            self.drop_job(note_id);
        }
    }

    /// The wake-up timer fired.
    pub fn woke(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        self.schedule(now)
    }

    /// The bodies asked for by [`Effect::ReadBodies`], or why they could not be read.
    pub fn bodies_read(
        &mut self,
        note_id: String,
        read: Result<Vec<(String, String)>, String>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        match read {
            Ok(bodies) => {
                self.queues.bodies.extend(bodies);
                if self.queues.bodies.contains_key(&note_id) {
                    // With the next bodies known, the cheapest due job goes first; it
                    // starts as any call does (its own bookkeeping, its body read if
                    // it was not among these).
                    let chosen = self.next_due(now).unwrap_or(note_id);
                    return vec![self.start_call(chosen, now)];
                }
                // Gone, trashed or no longer pending: not a job any more.
                tracing::debug!(%note_id, "job dropped: the note is no longer pending");
                self.drop_job(&note_id);
                self.finish(now)
            }
            Err(error) => {
                tracing::error!(%note_id, %error, "cannot read the note; trying again later");
                let wait = self
                    .queues
                    .jobs
                    .get(&note_id)
                    .and_then(|job| job.wait_reason);
                self.queues
                    .jobs
                    .reschedule(&note_id, now + STORAGE_RETRY_DELAY, wait);
                self.finish(now)
            }
        }
    }

    /// A note is queued afresh: a body read ahead may be stale (an edit), and if its
    /// call is in flight, the new entry must outlive that call.
    pub(super) fn requeued(&mut self, note_id: &str) {
        self.queues.forget_reads(note_id);
        self.flight.queued_again(note_id);
    }

    pub(super) fn drop_job(&mut self, note_id: &str) {
        self.queues.drop_job(note_id);
    }

    /// The call in flight and its bookkeeping are over: on to the next job.
    pub(super) fn finish(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        self.flight.end();
        self.schedule(now)
    }

    /// Runs the work that goes next ([`next`]: a question, the cheapest due note, the
    /// notes' vectors), or sets the one timer for when some will be due. Nothing while
    /// loading or while a call is in flight (its end schedules).
    pub(super) fn schedule(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        if !self.queues.loaded
            || self.flight.note.is_some()
            || self.embedding.busy()
            || self.flight.loading_model
            || self.model.health.is_none()
            || self.asks.running()
        {
            return Vec::new();
        }
        let storage_held = self.waits.storage_wait_until(now).is_some();
        let held =
            storage_held || self.waits.parked_until(now).is_some() || self.waiting_for_model();
        // Vectors made in the process wait for no server, but a disk in trouble holds
        // their saving as it holds every answer's.
        let vectors = self.embedding.next_step(now) == EmbedStep::Read
            && !(storage_held && self.embedding.in_process());
        let chat_at = self.queues.jobs.first().map(|(at, _)| at);
        if held {
            // No note's turn while the worker waits: no one's share of the time.
            self.queues.fair.pause(now);
        } else {
            self.see_fair_shares(now);
        }
        match next(&self.waiting(held, vectors, now), now) {
            Some(Next::Question) => self.asks_turn(now),
            Some(Next::Note { note_id, lane }) => {
                tracing::debug!(%note_id, ?lane, "a note's turn");
                self.note_turn(note_id, now)
            }
            Some(Next::Vectors) => self.embed_or_wait(chat_at, now),
            None => self.wait_for_work(chat_at, now),
        }
    }

    /// A note's turn: its call starts, unless the model must be loaded first.
    fn note_turn(&mut self, note_id: String, now: DateTime<Utc>) -> Vec<Effect> {
        if self.model.needs_load(now) {
            tracing::info!("loading the model before the next note");
            self.flight.loading_model = true;
            self.flight.model_busy_since = Some(now);
            if self.model.context.is_none() {
                return vec![Effect::Wake(None), Effect::ReadModelContext];
            }
            return vec![Effect::Wake(None), Effect::LoadModel(self.load_plan())];
        }
        vec![Effect::Wake(None), self.start_call(note_id, now)]
    }

    /// No work can go now: the one timer is set for the end of what holds the worker
    /// back, or for the earliest note (`chat_at`) or the vectors' pause, whichever is
    /// first; none when idle or waiting for the model (the monitor's "ready" resumes).
    fn wait_for_work(&mut self, chat_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Vec<Effect> {
        if let Some(until) = self.waits.storage_wait_until(now) {
            return vec![Effect::Wake(Some(until))];
        }
        if self.embedding.in_process() {
            // The vectors' own pause is a timer too: no note's time is, while the
            // server holds them (a due note would wake the worker at once, again and
            // again); the end of a park is, and the monitor's "ready" wakes it.
            let parked = self.waits.parked_until(now);
            let chat_at = if parked.is_some() || self.waiting_for_model() {
                parked
            } else {
                chat_at
            };
            return self.embed_or_wait(chat_at, now);
        }
        if let Some(until) = self.waits.parked_until(now) {
            return vec![Effect::Wake(Some(until))];
        }
        if self.waiting_for_model() {
            return vec![Effect::Wake(None)];
        }
        self.embed_or_wait(chat_at, now)
    }

    /// The job's call starts: with its body if it was read ahead, else by reading it
    /// and the next ones' in one query.
    pub(super) fn start_call(&mut self, note_id: String, now: DateTime<Utc>) -> Effect {
        self.flight.start(note_id.clone());
        if let Some(body) = self.queues.bodies.remove(&note_id) {
            return self.call(note_id, body, now);
        }
        let ids = std::iter::once(note_id.clone())
            .chain(
                self.queues
                    .jobs
                    .ids_in_order()
                    .filter(|id| *id != note_id)
                    .take(PREFETCH - 1)
                    .map(str::to_string),
            )
            .collect();
        Effect::ReadBodies { note_id, ids }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_fixture::*;
    use super::*;

    #[test]
    fn a_note_queued_again_during_its_call_keeps_its_new_entry_whatever_the_call_brings() {
        // An edit (or a "Redo AI") arrives while the call about the old body runs.
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        assert!(core.enqueued(vec!["a".into()], t(1), t(1)).is_empty());
        let effects = core.answered("a".into(), enrichment(), 5, t(2));
        let save = the_save(&effects);
        assert_eq!(
            save.body, "body of a",
            "the save says which body it is about"
        );
        assert_eq!(
            call_started(&mut core, effects, t(2)),
            "a",
            "the new entry runs: it was not dropped with the answer"
        );
        // The store finds the body changed: nothing to do, the new call stands.
        let effects = core.saved(save, SaveOutcome::Stale, t(3));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::PrepareCall { .. })),
            "{effects:?}"
        );
        assert_eq!(core.status(t(3)).queued, 1);

        // A failure of a call whose note was queued again meanwhile counts nothing.
        let mut core = started();
        capture_and_call(&mut core, "b", t(0));
        core.enqueued(vec!["b".into()], t(1), t(1));
        let effects = core.call_failed("b".into(), failure(FailureReason::Schema, "bad"), t(2));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::StoreAttempt { .. } | Effect::MarkFailed { .. })),
            "{effects:?}"
        );
        assert_eq!(call_started(&mut core, effects, t(2)), "b");
    }

    #[test]
    fn a_body_read_ahead_is_read_again_after_the_note_is_queued_afresh() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into(), "b".into()], t(0), t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "a");
        // "b"'s body was read ahead with "a"'s; "b" is edited while "a" runs.
        assert!(core.enqueued(vec!["b".into()], t(1), t(1)).is_empty());
        let effects = core.answered("a".into(), enrichment(), 5, t(2));
        assert!(
            effects
                .iter()
                .any(|e| matches!(e, Effect::ReadBodies { note_id, .. } if note_id == "b")),
            "the edited body is read, not the one read ahead: {effects:?}"
        );
    }

    #[test]
    fn nothing_runs_before_the_queue_is_loaded() {
        let mut core = WorkerCore::new(rules());
        assert!(core.enqueued(vec!["a".into()], t(0), t(0)).is_empty());
        assert_eq!(
            core.health_changed(up(), t(0)),
            [Effect::RequeueModelMissingFailures]
        );
        assert_eq!(core.status(t(0)).state, WorkerState::Starting);
        let effects = core.loaded([], t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "a");
    }

    #[test]
    fn with_nothing_due_one_timer_is_set_for_the_earliest_job_and_none_when_idle() {
        let mut core = started();
        let effects = core.enqueued(vec!["later".into()], t(60), t(0));
        assert_eq!(effects, [Effect::Wake(Some(t(60)))]);
        assert_eq!(
            core.status(t(0)).state,
            WorkerState::Waiting {
                until: timestamp(t(60))
            }
        );
        let effects = core.woke(t(60));
        assert_eq!(call_started(&mut core, effects, t(60)), "later");
        let effects = core.answered("later".into(), enrichment(), 5, t(61));
        assert_eq!(wake_of(&effects), Some(None), "idle: no timer at all");
        assert_eq!(core.status(t(61)).state, WorkerState::Idle);
    }

    #[test]
    fn one_call_at_a_time_and_its_end_starts_the_next() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        assert!(core.enqueued(vec!["b".into()], t(0), t(0)).is_empty());
        assert!(core.resume_requested("test", t(0)).is_empty());
        assert_eq!(
            core.status(t(0)).state,
            WorkerState::Running {
                note_id: "a".into()
            }
        );
        let effects = core.answered("a".into(), enrichment(), 5, t(1));
        assert_eq!(call_started(&mut core, effects, t(1)), "b");
    }

    #[test]
    fn the_next_bodies_are_read_in_one_query_and_a_read_ahead_body_needs_no_read() {
        let mut core = started();
        let ids: Vec<String> = (0..40).map(|n| format!("n{n:02}")).collect();
        let effects = core.enqueued(ids.clone(), t(0), t(0));
        let Some(Effect::ReadBodies { note_id, ids: read }) = effects.last().cloned() else {
            panic!("a read: {effects:?}")
        };
        assert_eq!(note_id, "n00");
        assert_eq!(read, ids[..PREFETCH], "the job and the next 31");
        let bodies = read
            .iter()
            .map(|id| (id.clone(), format!("body {id}")))
            .collect();
        let effects = core.bodies_read(note_id, Ok(bodies), t(0));
        let (note_id, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!(
            (note_id.as_str(), plan.prompt.note.as_str()),
            ("n00", "body n00")
        );
        let effects = core.answered("n00".into(), enrichment(), 5, t(1));
        assert!(
            !effects
                .iter()
                .any(|e| matches!(e, Effect::ReadBodies { .. })),
            "the next body was read ahead"
        );
        let (note_id, plan) = plan_of(&mut core, effects, t(1));
        assert_eq!(
            (note_id.as_str(), plan.prompt.note.as_str()),
            ("n01", "body n01")
        );
    }

    #[test]
    fn a_job_whose_note_is_gone_is_dropped_and_an_unreadable_one_waits_30_s() {
        let mut core = started();
        let effects = core.enqueued(vec!["gone".into(), "unreadable".into()], t(0), t(0));
        assert!(matches!(effects.last(), Some(Effect::ReadBodies { .. })));
        let effects = core.bodies_read("gone".into(), Ok(vec![]), t(0));
        let Some(Effect::ReadBodies { note_id, .. }) = effects.last().cloned() else {
            panic!("the next job reads its body: {effects:?}")
        };
        assert_eq!(note_id, "unreadable");
        assert_eq!(core.status(t(0)).queued, 1, "the gone note left the queue");
        let effects = core.bodies_read(note_id, Err("disk I/O error".into()), t(0));
        assert_eq!(effects, [Effect::Wake(Some(t(30)))]);
    }

    #[test]
    fn a_trashed_note_is_forgotten_and_its_read_ahead_body_never_sent() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into(), "trashed".into(), "c".into()], t(0), t(0));
        assert_eq!(call_started(&mut core, effects, t(0)), "a");
        core.forgotten(&["trashed".into()]);
        let effects = core.answered("a".into(), enrichment(), 5, t(1));
        assert_eq!(call_started(&mut core, effects, t(1)), "c");
    }
}
