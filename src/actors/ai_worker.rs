//! `AiWorkerActor`: works through the durable AI queue, one provider call at a time,
//! with the retry policy of SPEC §3 (`crate::ai::policy`), and its messages.
//!
//! It owns the in-memory view of the queue (ids, attempts, times; bodies stay in the
//! database), the worker-wide outage step, and the ONE wake-up timer:
//!
//! - when a job is due it runs; otherwise one `run_later` timer is set for the earliest
//!   `next_run_at` and nothing else wakes the worker (no polling);
//! - an unreachable/timeout failure parks the whole worker until `now + backoff(step)`
//!   (one probe per wake-up); a schema/other failure only delays its own job, so other
//!   due jobs go on (SPEC §3 deviation, "per-job waits");
//! - a ready provider (health monitor, manual recheck, manual retry-all) cancels the
//!   timer and resumes at once: jobs that were waiting on the outage become due, jobs
//!   waiting out their own retry delay keep their time (SPEC §3 "instant resume").
//!
//! The provider call runs as a spawned future (`ctx.spawn`, not `ctx.wait`), so the
//! mailbox stays responsive while a cold model loads. Failures come back to the
//! actor as a typed [`JobFailed`] message carrying their [`FailureReason`].

use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use std::time::Instant;

use actix::prelude::*;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::hub::Hub;
use super::log_handled;
use super::mailbox::{self, Mailbox};
use super::ollama_monitor::{OllamaMonitorActor, SuspectDown};
use super::repository::{
    CountFailed, GetJob, GetPendingBodies, IncrementJobAttempt, LoadJobs, MarkAiFailed,
    RepositoryActor, SaveEnrichment, SetNextRunAt,
};
use super::telemetry::{Emit, TelemetryActor};
use crate::ai::policy::{decide, storage_wait, FailureDecision};
use crate::ai::{classify_reason, EnrichmentProvider, FailureReason};
use crate::clock::SharedClock;
use crate::configuration::WorkerSettings;
use crate::domain::{timestamp, Enrichment};
use crate::events::{FailedCountChanged, NoteChanged, OllamaStatusChanged};
use crate::storage::{Job, StoreError, StoreResult, WaitReason};
use crate::telemetry::events::{AiDone, AiFailed, FailedReason, UsageEvent};

/// New jobs: freshly captured or requeued notes, due at `at`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Enqueue {
    pub note_ids: Vec<String>,
    pub at: DateTime<Utc>,
}

/// A note came back from the trash: take its job (as stored, attempts included) into
/// the queue again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct TrackJob {
    pub note_id: String,
}

/// A note left the queue outside the worker (trashed): forget its job and its body.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Forget {
    pub note_ids: Vec<String>,
}

/// How many upcoming jobs' bodies are read in one query (at most 64 KiB each).
const PREFETCH: usize = 32;

/// How long one job waits after the database failed to read it or to mark it failed.
/// (A lost answer makes the whole worker wait instead: `policy::storage_wait`.)
const STORAGE_RETRY_DELAY: chrono::TimeDelta = chrono::TimeDelta::seconds(30);

/// Answers lost in a row because the database could not be written, and until when
/// the worker makes no call.
#[derive(Debug, Clone, Copy)]
struct DiskTrouble {
    lost_saves: u32,
    retry_at: DateTime<Utc>,
}

/// The provider was seen healthy by hand (recheck, retry-all): resume at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ResumeNow {
    pub why: &'static str,
}

/// A provider call failed; the reason decides what happens to the job and the worker.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct JobFailed {
    pub note_id: String,
    pub reason: FailureReason,
    pub error: String,
}

/// Whether the database write that follows a failure ends the call in flight: yes for
/// a failed provider call; no for an answer whose save was refused, since that save
/// runs beside the next call (see `call_ended`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterWrite {
    FinishCall,
    Nothing,
}

/// What the worker is doing, for `/api/status`.
#[derive(Debug, Message)]
#[rtype(result = "WorkerStatus")]
pub struct GetWorkerStatus;

/// The worker's state (SPEC §12: idle, running, parked until T at step S).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WorkerState {
    /// Loading the queue from the database.
    Starting,
    /// Nothing queued.
    Idle,
    /// A provider call (or its bookkeeping) is in flight for this note.
    Running { note_id: String },
    /// The provider is down: no call before `until`; `step` is the index of the wait
    /// in `worker.unreachable_backoffs_ms` (0: 30 s, …, 5: 900 s).
    Parked { until: String, step: usize },
    /// Jobs are queued, none due before `until`.
    Waiting { until: String },
    /// An answer could not be saved (a full disk, an I/O error): no call before `until`,
    /// since its answer would be lost too.
    StorageUnavailable { until: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkerStatus {
    #[serde(flatten)]
    pub state: WorkerState,
    /// Jobs in the queue (including one in flight).
    pub queued: usize,
}

/// The in-memory view of one job.
#[derive(Debug, Clone)]
struct QueuedJob {
    attempts: u32,
    next_run_at: DateTime<Utc>,
    wait_reason: Option<WaitReason>,
}

/// How a provider call (with its reads around it) ended.
enum CallOutcome {
    /// The note is gone, trashed or no longer pending: drop the job.
    Skipped,
    Enriched {
        enrichment: Enrichment,
        latency_ms: u64,
    },
    Failed(JobFailed),
    /// The database could not be read; try the job again later.
    StoreFailed(String),
}

pub struct AiWorkerActor {
    repository: Mailbox<RepositoryActor>,
    provider: Rc<dyn EnrichmentProvider>,
    monitor: Mailbox<OllamaMonitorActor>,
    telemetry: Mailbox<TelemetryActor>,
    hub: Mailbox<Hub>,
    clock: SharedClock,
    policy: WorkerSettings,
    /// The queue: note id → job, and the same jobs ordered by (next_run_at, id).
    jobs: HashMap<String, QueuedJob>,
    order: BTreeSet<(DateTime<Utc>, String)>,
    /// The note whose call (or bookkeeping) is in flight: at most one.
    in_flight: Option<String>,
    /// Bodies of the next few jobs, read in one query ([`PREFETCH`]).
    bodies: HashMap<String, String>,
    /// The one pending wake-up. actix's `cancel_future` cannot say whether a timer was
    /// still pending (research/actix.md §3), so the handle is cleared when it fires.
    wake: Option<SpawnHandle>,
    /// Worker-wide park after an outage failure: until when, and at which step of
    /// `worker.unreachable_backoffs_ms` (0 = the first wait).
    parked_until: Option<(DateTime<Utc>, usize)>,
    /// Consecutive unreachable/timeout failures (capped); reset by a success only.
    outage_step: usize,
    /// `Some` from an answer lost to disk trouble until the next save that succeeds.
    /// Every answer would be lost the same way, so the whole worker makes no call
    /// before `retry_at` (a wait that grows with each lost answer, and ends early when
    /// a write elsewhere succeeds), and while it is `Some` each answer is saved before
    /// the next call.
    disk_trouble: Option<DiskTrouble>,
    /// The queue has been loaded from the database.
    loaded: bool,
    /// The last health the monitor announced was "ready".
    provider_ready: bool,
}

impl AiWorkerActor {
    pub fn new(
        repository: Mailbox<RepositoryActor>,
        provider: Rc<dyn EnrichmentProvider>,
        monitor: Mailbox<OllamaMonitorActor>,
        telemetry: Mailbox<TelemetryActor>,
        hub: Mailbox<Hub>,
        clock: SharedClock,
        policy: WorkerSettings,
    ) -> Self {
        AiWorkerActor {
            repository,
            provider,
            monitor,
            telemetry,
            hub,
            clock,
            policy,
            jobs: HashMap::new(),
            order: BTreeSet::new(),
            in_flight: None,
            bodies: HashMap::new(),
            wake: None,
            parked_until: None,
            outage_step: 0,
            disk_trouble: None,
            loaded: false,
            provider_ready: false,
        }
    }

    // ----- the queue ---------------------------------------------------------------

    fn upsert(&mut self, note_id: String, job: QueuedJob) {
        if let Some(old) = self.jobs.get(&note_id) {
            self.order.remove(&(old.next_run_at, note_id.clone()));
        }
        self.order.insert((job.next_run_at, note_id.clone()));
        self.jobs.insert(note_id, job);
    }

    /// Queues a job as the database has it.
    fn track(&mut self, job: Job) {
        self.upsert(
            job.note_id,
            QueuedJob {
                attempts: job.attempts,
                next_run_at: job.next_run_at,
                wait_reason: job.wait_reason,
            },
        );
    }

    fn remove(&mut self, note_id: &str) {
        self.bodies.remove(note_id);
        if let Some(old) = self.jobs.remove(note_id) {
            self.order.remove(&(old.next_run_at, note_id.to_string()));
        }
    }

    fn reschedule_job(&mut self, note_id: &str, at: DateTime<Utc>, wait: Option<WaitReason>) {
        if let Some(job) = self.jobs.get(note_id).cloned() {
            self.upsert(
                note_id.to_string(),
                QueuedJob {
                    next_run_at: at,
                    wait_reason: wait,
                    ..job
                },
            );
        }
    }

    /// Until when answers lost to disk trouble hold the worker back, if they still do.
    fn storage_wait_until(&self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        self.disk_trouble
            .map(|trouble| trouble.retry_at)
            .filter(|retry_at| *retry_at > now)
    }

    /// A write elsewhere just succeeded (a capture, a requeue, a restore): the disk may
    /// have room again, so the storage wait ends now. The next answer is still saved
    /// before the call after it, and if it is lost too the wait grows from where it was.
    fn storage_may_be_back(&mut self, why: &'static str) {
        let now = self.clock.now();
        if let Some(trouble) = self.disk_trouble.as_mut() {
            if trouble.retry_at > now {
                trouble.retry_at = now;
                tracing::info!(why, "a write succeeded; trying to save answers again");
            }
        }
    }

    /// The provider is healthy: jobs parked by the outage are due now; jobs waiting
    /// out their own retry delay keep their time. The outage step is kept until a real
    /// success resets it.
    fn resume(&mut self, why: &'static str, ctx: &mut Context<Self>) {
        let now = self.clock.now();
        let parked: Vec<String> = self
            .jobs
            .iter()
            .filter(|(_, job)| {
                job.wait_reason == Some(WaitReason::Provider) && job.next_run_at > now
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in parked {
            self.reschedule_job(&id, now, Some(WaitReason::Provider));
        }
        if self.parked_until.take().is_some() {
            tracing::info!(why, "resuming: the provider is healthy again");
        }
        self.schedule(ctx);
    }

    // ----- scheduling --------------------------------------------------------------

    fn cancel_wake(&mut self, ctx: &mut Context<Self>) {
        if let Some(handle) = self.wake.take() {
            ctx.cancel_future(handle);
        }
    }

    fn wake_at(&mut self, at: DateTime<Utc>, ctx: &mut Context<Self>) {
        let delay = (at - self.clock.now()).to_std().unwrap_or_default();
        self.wake = Some(ctx.run_later(delay, |act, ctx| {
            act.wake = None;
            act.schedule(ctx);
        }));
    }

    /// Runs the earliest due job, or sets the one timer for when one will be due.
    fn schedule(&mut self, ctx: &mut Context<Self>) {
        if !self.loaded || self.in_flight.is_some() {
            return;
        }
        self.cancel_wake(ctx);
        let now = self.clock.now();
        if let Some(until) = self.storage_wait_until(now) {
            self.wake_at(until, ctx);
            return;
        }
        if let Some((until, _)) = self.parked_until {
            if until > now {
                self.wake_at(until, ctx);
                return;
            }
            self.parked_until = None;
        }
        let Some((at, note_id)) = self.order.first().cloned() else {
            return; // idle: nothing to wake up for
        };
        if at > now {
            self.wake_at(at, ctx);
            return;
        }
        self.start_call(note_id, ctx);
    }

    fn finish(&mut self, ctx: &mut Context<Self>) {
        self.in_flight = None;
        self.schedule(ctx);
    }

    /// Stores a job's bookkeeping after a failure. The in-memory view is already
    /// updated; a failed write is logged (the job keeps its previous row, which at
    /// worst makes it due a little early after a restart).
    fn write_job_bookkeeping<M, T>(
        &mut self,
        message: M,
        what: &'static str,
        after: AfterWrite,
        ctx: &mut Context<Self>,
    ) where
        M: Message<Result = StoreResult<T>> + Send + 'static,
        T: Send + 'static,
        RepositoryActor: Handler<M>,
        SyncContext<RepositoryActor>: actix::dev::ToEnvelope<RepositoryActor, M>,
    {
        ctx.spawn(
            self.repository
                .send(message)
                .into_actor(self)
                .map(move |stored, act, ctx| {
                    if let Ok(Err(e)) = stored {
                        tracing::warn!(error = %e, "cannot store {what}");
                    }
                    if after == AfterWrite::FinishCall {
                        act.finish(ctx);
                    }
                }),
        );
    }

    // ----- failures ----------------------------------------------------------------

    /// What SPEC §3 does with one failure of a queued job (`crate::ai::policy::decide`):
    /// park the worker (unreachable/timeout), or count an attempt and retry the job
    /// later, or mark the note failed after its last attempt. The in-memory queue is
    /// updated at once, the database write follows; `after` says whether that write ends
    /// the call in flight.
    fn apply_failure(
        &mut self,
        note_id: String,
        reason: FailureReason,
        error: String,
        after: AfterWrite,
        ctx: &mut Context<Self>,
    ) {
        let attempts_before = self.jobs.get(&note_id).map_or(0, |j| j.attempts);
        let now = self.clock.now();
        let decision = decide(
            reason,
            self.outage_step,
            attempts_before,
            self.policy.max_attempts,
            &self.policy.unreachable_backoffs_ms,
            &self.policy.retry_backoffs_ms,
        );
        tracing::info!(%note_id, reason = reason.as_str(), ?decision, "failure decided");
        match decision {
            FailureDecision::ParkWorker { wait, next_step } => {
                let until = now + chrono::Duration::from_std(wait).unwrap_or_default();
                tracing::info!(until = %timestamp(until), step = self.outage_step,
                    "provider unavailable; worker parked");
                self.parked_until = Some((until, self.outage_step));
                self.outage_step = next_step;
                self.reschedule_job(&note_id, until, Some(WaitReason::Provider));
                self.monitor.do_send(SuspectDown);
                let park = SetNextRunAt {
                    note_id,
                    at: until,
                    last_error: error,
                };
                self.write_job_bookkeeping(park, "the job's next run", after, ctx);
            }
            FailureDecision::RetryJobLater { wait, attempts } => {
                let at = now + chrono::Duration::from_std(wait).unwrap_or_default();
                if let Some(job) = self.jobs.get_mut(&note_id) {
                    job.attempts = attempts;
                }
                self.reschedule_job(&note_id, at, Some(WaitReason::Retry));
                let count = IncrementJobAttempt {
                    note_id,
                    next_run_at: at,
                    last_error: error,
                };
                self.write_job_bookkeeping(count, "the failed attempt", after, ctx);
            }
            FailureDecision::GiveUp { attempts } => {
                self.give_up(note_id, reason, attempts, error, after, ctx);
            }
        }
    }

    /// The last attempt failed: the note is marked failed (it leaves the queue) and
    /// the failed count goes out to the banner and the tray.
    fn give_up(
        &mut self,
        note_id: String,
        reason: FailureReason,
        attempts: u32,
        error: String,
        after: AfterWrite,
        ctx: &mut Context<Self>,
    ) {
        let failed_reason = if reason == FailureReason::Schema {
            FailedReason::Schema
        } else {
            FailedReason::Other
        };
        // Out of the queue before the database says "failed": a retry-all that
        // requeues the note in between then adds a fresh entry that stays.
        self.remove(&note_id);
        let mark = MarkAiFailed {
            note_id: note_id.clone(),
            error,
            now: self.clock.now(),
        };
        let repository = self.repository.clone();
        let marked = async move {
            let marked = repository.send(mark).await;
            let count = repository.send(CountFailed).await;
            (marked, count)
        };
        ctx.spawn(marked.into_actor(self).map(move |(marked, count), act, ctx| {
            match marked {
                Ok(Ok(())) => {
                    act.telemetry.do_send(Emit(UsageEvent::AiFailed(AiFailed {
                        reason: failed_reason,
                        attempts,
                    })));
                    act.hub.do_send(NoteChanged {
                        note_id: note_id.clone(),
                    });
                    if let Ok(Ok(count)) = count {
                        act.hub.do_send(FailedCountChanged { count });
                    }
                    tracing::info!(%note_id, attempts, "note marked failed");
                }
                Ok(Err(StoreError::NotFound(_))) => {}
                Ok(Err(e)) => {
                    // Still pending in the database: keep it queued, try later.
                    tracing::error!(%note_id, error = %e, "cannot mark the note failed; trying again later");
                    if !act.jobs.contains_key(&note_id) {
                        act.upsert(
                            note_id.clone(),
                            QueuedJob {
                                attempts: attempts.saturating_sub(1),
                                next_run_at: act.clock.now() + STORAGE_RETRY_DELAY,
                                wait_reason: Some(WaitReason::Retry),
                            },
                        );
                    }
                }
                Err(e) => tracing::warn!(error = %e, "repository gone"),
            }
            if after == AfterWrite::FinishCall {
                act.finish(ctx);
            }
        }));
    }

    // ----- one job -----------------------------------------------------------------

    fn start_call(&mut self, note_id: String, ctx: &mut Context<Self>) {
        self.in_flight = Some(note_id.clone());
        if let Some(body) = self.bodies.remove(&note_id) {
            return self.call_provider(note_id, body, ctx);
        }
        // Read this job's body and the next ones' in one query.
        let ids: Vec<String> = std::iter::once(note_id.clone())
            .chain(
                self.order
                    .iter()
                    .map(|(_, id)| id.clone())
                    .filter(|id| *id != note_id)
                    .take(PREFETCH - 1),
            )
            .collect();
        let read = self.repository.send(GetPendingBodies { ids });
        ctx.spawn(read.into_actor(self).map(move |read, act, ctx| match read {
            Ok(Ok(bodies)) => {
                act.bodies.extend(bodies);
                match act.bodies.remove(&note_id) {
                    Some(body) => act.call_provider(note_id, body, ctx),
                    // Gone, trashed or no longer pending: not a job any more.
                    None => act.call_ended(note_id, CallOutcome::Skipped, ctx),
                }
            }
            Ok(Err(e)) => act.call_ended(note_id, CallOutcome::StoreFailed(e.to_string()), ctx),
            Err(e) => act.call_ended(note_id, CallOutcome::StoreFailed(e.to_string()), ctx),
        }));
    }

    fn call_provider(&mut self, note_id: String, body: String, ctx: &mut Context<Self>) {
        tracing::debug!(%note_id, "calling the provider");
        let started = actix_rt::time::Instant::now();
        let call = self.provider.enrich(&body);
        let id = note_id.clone();
        ctx.spawn(call.into_actor(self).map(move |answer, act, ctx| {
            let outcome = match answer {
                Ok(enrichment) => CallOutcome::Enriched {
                    enrichment,
                    latency_ms: started.elapsed().as_millis() as u64,
                },
                Err(error) => CallOutcome::Failed(JobFailed {
                    note_id: id,
                    reason: classify_reason(&error),
                    error: error.to_string(),
                }),
            };
            act.call_ended(note_id, outcome, ctx);
        }));
    }

    fn call_ended(&mut self, note_id: String, outcome: CallOutcome, ctx: &mut Context<Self>) {
        match outcome {
            CallOutcome::Skipped => {
                tracing::debug!(%note_id, "job dropped: the note is no longer pending");
                self.remove(&note_id);
                self.finish(ctx);
            }
            CallOutcome::StoreFailed(error) => {
                tracing::error!(%note_id, %error, "cannot read the note; trying again later");
                let later = self.clock.now() + STORAGE_RETRY_DELAY;
                let wait = self.jobs.get(&note_id).and_then(|j| j.wait_reason);
                self.reschedule_job(&note_id, later, wait);
                self.finish(ctx);
            }
            CallOutcome::Failed(failure) => mailbox::notify(ctx, failure),
            CallOutcome::Enriched {
                enrichment,
                latency_ms,
            } => {
                // The answer is in hand. Its commit runs on the repository's thread while
                // the next provider call starts: the two use different resources, and
                // there is still only one provider call in flight. The job leaves the
                // queue now so nothing picks it again; a failed save puts it back. After
                // a failed save, until one succeeds, the next call waits for the commit:
                // no answers are bought that cannot be kept.
                let overlap = self.disk_trouble.is_none();
                let attempts = self.jobs.get(&note_id).map_or(0, |j| j.attempts);
                self.remove(&note_id);
                if self.outage_step > 0 {
                    tracing::info!("provider answered; outage backoff reset");
                }
                self.outage_step = 0;
                let save = SaveEnrichment {
                    note_id: note_id.clone(),
                    enrichment,
                    now: self.clock.now(),
                };
                ctx.spawn(self.repository.send(save).into_actor(self).map(
                    move |saved, act, ctx| {
                        match saved {
                            Ok(Ok(())) | Ok(Err(StoreError::NotFound(_))) => {
                                if act.disk_trouble.take().is_some() {
                                    tracing::info!("an answer was saved again; storage is back");
                                }
                                act.telemetry
                                    .do_send(Emit(UsageEvent::AiDone(AiDone { latency_ms })));
                                act.hub.do_send(NoteChanged {
                                    note_id: note_id.clone(),
                                });
                                tracing::info!(%note_id, latency_ms, "note enriched");
                            }
                            Ok(Err(e)) => act.save_failed(note_id, attempts, e, ctx),
                            Err(e) => tracing::warn!(%note_id, error = %e, "repository gone"),
                        }
                        if overlap {
                            act.schedule(ctx); // after a failure: wait, not call
                        } else {
                            act.finish(ctx);
                        }
                    },
                ));
                if overlap {
                    self.finish(ctx);
                }
            }
        }
    }

    /// An answer could not be saved: the answer is lost, the job is not (its row is
    /// untouched). When the disk is the trouble (full, read-only, failing) every other
    /// answer would be lost the same way, so the whole worker waits and no attempt is
    /// counted: the note is not at fault. Any other refusal (a constraint, a bug) is
    /// the note's own `other` failure: it counts an attempt like a failed call, so a
    /// note that can never be saved ends `failed` with the reason on it, retryable by
    /// hand, instead of buying an answer every 30 s for ever.
    fn save_failed(
        &mut self,
        note_id: String,
        attempts: u32,
        error: StoreError,
        ctx: &mut Context<Self>,
    ) {
        let now = self.clock.now();
        let queued_again = self.jobs.contains_key(&note_id);
        if error.is_disk_trouble() {
            if let Some(until) = self.storage_wait_until(now) {
                // Lost in the same stretch as the one that started the wait (answers
                // saved beside the next call): the wait stands as it is.
                tracing::error!(%note_id, %error, until = %timestamp(until),
                    "cannot save the enrichment; the worker is already waiting");
            } else {
                let lost_saves = self
                    .disk_trouble
                    .map_or(0, |trouble| trouble.lost_saves)
                    .saturating_add(1);
                let wait = chrono::Duration::from_std(storage_wait(lost_saves))
                    .unwrap_or(STORAGE_RETRY_DELAY);
                let until = now + wait;
                tracing::error!(%note_id, %error, lost_saves, until = %timestamp(until),
                    "cannot save the enrichment; the worker waits, then tries again");
                self.disk_trouble = Some(DiskTrouble {
                    lost_saves,
                    retry_at: until,
                });
            }
            if !queued_again {
                // Due at once: the worker-wide wait is what holds it back.
                self.upsert(
                    note_id,
                    QueuedJob {
                        attempts,
                        next_run_at: now,
                        wait_reason: None,
                    },
                );
            }
            return;
        }
        if queued_again {
            // Queued again meanwhile (a restore, a retry-all): that entry stands.
            tracing::error!(%note_id, %error, "cannot save the enrichment; the job was queued again meanwhile");
            return;
        }
        tracing::error!(%note_id, %error, "cannot save the enrichment; counted as a failed attempt");
        self.upsert(
            note_id.clone(),
            QueuedJob {
                attempts,
                next_run_at: now,
                wait_reason: None,
            },
        );
        let error = format!(
            "{}: the answer could not be saved: {error}",
            FailureReason::Other.as_str()
        );
        self.apply_failure(
            note_id,
            FailureReason::Other,
            error,
            AfterWrite::Nothing,
            ctx,
        );
    }
}

impl Actor for AiWorkerActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        ctx.spawn(
            self.repository
                .send(LoadJobs)
                .into_actor(self)
                .map(|loaded, act, ctx| {
                    let jobs: Vec<Job> = match loaded {
                        Ok(Ok(jobs)) => jobs,
                        Ok(Err(e)) => {
                            tracing::error!(error = %e, "cannot load the AI queue");
                            Vec::new()
                        }
                        Err(e) => {
                            tracing::error!(error = %e, "repository gone");
                            Vec::new()
                        }
                    };
                    let count = jobs.len();
                    for job in jobs {
                        act.upsert(
                            job.note_id,
                            QueuedJob {
                                attempts: job.attempts,
                                next_run_at: job.next_run_at,
                                wait_reason: job.wait_reason,
                            },
                        );
                    }
                    act.loaded = true;
                    tracing::info!(jobs = count, "AI queue loaded");
                    if act.provider_ready {
                        act.resume("provider already healthy at start-up", ctx);
                    } else {
                        act.schedule(ctx);
                    }
                }),
        );
    }
}

impl Handler<Enqueue> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: Enqueue, ctx: &mut Context<Self>) {
        let started = Instant::now();
        let count = msg.note_ids.len();
        for note_id in msg.note_ids {
            // The database says these notes are pending from `at` with no attempts
            // (fresh captures, or failed notes just requeued): any entry still here
            // is stale bookkeeping from before, and is replaced.
            self.upsert(
                note_id,
                QueuedJob {
                    attempts: 0,
                    next_run_at: msg.at,
                    wait_reason: None,
                },
            );
        }
        tracing::debug!(count, "jobs enqueued");
        self.storage_may_be_back("notes were just stored as pending");
        self.schedule(ctx);
        log_handled!("Enqueue", started, true);
    }
}

impl Handler<TrackJob> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: TrackJob, ctx: &mut Context<Self>) {
        let started = Instant::now();
        let lookup = self.repository.send(GetJob {
            note_id: msg.note_id,
        });
        ctx.spawn(lookup.into_actor(self).map(|found, act, ctx| {
            if let Ok(Ok(Some(job))) = found {
                act.track(job);
                act.storage_may_be_back("a note was just restored");
                act.schedule(ctx);
            }
        }));
        log_handled!("TrackJob", started, true);
    }
}

impl Handler<Forget> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: Forget, _: &mut Context<Self>) {
        let started = Instant::now();
        for note_id in &msg.note_ids {
            // A call already in flight for it still finishes and its answer is saved
            // to the note, now in the trash: harmless, and restoring shows it enriched.
            self.remove(note_id);
        }
        log_handled!("Forget", started, true);
    }
}

impl Handler<ResumeNow> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: ResumeNow, ctx: &mut Context<Self>) {
        let started = Instant::now();
        self.resume(msg.why, ctx);
        log_handled!("ResumeNow", started, true);
    }
}

impl Handler<OllamaStatusChanged> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: OllamaStatusChanged, ctx: &mut Context<Self>) {
        let started = Instant::now();
        self.provider_ready = msg.health.is_ready();
        if self.provider_ready {
            self.resume("the health monitor sees the provider ready", ctx);
        }
        log_handled!("OllamaStatusChanged", started, true);
    }
}

impl Handler<JobFailed> for AiWorkerActor {
    type Result = ();

    fn handle(&mut self, msg: JobFailed, ctx: &mut Context<Self>) {
        let started = Instant::now();
        let JobFailed {
            note_id,
            reason,
            error,
        } = msg;
        let error = format!("{}: {error}", reason.as_str());
        tracing::info!(%note_id, reason = reason.as_str(), %error, "provider call failed");
        self.apply_failure(note_id, reason, error, AfterWrite::FinishCall, ctx);
        log_handled!("JobFailed", started, true);
    }
}

impl Handler<GetWorkerStatus> for AiWorkerActor {
    type Result = MessageResult<GetWorkerStatus>;

    fn handle(&mut self, _: GetWorkerStatus, _: &mut Context<Self>) -> Self::Result {
        let started = Instant::now();
        let now = self.clock.now();
        let state = if !self.loaded {
            WorkerState::Starting
        } else if let Some(note_id) = &self.in_flight {
            WorkerState::Running {
                note_id: note_id.clone(),
            }
        } else if let Some(until) = self.storage_wait_until(now) {
            WorkerState::StorageUnavailable {
                until: timestamp(until),
            }
        } else if let Some((until, step)) = self.parked_until.filter(|(u, _)| *u > now) {
            WorkerState::Parked {
                until: timestamp(until),
                step,
            }
        } else if let Some((at, _)) = self.order.first() {
            WorkerState::Waiting {
                until: timestamp(*at),
            }
        } else {
            WorkerState::Idle
        };
        log_handled!("GetWorkerStatus", started, true);
        MessageResult(WorkerStatus {
            state,
            queued: self.jobs.len(),
        })
    }
}
