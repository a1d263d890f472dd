//! What the worker is doing, as `/api/status` and `inkling status` show it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::super::model_time::ModelTime;
use super::{WorkerCore, SLOW_AFTER_TIMEOUTS};
use crate::domain::timestamp;

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

impl WorkerCore {
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
}
