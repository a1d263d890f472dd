//! The worker's in-memory view of the durable AI queue, as plain data.
//!
//! One entry per pending note: its counted attempts, when it may run next and why it
//! waits. Bodies stay in the database (a note is at most 64 KiB, and 100,000 of them
//! would not belong in memory). The entries are kept twice: by note id, to update one,
//! and ordered by `(next_run_at, note id)`, so the earliest job is found in O(log n)
//! even with 100,000 requeued notes.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;

use chrono::{DateTime, Utc};

use crate::domain::WaitReason;

/// One queued job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuedJob {
    /// Counted schema/other failures.
    pub attempts: u32,
    /// Not tried before this.
    pub next_run_at: DateTime<Utc>,
    /// Why it waits, if it does: an outage (runs when the provider is back) or its own
    /// retry delay (keeps its time).
    pub wait_reason: Option<WaitReason>,
    /// Calls that ran out of time while Ollama was up: each doubles the next deadline.
    pub slow_timeouts: u32,
    /// When the note was queued fresh (captured or edited) in this run of the service;
    /// kept while it waits. A job loaded at start-up was queued before the run began.
    pub queued_at: DateTime<Utc>,
}

impl QueuedJob {
    /// A job the database has just stored as fresh: no attempts, due at `at`.
    pub fn fresh(at: DateTime<Utc>) -> Self {
        QueuedJob {
            attempts: 0,
            next_run_at: at,
            wait_reason: None,
            slow_timeouts: 0,
            queued_at: at,
        }
    }
}

/// The queue: note id → job, and the same jobs ordered by `(next_run_at, note id)`.
#[derive(Debug, Default)]
pub struct Queue {
    jobs: HashMap<String, QueuedJob>,
    order: BTreeSet<(DateTime<Utc>, String)>,
}

impl Queue {
    /// Adds a job, or replaces the one queued for that note.
    pub fn upsert(&mut self, note_id: String, job: QueuedJob) {
        if let Some(old) = self.jobs.get(&note_id) {
            self.order.remove(&(old.next_run_at, note_id.clone()));
        }
        self.order.insert((job.next_run_at, note_id.clone()));
        self.jobs.insert(note_id, job);
    }

    /// Takes a note's job out of the queue.
    pub fn remove(&mut self, note_id: &str) -> Option<QueuedJob> {
        let old = self.jobs.remove(note_id)?;
        self.order.remove(&(old.next_run_at, note_id.to_string()));
        Some(old)
    }

    pub fn get(&self, note_id: &str) -> Option<&QueuedJob> {
        self.jobs.get(note_id)
    }

    pub fn contains(&self, note_id: &str) -> bool {
        self.jobs.contains_key(note_id)
    }

    /// Counted attempts of a queued note (0 when it is not queued).
    pub fn attempts(&self, note_id: &str) -> u32 {
        self.jobs.get(note_id).map_or(0, |job| job.attempts)
    }

    /// Moves a queued job to `at`, waiting for `wait_reason`; its attempts stay.
    /// A note that is not queued (trashed meanwhile) stays out.
    pub fn reschedule(
        &mut self,
        note_id: &str,
        at: DateTime<Utc>,
        wait_reason: Option<WaitReason>,
    ) {
        if let Some(job) = self.jobs.get(note_id).copied() {
            self.upsert(
                note_id.to_string(),
                QueuedJob {
                    next_run_at: at,
                    wait_reason,
                    ..job
                },
            );
        }
    }

    /// Sets a queued job's attempts.
    pub fn set_attempts(&mut self, note_id: &str, attempts: u32) {
        if let Some(job) = self.jobs.get_mut(note_id) {
            job.attempts = attempts;
        }
    }

    /// The earliest job: when it is due, and whose it is.
    pub fn first(&self) -> Option<(DateTime<Utc>, &str)> {
        self.order.first().map(|(at, id)| (*at, id.as_str()))
    }

    /// The jobs by when they are due, earliest first.
    pub fn in_order(&self) -> impl Iterator<Item = (DateTime<Utc>, &str)> {
        self.order.iter().map(|(at, id)| (*at, id.as_str()))
    }

    /// The jobs due by `now`, the latest due first: found from the end, however many
    /// are due before them or later.
    pub fn latest_due(&self, now: DateTime<Utc>) -> impl Iterator<Item = (DateTime<Utc>, &str)> {
        // Every entry before (the next instant, no id) is due by `now`.
        let next = now
            .checked_add_signed(chrono::TimeDelta::nanoseconds(1))
            .unwrap_or(now);
        self.order
            .range((Bound::Unbounded, Bound::Excluded((next, String::new()))))
            .rev()
            .map(|(at, id)| (*at, id.as_str()))
    }

    /// Note ids by when they are due, earliest first.
    pub fn ids_in_order(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(|(_, id)| id.as_str())
    }

    /// Sets a queued job's count of timeouts while Ollama was up.
    pub fn set_slow_timeouts(&mut self, note_id: &str, slow_timeouts: u32) {
        if let Some(job) = self.jobs.get_mut(note_id) {
            job.slow_timeouts = slow_timeouts;
        }
    }

    /// Jobs with at least `threshold` timeouts while Ollama was up, and their count.
    pub fn slow(&self, threshold: u32) -> impl Iterator<Item = (&str, u32)> {
        self.jobs
            .iter()
            .filter(move |(_, job)| job.slow_timeouts >= threshold)
            .map(|(id, job)| (id.as_str(), job.slow_timeouts))
    }

    /// Jobs parked on an outage that are not due yet at `now`.
    pub fn waiting_on_provider(&self, now: DateTime<Utc>) -> Vec<String> {
        self.jobs
            .iter()
            .filter(|(_, job)| {
                job.wait_reason == Some(WaitReason::Provider) && job.next_run_at > now
            })
            .map(|(id, _)| id.clone())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }
}

#[cfg(test)]
mod tests;
