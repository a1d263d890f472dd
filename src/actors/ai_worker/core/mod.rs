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
//! unit-tested without a runtime, beside the rule it tests.
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
//!   that note's own `other` failure;
//! - with no note's title due, the notes' vectors are made in batches, newest first,
//!   in the same one-call-at-a-time line; their failures are never a note's;
//! - a person's question goes first: it runs as soon as the call in flight ends,
//!   before any background call, and the background resumes after it.
//! - a note's prompt carries its nearest neighbours' tags: a note with no vector yet is
//!   embedded first (one small call), when vectors can be made now, and enriched
//!   right after; otherwise nothing waits.
//!
//! One file per rule, each with its unit tests: [`schedule`] (one call at a time, the
//! timer, the read-ahead), [`policy`] (the outage park, the note's own failures),
//! [`order`] (the cheapest due job first, a long note's reading capped), [`plan`] (a
//! call's deadline and prompt, built once), [`context`] (the model's
//! context, a prompt that did not fit), [`slow`], [`model`] (warmth, loading, the
//! model's time), [`saving`], [`disk`], [`restart`], [`embedding`] (the notes'
//! vectors, when no title is due), [`neighbours`] (a note's own vector before its
//! title, for its neighbours' tags), [`query`] (a search's query embedded at once),
//! [`ask`] (a person's question first); [`effects`] is what the core asks
//! of the actor, [`status`] what it shows.

mod ask;
mod context;
mod disk;
mod effects;
mod embedding;
mod model;
mod neighbours;
mod order;
mod plan;
mod policy;
mod query;
mod restart;
mod saving;
mod schedule;
mod slow;
mod status;

#[cfg(test)]
mod test_fixture;

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};

use self::ask::Asks;
pub use self::ask::{AskJob, AskOutcome};
use self::disk::DiskTrouble;
pub use self::effects::{Effect, Failure, MarkOutcome, PendingSave, SaveOutcome};
use self::embedding::Embedding;
pub use self::embedding::{EmbeddingRules, EMBED_BATCH};
use self::model::Model;
pub use self::neighbours::NeighboursRead;
use self::neighbours::PromptVectorCall;
use self::policy::Park;
pub use self::policy::{decide, FailureDecision};
pub use self::query::{query_failed, QueryCall, QUERY_DEADLINE};
use super::queue::Queue;
use crate::ai::speed::ModelSpeed;
use crate::ai::{ProviderHealth, RefusedAnswer};
use crate::api::worker::ModelTime;
pub(crate) use crate::api::worker::{SlowNote, WorkerState, WorkerStatus};
use crate::configuration::{ProviderCalls, WorkerSettings};

/// How many upcoming jobs' bodies are read in one query (at most 64 KiB each).
pub const PREFETCH: usize = 32;

/// After this many timeouts while Ollama was up, a note is shown as slow, with what to do.
pub const SLOW_AFTER_TIMEOUTS: u32 = 3;

/// The rules the core applies: the worker's schedule and the calls' deadlines.
#[derive(Debug, Clone)]
pub struct WorkerRules {
    pub schedule: WorkerSettings,
    /// A call's first deadline (`ollama.request_timeout_ms`, `openai.…`).
    pub request_timeout: std::time::Duration,
    /// The longest deadline a slow note gets (`ollama.max_request_timeout_ms`).
    pub max_request_timeout: std::time::Duration,
    /// How long the model stays loaded after a call (`ollama.keep_alive`); `None`: for
    /// ever.
    pub keep_alive: Option<std::time::Duration>,
    /// How long loading the model may take (`ollama.load_timeout_ms`).
    pub load_timeout: std::time::Duration,
    /// The most context a call uses, in tokens (`ollama.num_ctx`,
    /// `openai.context_tokens`), never above the model's own once the provider has
    /// said it; `None`: the model's own.
    pub context_cap: Option<u32>,
    /// The longest a note's reading may take at the model's measured speed
    /// (`worker.longest_read_ms`); `None`: no cap but the context.
    pub longest_read: Option<std::time::Duration>,
    /// The embedding model, for the notes' vectors; `None`: no vectors.
    pub embedding: Option<EmbeddingRules>,
}

impl WorkerRules {
    pub fn new(schedule: WorkerSettings, calls: &ProviderCalls) -> Self {
        WorkerRules {
            longest_read: schedule.longest_read(),
            schedule,
            request_timeout: calls.request_timeout,
            max_request_timeout: calls.max_request_timeout,
            keep_alive: calls.keep_alive,
            load_timeout: calls.load_timeout,
            context_cap: calls.context_cap,
            embedding: None,
        }
    }

    /// The rules with the notes' vectors made by `embedding`.
    pub fn with_embedding(mut self, embedding: Option<EmbeddingRules>) -> Self {
        self.embedding = embedding;
        self
    }
}

/// How long one job waits after the database failed to read it or to mark it failed.
/// (A lost answer makes the whole worker wait instead: [`storage_wait`].)
pub const STORAGE_RETRY_DELAY: TimeDelta = TimeDelta::seconds(30);

fn after(now: DateTime<Utc>, wait: std::time::Duration) -> DateTime<Utc> {
    now + TimeDelta::from_std(wait).unwrap_or(TimeDelta::MAX)
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
    /// The model's speed on this machine, from the answers so far.
    speed: Option<ModelSpeed>,
    /// The context every call uses, once the provider has said the model's own (the
    /// smaller of it and the configured one); `None`: ask before the next load or call.
    context: Option<u32>,
    /// How many tokens the server counts for each one estimated, once a prompt that
    /// did not fit said (1.0 until then; estimates are meant to run high).
    token_scale: f64,
    /// A note's prompts that did not fit and gave no numbers: each halves its room.
    overflows: HashMap<String, u32>,
    /// When the provider was last seen ready after it was not (an outage is no wait
    /// behind shorter notes: [`order`]).
    ready_since: Option<DateTime<Utc>>,
    /// What the prompt in flight holds: how much of the note, and its estimated tokens.
    in_flight_read_chars: Option<u32>,
    in_flight_estimate: usize,
    /// The notes' vectors: made when no title is due ([`embedding`]).
    embedding: Embedding,
    /// The person's questions: the one being answered, those waiting ([`ask`]).
    asks: Asks,
    /// The call for the vector of the note in flight, before its prompt ([`neighbours`]).
    prompt_vector: Option<PromptVectorCall>,
    /// The note whose vector this call's preparation already asked for (one try).
    prompt_vector_tried: Option<String>,
}

impl WorkerCore {
    pub fn new(rules: WorkerRules) -> Self {
        WorkerCore {
            embedding: Embedding::new(rules.embedding.clone()),
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
            speed: None,
            ready_since: None,
            context: None,
            token_scale: 1.0,
            overflows: HashMap::new(),
            in_flight_read_chars: None,
            in_flight_estimate: 0,
            asks: Asks::default(),
            prompt_vector: None,
            prompt_vector_tried: None,
        }
    }

    pub(super) fn provider_ready(&self) -> bool {
        self.health.as_ref().is_some_and(ProviderHealth::is_ready)
    }

    /// The provider answers but cannot take a call yet: its model is missing or
    /// loading. No call until the monitor says ready.
    pub(super) fn waiting_for_model(&self) -> bool {
        self.health
            .as_ref()
            .is_some_and(ProviderHealth::holds_calls)
    }
}
