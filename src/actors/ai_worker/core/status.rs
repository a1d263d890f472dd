//! What the worker is doing, as `/api/status` and `inkling status` show it.

use chrono::{DateTime, Utc};

use super::slow::SLOW_AFTER_TIMEOUTS;
use super::state::WorkerCore;
use super::{SlowNote, WorkerState, WorkerStatus};
use crate::ai::ProviderHealth;
use crate::domain::timestamp;

impl WorkerCore {
    /// What the worker is doing at `now`.
    pub fn status(&self, now: DateTime<Utc>) -> WorkerStatus {
        let state = if !self.queues.loaded {
            WorkerState::Starting
        } else if self.flight.loading_model {
            WorkerState::LoadingModel
        } else if let Some(note_id) = &self.flight.note {
            WorkerState::Running {
                note_id: note_id.clone(),
            }
        } else if self.embedding.busy() {
            // Reading which notes to embed (0), or the call for them: work in flight,
            // as a barrier that asks the worker must see it.
            WorkerState::Embedding {
                notes: self.embedding.calling(),
            }
        } else if let Some(until) = self.storage_wait_until(now) {
            WorkerState::StorageUnavailable {
                until: timestamp(until),
            }
        } else if self.waiting_for_model() && !self.queues.jobs.is_empty() {
            match self.model.health {
                Some(ProviderHealth::UntrustedListener { .. }) => WorkerState::Withheld,
                _ => WorkerState::WaitingForModel,
            }
        } else if let Some(park) = self.waits.parked.filter(|park| park.until > now) {
            WorkerState::Parked {
                until: timestamp(park.until),
                step: park.step,
            }
        } else if let Some((at, _)) = self.queues.jobs.first() {
            WorkerState::Waiting {
                until: timestamp(at),
            }
        } else {
            WorkerState::Idle
        };
        let mut slow_notes: Vec<SlowNote> = self
            .queues
            .jobs
            .slow(SLOW_AFTER_TIMEOUTS)
            .map(|(note_id, timeouts)| self.slow_note(note_id.to_string(), timeouts))
            .collect();
        slow_notes.sort_by(|a, b| a.note_id.cmp(&b.note_id));
        WorkerStatus {
            state,
            queued: self.queues.jobs.len(),
            slow_notes,
            model_time: self.model.time.clone(),
            embeddings: self.embedding.state(),
        }
    }
}
