//! Every decision of the AI worker, as a state machine over plain data: the functional
//! core. The actor around it ([`super`]) is the imperative shell.
//!
//! [`WorkerCore`] holds the queue, the bodies read ahead, the call in flight, the
//! worker-wide outage park, the disk-trouble wait and whether the provider is ready.
//! Each thing the actor hears (a message, its timer, a reply from the repository or
//! the provider) is one method here: it takes `now`, updates the state, and returns
//! the [`Effect`]s for the actor to carry out, in order. The replies to those effects
//! come back as the next events. Nothing here does I/O or knows actix, awc or
//! rusqlite, so every rule of the policy (docs/DESIGN.md, "The worker policy") is
//! unit-tested below without a runtime.
//!
//! The rules, in short:
//! - one provider call at a time; when a job is due it runs, otherwise one timer is set
//!   for the earliest `next_run_at`, and nothing else wakes the worker (no polling);
//! - unreachable parks the whole worker (the provider is down for everyone),
//!   `30 s → … → 900 s`, never counts an attempt, never fails a note;
//! - a call that ran out of time is the provider's only when the health check agrees:
//!   with Ollama up and the model there, the note is slow, not the provider down. The
//!   worker goes on with the next note, and the slow one is tried again later with a
//!   longer deadline (doubling, up to `ollama.max_request_timeout_ms`), never failed;
//! - a missing model is the provider's state: the worker parks and makes no call while
//!   the health check says the model is missing, and resumes when it is there;
//! - schema/other delays only its own job and counts an attempt; the last one marks
//!   the note failed. A retry after a refused answer is a different request: it shows
//!   the model its answer and what was wrong, samples anew, and after an answer cut off
//!   at the token limit gives it more room;
//! - a cold model is loaded first, on its own deadline (at start-up, after an outage,
//!   after `ollama.keep_alive` without a call), so a load is never charged to a note;
//! - a ready provider (health monitor, recheck, retry-all) resumes at once: jobs parked
//!   on the outage become due, jobs waiting out their own delay keep their time;
//! - an answer is saved beside the next call (the commit and the model use different
//!   resources); an answer lost to disk trouble makes the whole worker wait, saving
//!   each answer before the next call until a save succeeds, and any other refusal is
//!   that note's own `other` failure.

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use super::backoff::{
    next_outage_step, outage_backoff, retry_backoff, slow_note_deadline, storage_wait,
};
use super::model_time::{ModelTime, ModelUse};
use super::queue::{Queue, QueuedJob};
use crate::ai::enrichment::output_tokens;
use crate::ai::{
    classify_reason, CallPlan, FailureReason, ProviderError, ProviderHealth, RefusedAnswer,
};
use crate::configuration::{OllamaSettings, WorkerSettings};
use crate::domain::{timestamp, Enrichment, Note, WaitReason};

/// How many upcoming jobs' bodies are read in one query (at most 64 KiB each).
pub const PREFETCH: usize = 32;

/// After this many timeouts while Ollama was up, a note is shown as slow, with what to do.
pub const SLOW_AFTER_TIMEOUTS: u32 = 3;

/// The rules the core applies: the worker's schedule and the calls' deadlines.
#[derive(Debug, Clone)]
pub struct WorkerRules {
    pub schedule: WorkerSettings,
    /// A call's first deadline (`ollama.request_timeout_ms`).
    pub request_timeout: std::time::Duration,
    /// The longest deadline a slow note gets (`ollama.max_request_timeout_ms`).
    pub max_request_timeout: std::time::Duration,
    /// How long the model stays loaded after a call (`ollama.keep_alive`); `None`: for
    /// ever.
    pub keep_alive: Option<std::time::Duration>,
}

impl WorkerRules {
    pub fn new(schedule: WorkerSettings, ollama: &OllamaSettings) -> Self {
        WorkerRules {
            schedule,
            request_timeout: ollama.request_timeout(),
            max_request_timeout: ollama.max_request_timeout(),
            keep_alive: ollama.keep_alive(),
        }
    }
}

/// How long one job waits after the database failed to read it or to mark it failed.
/// (A lost answer makes the whole worker wait instead: [`storage_wait`].)
pub const STORAGE_RETRY_DELAY: TimeDelta = TimeDelta::seconds(30);

/// What the actor does for the core. Each one that needs an answer names the method
/// the answer goes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Replace the one wake-up timer: cancel the pending one, and set a new one for
    /// `Some(at)` (answer: [`WorkerCore::woke`]).
    Wake(Option<DateTime<Utc>>),
    /// Read the bodies of `ids`, still pending and active; `note_id`, the first, is
    /// the job about to run (answer: [`WorkerCore::bodies_read`]).
    ReadBodies { note_id: String, ids: Vec<String> },
    /// Ask the provider about one note, as planned (answer: [`WorkerCore::answered`] or
    /// [`WorkerCore::call_failed`]).
    CallProvider {
        note_id: String,
        body: String,
        plan: CallPlan,
    },
    /// Load the model, on its own deadline (answer: [`WorkerCore::model_loaded`]).
    LoadModel,
    /// A call ran out of time: ask the health monitor now whether Ollama is up (answer:
    /// [`WorkerCore::timeout_checked`]).
    CheckHealth { note_id: String, error: String },
    /// Store a slow note's timeout: its count, when it runs next, the error; its
    /// attempts stay (answer: [`WorkerCore::write_done`]).
    StoreSlowTimeout {
        note_id: String,
        next_run_at: DateTime<Utc>,
        slow_timeouts: u32,
        last_error: String,
    },
    /// A stretch of the model's time ended: what it went into (the usage log).
    CountModelTime { usage: ModelUse, ms: u64 },
    /// The model is there: notes that failed only because it was missing (data from
    /// before that was the provider's state) go back to pending (answer:
    /// [`WorkerCore::enqueued`]).
    RequeueModelMissingFailures,
    /// Save an answer: the note becomes done and its job row goes (answer:
    /// [`WorkerCore::saved`]).
    Save {
        save: PendingSave,
        enrichment: Enrichment,
    },
    /// Store when a job parked on an outage runs next; its attempts stay (answer:
    /// [`WorkerCore::write_done`]).
    StoreNextRun {
        note_id: String,
        at: DateTime<Utc>,
        last_error: String,
        ends_call: bool,
    },
    /// Count a failed attempt and store when the job runs next (answer:
    /// [`WorkerCore::write_done`]).
    StoreAttempt {
        note_id: String,
        next_run_at: DateTime<Utc>,
        last_error: String,
        ends_call: bool,
    },
    /// Mark the note failed; its job row goes (answer: [`WorkerCore::marked_failed`]).
    MarkFailed { failure: Failure, ends_call: bool },
    /// Tell the health monitor the provider looks down.
    SuspectDown,
    /// A note was enriched and its answer kept: say so (usage log; the live page, with
    /// the note as saved, unless it was deleted meanwhile).
    AnnounceEnriched { note: Option<Note>, latency_ms: u64 },
    /// A note was marked failed: say so (`JobFailed`, the live page). The repository
    /// announces the new counts itself.
    AnnounceFailed { failure: Failure, note: Note },
    /// A note timed out [`SLOW_AFTER_TIMEOUTS`] times or more while Ollama was up: say
    /// so (the live page marks it, with what to do).
    AnnounceSlow(SlowNote),
}

/// A note that ran out of attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub note_id: String,
    /// Schema or other: an outage never fails a note.
    pub reason: FailureReason,
    pub attempts: u32,
    /// The note's `ai_error`: "reason: what went wrong".
    pub error: String,
}

/// An answer on its way to the database, and what the core needs when the save is
/// answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSave {
    pub note_id: String,
    /// The body the answer is about: a note edited since keeps its new job instead.
    pub body: String,
    /// The job's attempts when it left the queue, for putting it back.
    pub attempts: u32,
    pub latency_ms: u64,
    /// The model's time the call took (the worker's clock), counted when the save ends.
    pub model_ms: u64,
    /// Saved beside the next call (the usual case) rather than before it.
    pub beside_next_call: bool,
}

/// How a save of an answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveOutcome {
    /// Saved: the note as it is now.
    Saved(Box<Note>),
    /// The note was deleted meanwhile: nothing to save to, and the disk is fine.
    NoteGone,
    /// The note was edited since the AI read it: the answer is for a body it no longer
    /// has, and its new job (queued by the edit) stands.
    Stale,
    /// The disk is full, read-only or failing: every save would fail the same way.
    DiskTrouble(String),
    /// Refused for another reason (a constraint, a bug): this note's own problem.
    Refused(String),
    /// The repository did not answer (the service is stopping).
    RepositoryGone,
}

/// How marking a note failed ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkOutcome {
    /// Marked: the note as it is now.
    Marked(Box<Note>),
    /// Deleted, trashed or requeued meanwhile: nothing to mark.
    NoteGone,
    /// Not written: the note is still pending in the database.
    Refused(String),
    RepositoryGone,
}

/// What the worker is doing, for `/api/status` and `inkling status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Ollama runs, but the model is not installed: no call until it is.
    WaitingForModel,
    /// Loading the model before the next note.
    LoadingModel,
    /// An answer could not be saved (a full disk, an I/O error): no call before
    /// `until`, since its answer would be lost too.
    StorageUnavailable { until: String },
}

/// The worker's state and the size of its queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerStatus {
    #[serde(flatten)]
    pub state: WorkerState,
    /// Jobs in the queue (including one in flight).
    pub queued: usize,
    /// Notes that timed out [`SLOW_AFTER_TIMEOUTS`] times or more while Ollama was up.
    #[serde(default)]
    pub slow_notes: Vec<SlowNote>,
    /// Where the model's time went since the service started.
    #[serde(default)]
    pub model_time: ModelTime,
}

/// A note that keeps taking longer than its deadline while Ollama is up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowNote {
    pub note_id: String,
    /// Timeouts while Ollama was up.
    pub timeouts: u32,
    /// The first deadline (`ollama.request_timeout_ms`).
    pub request_timeout_ms: u64,
    /// The deadline of its next try.
    pub next_deadline_ms: u64,
}

/// The worker-wide park after an outage failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Park {
    until: DateTime<Utc>,
    /// The index in `worker.unreachable_backoffs_ms` of the wait being served.
    step: usize,
}

/// Answers lost in a row because the database could not be written, and until when
/// the worker makes no call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DiskTrouble {
    lost_saves: u32,
    retry_at: DateTime<Utc>,
}

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

fn after(now: DateTime<Utc>, wait: std::time::Duration) -> DateTime<Utc> {
    now + TimeDelta::from_std(wait).unwrap_or(TimeDelta::MAX)
}

/// Whether the model is loaded, as far as the worker knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Model {
    /// Not loaded, or not known to be (start-up, after an outage, after keep-alive).
    Cold,
    /// Loaded by a call or a load, and kept until then (`None`: for ever).
    WarmUntil(Option<DateTime<Utc>>),
    /// A load failed: the next note's call loads it (or finds Ollama gone, and parks
    /// the worker with that note's bookkeeping, as any failed call does).
    LoadFailed,
}

/// The worker's whole state.
#[derive(Debug)]
pub struct WorkerCore {
    rules: WorkerRules,
    queue: Queue,
    /// Bodies of the next few jobs, read in one query ([`PREFETCH`]).
    bodies: HashMap<String, String>,
    /// The note whose call (or its bookkeeping) is in flight: at most one. While it is
    /// `Some`, no timer is pending.
    in_flight: Option<String>,
    /// The body the call in flight is about, once it was sent.
    in_flight_body: Option<String>,
    /// The note in flight was queued again while its call ran (edited, or its AI asked
    /// for again): that new entry stands whatever the call brings.
    in_flight_requeued: bool,
    parked: Option<Park>,
    /// Consecutive unreachable/timeout failures (capped); reset by a success only.
    outage_step: usize,
    /// `Some` from an answer lost to disk trouble until the next save that succeeds.
    disk_trouble: Option<DiskTrouble>,
    /// The queue has been loaded from the database.
    loaded: bool,
    /// The provider's health as the monitor last announced it (`None`: not checked
    /// yet, and no call is made before it is: the first check takes milliseconds, and
    /// it says whether to load the model first or to wait for one to be pulled).
    health: Option<ProviderHealth>,
    model: Model,
    /// The model is being loaded (no call meanwhile).
    loading_model: bool,
    /// Each job's last refused answer, shown to the model on its next call. In memory
    /// only: after a restart the retry still samples anew (its seed is its attempt).
    refused: HashMap<String, RefusedAnswer>,
    /// When the call or load in flight started (the model's time is counted from it).
    model_busy_since: Option<DateTime<Utc>>,
    model_time: ModelTime,
}

impl WorkerCore {
    pub fn new(rules: WorkerRules) -> Self {
        WorkerCore {
            rules,
            queue: Queue::default(),
            bodies: HashMap::new(),
            in_flight: None,
            in_flight_body: None,
            in_flight_requeued: false,
            parked: None,
            outage_step: 0,
            disk_trouble: None,
            loaded: false,
            health: None,
            model: Model::Cold,
            loading_model: false,
            refused: HashMap::new(),
            model_busy_since: None,
            model_time: ModelTime::default(),
        }
    }

    /// The model's time since the call or load in flight started (none in flight: 0).
    fn model_ms(&mut self, now: DateTime<Utc>) -> u64 {
        self.model_busy_since
            .take()
            .map_or(0, |since| (now - since).num_milliseconds().max(0) as u64)
    }

    /// Counts a stretch of the model's time, for `/api/status` and the usage log; a
    /// stretch of no time (nothing was in flight) is no event.
    fn spent(&mut self, usage: ModelUse, ms: u64) -> Vec<Effect> {
        if ms == 0 {
            return Vec::new();
        }
        self.model_time.add(usage, ms);
        vec![Effect::CountModelTime { usage, ms }]
    }

    fn provider_ready(&self) -> bool {
        self.health.as_ref().is_some_and(ProviderHealth::is_ready)
    }

    fn waiting_for_model(&self) -> bool {
        matches!(self.health, Some(ProviderHealth::ModelMissing { .. }))
    }

    // ----- what the actor hears -----------------------------------------------------

    /// The queue as the database has it, at start-up. The outage step starts at 0;
    /// if the provider was already announced ready, jobs parked on an outage before the
    /// restart run at once.
    pub fn loaded(
        &mut self,
        jobs: impl IntoIterator<Item = (String, QueuedJob)>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        for (note_id, job) in jobs {
            self.queue.upsert(note_id, job);
        }
        self.loaded = true;
        tracing::info!(jobs = self.queue.len(), "AI queue loaded");
        if self.provider_ready() {
            self.resume("provider already healthy at start-up", now)
        } else {
            self.schedule(now)
        }
    }

    /// Notes just stored as pending with no attempts, due at `at` (captures, or failed
    /// notes requeued): any entry still here is stale bookkeeping and is replaced. A
    /// write just succeeded, so a disk-trouble wait ends.
    pub fn enqueued(
        &mut self,
        note_ids: Vec<String>,
        at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        for note_id in note_ids {
            self.requeued(&note_id);
            self.queue.upsert(note_id, QueuedJob::fresh(at));
        }
        self.storage_may_be_back("notes were just stored as pending", now);
        self.schedule(now)
    }

    /// A note came back from the trash, or had its AI asked for again, with its job as
    /// stored (attempts included, so a trip through the trash buys no attempts).
    pub fn tracked(&mut self, note_id: String, job: QueuedJob, now: DateTime<Utc>) -> Vec<Effect> {
        self.requeued(&note_id);
        self.queue.upsert(note_id, job);
        self.storage_may_be_back("a note was just restored", now);
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
        let was_known = self.health.is_some();
        if !health.is_ready() {
            self.model = Model::Cold;
        }
        self.health = Some(health);
        if self.provider_ready() {
            let mut effects = Vec::new();
            if !was_ready {
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

    /// The answer to [`Effect::LoadModel`]. Loaded: on to the notes. Failed (Ollama
    /// gone, the model missing, a load past its deadline, which Ollama goes on with):
    /// the next note's call goes ahead, and what it meets decides as for any call (an
    /// outage parks the worker with that job's bookkeeping; a timeout is judged by the
    /// health check). A load charges no note either way.
    pub fn model_loaded(
        &mut self,
        loaded: Result<(), ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        self.loading_model = false;
        let ms = self.model_ms(now);
        let mut effects = self.spent(ModelUse::Loading, ms);
        match loaded {
            Ok(()) => {
                tracing::info!("model loaded");
                self.model_used(now);
            }
            Err(error) => {
                tracing::warn!(reason = classify_reason(&error).as_str(), %error,
                    "loading the model failed; the next note's call goes ahead");
                self.model = Model::LoadFailed;
            }
        }
        effects.extend(self.schedule(now));
        effects
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
                self.bodies.extend(bodies);
                match self.bodies.remove(&note_id) {
                    Some(body) => vec![self.call(note_id, body, now)],
                    None => {
                        // Gone, trashed or no longer pending: not a job any more.
                        tracing::debug!(%note_id, "job dropped: the note is no longer pending");
                        self.drop_job(&note_id);
                        self.finish(now)
                    }
                }
            }
            Err(error) => {
                tracing::error!(%note_id, %error, "cannot read the note; trying again later");
                let wait = self.queue.get(&note_id).and_then(|job| job.wait_reason);
                self.queue
                    .reschedule(&note_id, now + STORAGE_RETRY_DELAY, wait);
                self.finish(now)
            }
        }
    }

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
        let beside_next_call = self.disk_trouble.is_none();
        let attempts = self.queue.attempts(&note_id);
        let body = self.in_flight_body.take().unwrap_or_default();
        let model_ms = self.model_ms(now);
        self.model_used(now);
        if !self.in_flight_requeued {
            self.drop_job(&note_id);
        }
        if self.outage_step > 0 {
            tracing::info!("provider answered; outage backoff reset");
        }
        self.outage_step = 0;
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
            // Slow note or Ollama down? The monitor looks now; the call stays in
            // flight until it has answered.
            effects.push(Effect::CheckHealth { note_id, error });
            return effects;
        }
        if !reason.is_provider_outage() {
            // Ollama answered: the model is loaded now.
            self.model_used(now);
        }
        if self.in_flight_requeued && !reason.is_provider_outage() {
            // About a body the note may no longer have; its new job stands as queued.
            tracing::info!(%note_id, "the note was queued again meanwhile; the failure is not counted");
            effects.extend(self.finish(now));
            return effects;
        }
        effects.extend(self.apply_failure(note_id.clone(), reason, error, true, now));
        if let ProviderError::Unusable(refused) = failure {
            if self.queue.contains(&note_id) {
                self.refused.insert(note_id, refused);
            }
        }
        effects
    }

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
            self.model = Model::Cold;
            self.health = Some(health);
            return self.apply_failure(note_id, FailureReason::Timeout, error, true, now);
        }
        self.health = Some(health);
        self.model_used(now);
        if self.in_flight_requeued || !self.queue.contains(&note_id) {
            tracing::info!(%note_id, "slow call of a note queued again or trashed meanwhile; not counted");
            return self.finish(now);
        }
        let slow_timeouts = self
            .queue
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
            "a note took longer than its deadline while Ollama is up; the others go first");
        self.queue.set_slow_timeouts(&note_id, slow_timeouts);
        self.queue
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
                if self.disk_trouble.take().is_some() {
                    tracing::info!("an answer was saved again; storage is back");
                }
                tracing::info!(note_id = %save.note_id, latency_ms = save.latency_ms, "note enriched");
                let note = match outcome {
                    SaveOutcome::Saved(note) => Some(*note),
                    _ => None,
                };
                effects.push(Effect::AnnounceEnriched {
                    note,
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
            MarkOutcome::Marked(note) => {
                tracing::info!(note_id = %failure.note_id, attempts = failure.attempts, "note marked failed");
                effects.push(Effect::AnnounceFailed {
                    failure,
                    note: *note,
                });
            }
            MarkOutcome::NoteGone => {}
            MarkOutcome::Refused(error) => {
                // Still pending in the database: keep it queued, try later (unless a
                // retry-all queued it afresh meanwhile: that entry stands).
                tracing::error!(note_id = %failure.note_id, %error,
                    "cannot mark the note failed; trying again later");
                if !self.queue.contains(&failure.note_id) {
                    self.queue.upsert(
                        failure.note_id,
                        QueuedJob {
                            attempts: failure.attempts.saturating_sub(1),
                            wait_reason: Some(WaitReason::Retry),
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

    /// What the worker is doing at `now`.
    pub fn status(&self, now: DateTime<Utc>) -> WorkerStatus {
        let state = if !self.loaded {
            WorkerState::Starting
        } else if self.loading_model {
            WorkerState::LoadingModel
        } else if let Some(note_id) = &self.in_flight {
            WorkerState::Running {
                note_id: note_id.clone(),
            }
        } else if let Some(until) = self.storage_wait_until(now) {
            WorkerState::StorageUnavailable {
                until: timestamp(until),
            }
        } else if self.waiting_for_model() && !self.queue.is_empty() {
            WorkerState::WaitingForModel
        } else if let Some(park) = self.parked.filter(|park| park.until > now) {
            WorkerState::Parked {
                until: timestamp(park.until),
                step: park.step,
            }
        } else if let Some((at, _)) = self.queue.first() {
            WorkerState::Waiting {
                until: timestamp(at),
            }
        } else {
            WorkerState::Idle
        };
        let mut slow_notes: Vec<SlowNote> = self
            .queue
            .slow(SLOW_AFTER_TIMEOUTS)
            .map(|(note_id, timeouts)| self.slow_note(note_id.to_string(), timeouts))
            .collect();
        slow_notes.sort_by(|a, b| a.note_id.cmp(&b.note_id));
        WorkerStatus {
            state,
            queued: self.queue.len(),
            slow_notes,
            model_time: self.model_time.clone(),
        }
    }

    // ----- the rules ----------------------------------------------------------------

    /// A note is queued afresh: a body read ahead may be stale (an edit), and if its
    /// call is in flight, the new entry must outlive that call.
    fn requeued(&mut self, note_id: &str) {
        self.bodies.remove(note_id);
        self.refused.remove(note_id);
        if self.in_flight.as_deref() == Some(note_id) {
            self.in_flight_requeued = true;
        }
    }

    fn drop_job(&mut self, note_id: &str) {
        self.bodies.remove(note_id);
        self.refused.remove(note_id);
        self.queue.remove(note_id);
    }

    /// What is said about a slow note.
    fn slow_note(&self, note_id: String, timeouts: u32) -> SlowNote {
        SlowNote {
            note_id,
            timeouts,
            request_timeout_ms: self.rules.request_timeout.as_millis() as u64,
            next_deadline_ms: self.deadline_for(timeouts).as_millis() as u64,
        }
    }

    /// The deadline of a call after `slow_timeouts` timeouts while Ollama was up.
    fn deadline_for(&self, slow_timeouts: u32) -> std::time::Duration {
        slow_note_deadline(
            slow_timeouts,
            self.rules.request_timeout,
            self.rules.max_request_timeout,
        )
    }

    /// Ollama just answered (a note, a load): the model stays loaded for keep-alive.
    fn model_used(&mut self, now: DateTime<Utc>) {
        self.model = Model::WarmUntil(self.rules.keep_alive.map(|keep| after(now, keep)));
    }

    /// Whether the model must be loaded before the next call: only with Ollama known
    /// up (a call to a down provider is the probe) and the model not known loaded.
    fn needs_load(&self, now: DateTime<Utc>) -> bool {
        self.provider_ready()
            && match self.model {
                Model::Cold => true,
                Model::WarmUntil(None) | Model::LoadFailed => false,
                Model::WarmUntil(Some(until)) => until <= now,
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
    fn storage_may_be_back(&mut self, why: &'static str, now: DateTime<Utc>) {
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
    fn resume(&mut self, why: &'static str, now: DateTime<Utc>) -> Vec<Effect> {
        for note_id in self.queue.waiting_on_provider(now) {
            self.queue
                .reschedule(&note_id, now, Some(WaitReason::Provider));
        }
        if self.parked.take().is_some() {
            tracing::info!(why, "resuming: the provider is healthy again");
        }
        self.schedule(now)
    }

    /// The call in flight and its bookkeeping are over: on to the next job.
    fn finish(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        self.in_flight = None;
        self.in_flight_body = None;
        self.in_flight_requeued = false;
        self.schedule(now)
    }

    /// Runs the earliest due job, or sets the one timer for when one will be due.
    /// Nothing while loading or while a call is in flight (its end schedules).
    fn schedule(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        if !self.loaded || self.in_flight.is_some() || self.loading_model || self.health.is_none() {
            return Vec::new();
        }
        if let Some(until) = self.storage_wait_until(now) {
            return vec![Effect::Wake(Some(until))];
        }
        if let Some(park) = self.parked {
            if park.until > now {
                return vec![Effect::Wake(Some(park.until))];
            }
            self.parked = None;
        }
        if self.waiting_for_model() {
            // The monitor checks every health interval; its "ready" resumes.
            return vec![Effect::Wake(None)];
        }
        let Some((at, note_id)) = self.queue.first() else {
            return vec![Effect::Wake(None)]; // idle: nothing to wake up for
        };
        if at > now {
            return vec![Effect::Wake(Some(at))];
        }
        if self.needs_load(now) {
            tracing::info!("loading the model before the next note");
            self.loading_model = true;
            self.model_busy_since = Some(now);
            return vec![Effect::Wake(None), Effect::LoadModel];
        }
        let note_id = note_id.to_string();
        vec![Effect::Wake(None), self.start_call(note_id, now)]
    }

    /// The job's call starts: with its body if it was read ahead, else by reading it
    /// and the next ones' in one query.
    fn start_call(&mut self, note_id: String, now: DateTime<Utc>) -> Effect {
        self.in_flight = Some(note_id.clone());
        self.in_flight_requeued = false;
        if let Some(body) = self.bodies.remove(&note_id) {
            return self.call(note_id, body, now);
        }
        let ids = std::iter::once(note_id.clone())
            .chain(
                self.queue
                    .ids_in_order()
                    .filter(|id| *id != note_id)
                    .take(PREFETCH - 1)
                    .map(str::to_string),
            )
            .collect();
        Effect::ReadBodies { note_id, ids }
    }

    /// The provider call for the job in flight, its body kept for the save, planned:
    /// the deadline its slow timeouts give it, and after a refused answer that answer
    /// (shown to the model), a new seed and, if it was cut off, more room.
    fn call(&mut self, note_id: String, body: String, now: DateTime<Utc>) -> Effect {
        self.in_flight_body = Some(body.clone());
        self.model_busy_since = Some(now);
        let job = self.queue.get(&note_id).copied();
        let attempt = job.map_or(0, |job| job.attempts);
        let refused = self.refused.get(&note_id).cloned();
        let cut_offs = match &refused {
            Some(refused) if refused.cut_off => attempt.max(1),
            _ => 0,
        };
        let plan = CallPlan {
            deadline: self.deadline_for(job.map_or(0, |job| job.slow_timeouts)),
            refused,
            attempt,
            output_tokens: output_tokens(cut_offs),
        };
        Effect::CallProvider {
            note_id,
            body,
            plan,
        }
    }

    /// What the policy does with one failure of a queued job ([`decide`]): park the
    /// worker (unreachable/timeout), or count an attempt and retry the job later, or
    /// mark the note failed after its last attempt. The queue is updated at once, the
    /// database write follows; `ends_call` says whether that write ends the call in
    /// flight (a refused save runs beside the next call, so it does not).
    fn apply_failure(
        &mut self,
        note_id: String,
        reason: FailureReason,
        error: String,
        ends_call: bool,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let attempts_before = self.queue.attempts(&note_id);
        let decision = decide(
            reason,
            self.outage_step,
            attempts_before,
            &self.rules.schedule,
        );
        tracing::info!(%note_id, reason = reason.as_str(), ?decision, "failure decided");
        match decision {
            FailureDecision::ParkWorker { wait, next_step } => {
                let until = after(now, wait);
                tracing::info!(until = %timestamp(until), step = self.outage_step,
                    "provider unavailable; worker parked");
                self.parked = Some(Park {
                    until,
                    step: self.outage_step,
                });
                self.outage_step = next_step;
                // Ollama restarted or went away: the model needs loading again.
                self.model = Model::Cold;
                self.queue
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
                self.queue.set_attempts(&note_id, attempts);
                self.queue.reschedule(&note_id, at, Some(WaitReason::Retry));
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

    /// An answer was lost because the disk is full, read-only or failing. Every other
    /// answer would be lost the same way, so the whole worker waits (a wait that grows
    /// with each lost answer; [`storage_wait`]) and no attempt is counted: the note is
    /// not at fault. Its job goes back as it was, due at once behind the wait.
    fn answer_lost_to_the_disk(&mut self, save: &PendingSave, error: &str, now: DateTime<Utc>) {
        let note_id = &save.note_id;
        if let Some(until) = self.storage_wait_until(now) {
            // Lost in the same stretch as the one that started the wait (answers saved
            // beside the next call): the wait stands as it is.
            tracing::error!(%note_id, %error, until = %timestamp(until),
                "cannot save the enrichment; the worker is already waiting");
        } else {
            let lost_saves = self
                .disk_trouble
                .map_or(0, |trouble| trouble.lost_saves)
                .saturating_add(1);
            let until = after(now, storage_wait(lost_saves));
            tracing::error!(%note_id, %error, lost_saves, until = %timestamp(until),
                "cannot save the enrichment; the worker waits, then tries again");
            self.disk_trouble = Some(DiskTrouble {
                lost_saves,
                retry_at: until,
            });
        }
        if !self.queue.contains(note_id) {
            self.queue.upsert(
                note_id.clone(),
                QueuedJob {
                    attempts: save.attempts,
                    ..QueuedJob::fresh(now)
                },
            );
        }
    }

    /// An answer was refused for a reason other than the disk (a constraint, a bug):
    /// the note's own `other` failure. It counts an attempt like a failed call, so a
    /// note that can never be saved ends `failed` with the reason on it, retryable by
    /// hand, instead of buying an answer every 30 s for ever.
    fn answer_refused(
        &mut self,
        save: &PendingSave,
        error: &str,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let note_id = &save.note_id;
        if self.queue.contains(note_id) {
            // Queued again meanwhile (a restore, a retry-all): that entry stands.
            tracing::error!(%note_id, %error,
                "cannot save the enrichment; the job was queued again meanwhile");
            return Vec::new();
        }
        tracing::error!(%note_id, %error, "cannot save the enrichment; counted as a failed attempt");
        self.queue.upsert(
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
    use super::*;

    fn rules() -> WorkerRules {
        WorkerRules {
            schedule: WorkerSettings {
                unreachable_backoffs_ms: vec![30_000, 60_000, 120_000, 240_000, 480_000, 900_000],
                retry_backoffs_ms: vec![0, 30_000, 120_000],
                max_attempts: 3,
            },
            request_timeout: std::time::Duration::from_secs(120),
            max_request_timeout: std::time::Duration::from_secs(600),
            keep_alive: None,
        }
    }

    /// A failed call of `reason`, as the provider would report it (`Timeout`: Ollama's
    /// own 503 "busy", which needs no health check; our deadline is `timed_out`).
    fn failure(reason: FailureReason, text: impl Into<String>) -> ProviderError {
        let text = text.into();
        match reason {
            FailureReason::Unreachable => ProviderError::Unreachable(text),
            FailureReason::Timeout => ProviderError::Status {
                code: 503,
                message: text,
            },
            FailureReason::Schema => ProviderError::Invalid(text),
            FailureReason::Other => ProviderError::Unexpected(text),
            FailureReason::ModelMissing => ProviderError::Status {
                code: 404,
                message: format!("model 'llama3.2' not found ({text})"),
            },
        }
    }

    fn timed_out() -> ProviderError {
        ProviderError::TimedOut("no complete answer within 120000 ms".into())
    }

    fn up() -> ProviderHealth {
        ProviderHealth::Ready
    }

    fn down() -> ProviderHealth {
        ProviderHealth::NotRunning {
            detail: "refused".into(),
        }
    }

    fn model_missing() -> ProviderHealth {
        ProviderHealth::ModelMissing {
            model: "llama3.2".into(),
        }
    }

    /// `seconds` after the tests' t0.
    fn t(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).expect("in range")
    }

    fn enrichment() -> Enrichment {
        Enrichment {
            title: "A title".into(),
            tags: vec!["tag".into()],
            summary: "A summary.".into(),
            read_chars: None,
        }
    }

    /// The note as the repository would answer after a write.
    fn note(id: &str, status: crate::domain::AiStatus) -> Note {
        Note {
            id: id.into(),
            body: format!("body of {id}"),
            title: None,
            summary: None,
            tags: Vec::new(),
            ai_status: status,
            ai_error: None,
            created_at: timestamp(t(0)),
            updated_at: timestamp(t(0)),
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
        }
    }

    fn saved(id: &str) -> SaveOutcome {
        SaveOutcome::Saved(Box::new(note(id, crate::domain::AiStatus::Done)))
    }

    /// A loaded core with no jobs, Ollama up and the model loaded.
    fn started() -> WorkerCore {
        let mut core = WorkerCore::new(rules());
        assert_eq!(core.loaded([], t(0)), []);
        assert_eq!(
            core.health_changed(up(), t(0)),
            [Effect::RequeueModelMissingFailures, Effect::Wake(None)]
        );
        assert_eq!(core.model_loaded(Ok(()), t(0)), [Effect::Wake(None)]);
        core
    }

    /// The note whose call these effects start, with its body read (prefetched or
    /// answered by the test's "database").
    fn call_started(core: &mut WorkerCore, effects: Vec<Effect>, now: DateTime<Utc>) -> String {
        for effect in effects {
            match effect {
                Effect::CallProvider { note_id, .. } => return note_id,
                Effect::LoadModel => {
                    let effects = core.model_loaded(Ok(()), now);
                    return call_started(core, effects, now);
                }
                Effect::ReadBodies { note_id, ids } => {
                    let bodies = ids.iter().map(|id| (id.clone(), format!("body of {id}")));
                    let effects = core.bodies_read(note_id, Ok(bodies.collect()), now);
                    return call_started(core, effects, now);
                }
                _ => {}
            }
        }
        panic!("no call started")
    }

    fn wake_of(effects: &[Effect]) -> Option<Option<DateTime<Utc>>> {
        effects.iter().rev().find_map(|e| match e {
            Effect::Wake(at) => Some(*at),
            _ => None,
        })
    }

    /// Captures `id` at `now` and runs its call up to the provider.
    fn capture_and_call(core: &mut WorkerCore, id: &str, now: DateTime<Utc>) {
        let effects = core.enqueued(vec![id.into()], now, now);
        assert_eq!(call_started(core, effects, now), id);
    }

    /// Ends the bookkeeping write of a failure (as the repository's answer would).
    fn write_answered(
        core: &mut WorkerCore,
        effects: &[Effect],
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let ends_call = effects.iter().any(|e| {
            matches!(
                e,
                Effect::StoreNextRun {
                    ends_call: true,
                    ..
                } | Effect::StoreAttempt {
                    ends_call: true,
                    ..
                }
            )
        });
        core.write_done(ends_call, now)
    }

    /// The effects without the model-time counts (tests of other rules).
    fn untimed(effects: Vec<Effect>) -> Vec<Effect> {
        effects
            .into_iter()
            .filter(|e| !matches!(e, Effect::CountModelTime { .. }))
            .collect()
    }

    fn the_save(effects: &[Effect]) -> PendingSave {
        effects
            .iter()
            .find_map(|e| match e {
                Effect::Save { save, .. } => Some(save.clone()),
                _ => None,
            })
            .expect("a save")
    }

    // ----- scheduling ---------------------------------------------------------------

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
                .any(|e| matches!(e, Effect::CallProvider { .. })),
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
        assert!(
            matches!(&effects[..], [Effect::CallProvider { note_id, body, .. }]
                if note_id == "n00" && body == "body n00"),
            "{effects:?}"
        );
        let effects = core.answered("n00".into(), enrichment(), 5, t(1));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::CallProvider { note_id, body, .. }
            if note_id == "n01" && body == "body n01")));
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

    // ----- outages ------------------------------------------------------------------

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
            assert!(effects.contains(&Effect::SuspectDown));
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
            assert_eq!(core.queue.attempts("a"), 0, "never counted");
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
        assert_eq!(core.outage_step, 3);
        let effects = core.answered("a".into(), enrichment(), 5, now);
        assert_eq!(core.outage_step, 0);
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
        core.queue
            .reschedule("retrying", t(100), Some(WaitReason::Retry));
        core.outage_step = 4;

        let effects = core.health_changed(up(), t(10));
        assert_eq!(
            call_started(&mut core, effects, t(10)),
            "parked",
            "at once, not at 30 s"
        );
        assert_eq!(
            core.queue.get("retrying").map(|j| j.next_run_at),
            Some(t(100))
        );
        assert_eq!(core.outage_step, 4, "kept until a real success");
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

    // ----- the note's own failures --------------------------------------------------

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
                assert_eq!(core.queue.attempts("a"), attempt);
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
                !core.queue.contains("a"),
                "out of the queue before it is marked"
            );
            let failed = note("a", crate::domain::AiStatus::Failed);
            let effects = core.marked_failed(
                failure.clone(),
                MarkOutcome::Marked(Box::new(failed.clone())),
                true,
                now,
            );
            assert_eq!(
                effects[0],
                Effect::AnnounceFailed {
                    failure,
                    note: failed
                }
            );
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
        core.queue.remove("a");
        let effects = core.marked_failed(failure, MarkOutcome::Refused("busy".into()), true, t(0));
        assert_eq!(effects, [Effect::Wake(Some(t(30)))]);
        let job = core.queue.get("a").copied().expect("queued again");
        assert_eq!(
            (job.attempts, job.wait_reason),
            (2, Some(WaitReason::Retry))
        );
    }

    #[test]
    fn a_retry_all_between_giving_up_and_the_mark_keeps_its_fresh_entry() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        core.queue.set_attempts("a", 2);
        let effects = core.call_failed("a".into(), failure(FailureReason::Schema, "x"), t(0));
        let Some(Effect::MarkFailed { failure, .. }) = effects.first().cloned() else {
            panic!("{effects:?}")
        };
        core.enqueued(vec!["a".into()], t(1), t(1)); // retry-all, while in flight
        core.marked_failed(failure, MarkOutcome::NoteGone, true, t(1));
        assert_eq!(core.queue.get("a"), Some(&QueuedJob::fresh(t(1))));
    }

    // ----- saving answers -----------------------------------------------------------

    #[test]
    fn an_answer_is_saved_beside_the_next_call() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into(), "b".into()], t(0), t(0));
        call_started(&mut core, effects, t(0));
        let effects = core.answered("a".into(), enrichment(), 7, t(1));
        assert!(matches!(&effects[0], Effect::Save { save, .. } if save.beside_next_call));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::CallProvider { note_id, .. } if note_id == "b")));
        let save = the_save(&effects);
        let effects = untimed(core.saved(save, saved("a"), t(1)));
        assert_eq!(
            effects,
            [Effect::AnnounceEnriched {
                note: Some(note("a", crate::domain::AiStatus::Done)),
                latency_ms: 7
            }],
            "the call for b is still in flight: nothing to schedule"
        );
    }

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
            core.queue.get("a"),
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
        assert_eq!(core.queue.attempts("a") + core.queue.attempts("b"), 0);
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
                assert_eq!(core.queue.attempts("a"), attempt);
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
        assert_eq!(core.queue.get("a"), Some(&QueuedJob::fresh(t(2))));
    }

    // ----- restart and restore ------------------------------------------------------

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
            "Ollama not answering: the call is the probe"
        );
        let effects = core.answered("overdue".into(), enrichment(), 5, t(1));
        assert_eq!(wake_of(&effects), Some(Some(t(60))));
        assert_eq!(core.outage_step, 0, "the step starts at 0");
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

    // ----- a slow note, a missing model, a refused answer, a cold model -------------

    /// The plan of the call these effects start.
    fn plan_of(
        core: &mut WorkerCore,
        effects: Vec<Effect>,
        now: DateTime<Utc>,
    ) -> (String, CallPlan) {
        for effect in effects {
            match effect {
                Effect::CallProvider { note_id, plan, .. } => return (note_id, plan),
                Effect::ReadBodies { note_id, ids } => {
                    let bodies = ids.iter().map(|id| (id.clone(), format!("body of {id}")));
                    let effects = core.bodies_read(note_id, Ok(bodies.collect()), now);
                    return plan_of(core, effects, now);
                }
                Effect::LoadModel => {
                    let effects = core.model_loaded(Ok(()), now);
                    return plan_of(core, effects, now);
                }
                _ => {}
            }
        }
        panic!("no call started")
    }

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
        assert_eq!(core.queue.attempts("long"), 0, "no attempt counted");

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
            core.queue.attempts("long"),
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
        assert_eq!(core.queue.get("a").map(|j| j.slow_timeouts), Some(0));
    }

    #[test]
    fn a_missing_model_parks_with_no_attempt_and_no_call_until_it_is_there() {
        let mut core = started();
        capture_and_call(&mut core, "a", t(0));
        let effects = core.call_failed(
            "a".into(),
            failure(FailureReason::ModelMissing, "404"),
            t(0),
        );
        assert!(effects.contains(&Effect::SuspectDown));
        write_answered(&mut core, &effects, t(0));
        assert_eq!(core.queue.attempts("a"), 0);
        // The monitor confirms: no call at all while the model is missing, whatever
        // the park's timer says, and captures wait too.
        assert!(core.health_changed(model_missing(), t(1)).is_empty());
        assert_eq!(core.woke(t(30)), [Effect::Wake(None)]);
        assert_eq!(
            core.enqueued(vec!["b".into()], t(40), t(40)),
            [Effect::Wake(None)]
        );
        assert_eq!(core.status(t(40)).state, WorkerState::WaitingForModel);
        // Pulled: notes failed for it by an older release are requeued, the model is
        // loaded, and the work resumes at once.
        let effects = core.health_changed(up(), t(300));
        assert_eq!(effects[0], Effect::RequeueModelMissingFailures);
        assert!(effects.contains(&Effect::LoadModel), "{effects:?}");
        let effects = core.model_loaded(Ok(()), t(310));
        assert_eq!(call_started(&mut core, effects, t(310)), "a");
    }

    #[test]
    fn a_retry_after_a_refused_answer_shows_it_to_the_model_and_gets_more_room_if_cut_off() {
        let mut core = started();
        let effects = core.enqueued(vec!["a".into()], t(0), t(0));
        let (_, plan) = plan_of(&mut core, effects, t(0));
        assert_eq!(
            (plan.refused.clone(), plan.attempt, plan.output_tokens),
            (None, 0, 512)
        );
        let cut = RefusedAnswer::new(
            "the answer was cut off at the token limit",
            "{\"title\":",
            true,
        );
        let effects = core.call_failed("a".into(), ProviderError::Unusable(cut.clone()), t(1));
        write_answered(&mut core, &effects, t(1));
        let woke = core.woke(t(31));
        let (_, plan) = plan_of(&mut core, woke, t(31));
        assert_eq!(
            (plan.refused, plan.attempt, plan.output_tokens),
            (Some(cut), 1, 1024)
        );

        let wrong = RefusedAnswer::new("\"tags\" is \"a\", not a list", "{\"tags\":\"a\"}", false);
        let effects = core.call_failed("a".into(), ProviderError::Unusable(wrong.clone()), t(32));
        write_answered(&mut core, &effects, t(32));
        let woke = core.woke(t(152));
        let (_, plan) = plan_of(&mut core, woke, t(152));
        assert_eq!(
            (plan.refused, plan.attempt, plan.output_tokens),
            (Some(wrong), 2, 512)
        );

        // An edit queues the note afresh: its next call starts from scratch.
        let effects = untimed(core.call_failed(
            "a".into(),
            ProviderError::Unusable(RefusedAnswer::new("x", "y", false)),
            t(153),
        ));
        assert!(
            matches!(effects[0], Effect::MarkFailed { .. }),
            "the third counts"
        );
        assert!(core.refused.is_empty(), "a note given up on keeps no hint");
    }

    #[test]
    fn a_cold_model_is_loaded_first_and_again_after_keep_alive() {
        let mut rules = rules();
        rules.keep_alive = Some(std::time::Duration::from_secs(1800));
        let mut core = WorkerCore::new(rules);
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        let effects = core.health_changed(up(), t(0));
        assert!(
            effects.contains(&Effect::LoadModel),
            "start-up with work: load first"
        );
        assert_eq!(core.status(t(0)).state, WorkerState::LoadingModel);
        assert!(
            core.enqueued(vec!["b".into()], t(1), t(1)).is_empty(),
            "no call while loading"
        );
        let effects = core.model_loaded(Ok(()), t(20));
        let id = call_started(&mut core, effects, t(20));
        let effects = core.answered(id, enrichment(), 5, t(25));
        let id = call_started(&mut core, effects, t(25));
        let effects = core.answered(id, enrichment(), 5, t(30));
        assert_eq!(wake_of(&effects), Some(None));
        // Within keep-alive: straight to the call. After it: load first.
        let effects = core.enqueued(vec!["c".into()], t(600), t(600));
        let id = call_started(&mut core, effects, t(600));
        let effects = core.answered(id, enrichment(), 5, t(601));
        assert!(!effects.contains(&Effect::LoadModel));
        let effects = core.enqueued(vec!["d".into()], t(601 + 1800), t(601 + 1800));
        assert!(effects.contains(&Effect::LoadModel), "{effects:?}");
    }

    #[test]
    fn after_a_failed_load_the_notes_call_goes_ahead_and_decides_as_any_call() {
        let mut core = WorkerCore::new(rules());
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        core.health_changed(up(), t(0));
        let refused = ProviderError::Unreachable("refused".into());
        let effects = core.model_loaded(Err(refused), t(1));
        assert_eq!(
            call_started(&mut core, effects, t(1)),
            "a",
            "the call is the probe"
        );
        let effects = core.call_failed("a".into(), failure(FailureReason::Unreachable, "x"), t(1));
        assert!(effects
            .iter()
            .any(|e| matches!(e, Effect::StoreNextRun { at, .. } if *at == t(31))));
        write_answered(&mut core, &effects, t(1));
        let effects = core.resume_requested("recheck", t(5));
        assert!(
            effects.contains(&Effect::LoadModel),
            "back: load first again: {effects:?}"
        );
        let slow = ProviderError::TimedOut("slow disk".into());
        let effects = core.model_loaded(Err(slow), t(300));
        assert_eq!(call_started(&mut core, effects, t(300)), "a");
    }

    #[test]
    fn the_models_time_is_counted_as_kept_loading_or_wasted_per_reason() {
        let mut core = WorkerCore::new(rules());
        core.loaded([("a".to_string(), QueuedJob::fresh(t(0)))], t(0));
        core.health_changed(up(), t(0));
        let effects = core.model_loaded(Ok(()), t(15));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Loading,
            ms: 15_000
        }));
        let id = call_started(&mut core, effects, t(15));
        let effects = core.call_failed(id, failure(FailureReason::Schema, "bad"), t(25));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Schema,
            ms: 10_000
        }));
        write_answered(&mut core, &effects, t(25));
        let effects = core.woke(t(55));
        let id = call_started(&mut core, effects, t(55));
        let effects = core.answered(id, enrichment(), 5, t(60));
        let effects = core.saved(the_save(&effects), saved("a"), t(61));
        assert!(effects.contains(&Effect::CountModelTime {
            usage: ModelUse::Kept,
            ms: 5_000
        }));
        // An answer for an edited body is time wasted, not kept.
        let effects = core.enqueued(vec!["b".into()], t(70), t(70));
        let id = call_started(&mut core, effects, t(70));
        let effects = core.answered(id, enrichment(), 5, t(72));
        core.saved(the_save(&effects), SaveOutcome::Stale, t(72));
        let time = core.status(t(72)).model_time;
        assert_eq!((time.kept_ms, time.loading_ms), (5_000, 15_000));
        assert_eq!(
            time.wasted_ms,
            std::collections::BTreeMap::from([
                (ModelUse::Schema, 10_000),
                (ModelUse::Edited, 2_000)
            ])
        );
    }
}
