//! The rules the core applies ([`WorkerRules`]: the worker's schedule, the calls'
//! deadlines, the model's keep-alive and context, the embedding model), and the time
//! arithmetic every rule file shares.

use chrono::{DateTime, TimeDelta, Utc};

use super::embedding::EmbeddingRules;
use crate::configuration::{ProviderCalls, WorkerSettings};

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
/// (A lost answer makes the whole worker wait instead: `backoff::storage_wait`.)
pub const STORAGE_RETRY_DELAY: TimeDelta = TimeDelta::seconds(30);

/// `wait` after `now` (the far future for a wait too long to say).
pub(super) fn after(now: DateTime<Utc>, wait: std::time::Duration) -> DateTime<Utc> {
    now + TimeDelta::from_std(wait).unwrap_or(TimeDelta::MAX)
}
