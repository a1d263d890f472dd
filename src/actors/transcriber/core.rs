//! The voice notes' worker's every decision, as a state machine over plain data: each
//! thing the actor hears is one method that takes `now` and returns the [`Effect`]s
//! the actor carries out. No runtime, no I/O.
//!
//! The rules (docs/DESIGN.md, "Voice notes"):
//! - one transcription at a time, the earliest due voice note first (the queue is the
//!   enriching worker's own plain-data [`Queue`]); a voice note is a note just written,
//!   and the speech-to-text server is a server of its own, so its words never wait
//!   behind the enrichment of older notes;
//! - the server's outage (not running, loading its model, the model missing, the key
//!   refused, another user's program on its port) spends no attempt: the worker parks,
//!   asks the server's health every `health_interval`, and resumes the moment it is
//!   ready;
//! - a bad answer (no words, not the expected JSON, an error of the server, no answer
//!   in time) is the note's: the worker policy's [`decide`] counts an attempt and waits
//!   (`worker.retry_backoffs_ms`), and after `worker.max_attempts` the note is failed
//!   with its reason (Try again requeues it to be transcribed);
//! - the words saved, the note's job is an enrichment job due now, handed to the
//!   enriching worker as a note just captured.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::actors::ai_worker::core::{decide, FailureDecision};
use crate::actors::ai_worker::queue::{Queue, QueuedJob};
use crate::ai::{classify_reason, FailureReason, ProviderError, ProviderHealth};
use crate::configuration::WorkerSettings;
use crate::storage::Job;

/// What the actor is to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Wake the worker at this time (one timer: the latest effect replaces it).
    WakeAt(DateTime<Utc>),
    /// Read the note's recording (`GetRecording`).
    ReadRecording { note_id: String },
    /// Send the recording to the server, under this deadline, in this language
    /// (`None`: the server tells).
    Transcribe {
        note_id: String,
        deadline: Duration,
        language: Option<String>,
    },
    /// Ask the server's health (the worker is parked on its outage).
    CheckHealth,
    /// Save the words as the note's body (`SaveTranscript`).
    Save { note_id: String, text: String },
    /// The note's words are stored: hand it to the enriching worker (`Enqueue`).
    Enrich { note_id: String },
    /// Count a failed attempt, the job due again at `next_run_at` (`IncrementJobAttempt`).
    CountAttempt {
        note_id: String,
        next_run_at: DateTime<Utc>,
        error: String,
    },
    /// Give up: the note is failed with its reason (`MarkAiFailed`, then `JobFailed`).
    MarkFailed {
        note_id: String,
        reason: FailureReason,
        error: String,
    },
}

/// Why the worker holds every call: the speech-to-text server cannot work now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parked {
    /// What was last heard (the call's error, or the health's words).
    pub why: String,
}

/// The voice notes' worker's state.
#[derive(Debug)]
pub struct TranscriberCore {
    jobs: Queue,
    /// The note whose recording is being read, sent or saved.
    in_flight: Option<String>,
    parked: Option<Parked>,
    /// The health check asked for and not answered yet.
    checking: bool,
    rules: TranscriberRules,
}

/// What the worker's decisions depend on, from the settings.
#[derive(Debug, Clone)]
pub struct TranscriberRules {
    /// One transcription's deadline (`transcription.request_timeout_ms`).
    pub deadline: Duration,
    /// How often the health is asked while parked (`transcription.health_interval_ms`).
    pub health_interval: Duration,
    /// The spoken language (`transcription.language`; `None`: the server tells).
    pub language: Option<String>,
    /// The attempts and their waits: the enriching worker's (`[worker]`).
    pub worker: WorkerSettings,
}

/// A storage read or write that failed is tried again after this long.
const STORAGE_RETRY: Duration = Duration::from_secs(5);

impl TranscriberCore {
    pub fn new(rules: TranscriberRules) -> Self {
        TranscriberCore {
            jobs: Queue::default(),
            in_flight: None,
            parked: None,
            checking: false,
            rules,
        }
    }

    /// How many voice notes wait for their words.
    pub fn waiting(&self) -> usize {
        self.jobs.len()
    }

    /// A recording is being read, sent or saved, or the health asked.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some() || self.checking
    }

    /// Why the worker is parked, if it is.
    pub fn parked(&self) -> Option<&Parked> {
        self.parked.as_ref()
    }

    /// The jobs as stored (at start, and after a retry or a restore), taken as they
    /// were stored (attempts kept; a retry's reset too), but the one in flight.
    pub fn loaded(&mut self, jobs: Vec<Job>, now: DateTime<Utc>) -> Vec<Effect> {
        for job in jobs {
            if self.in_flight.as_ref() == Some(&job.note_id) {
                continue;
            }
            self.jobs.upsert(
                job.note_id,
                QueuedJob {
                    attempts: job.attempts,
                    next_run_at: job.next_run_at,
                    wait_reason: job.wait_reason,
                    slow_timeouts: 0,
                    queued_at: now,
                },
            );
        }
        self.next(now)
    }

    /// A voice note just captured: due now.
    pub fn captured(&mut self, note_id: String, now: DateTime<Utc>) -> Vec<Effect> {
        self.jobs.upsert(note_id, QueuedJob::fresh(now));
        self.next(now)
    }

    /// The timer fired.
    pub fn woke(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        if self.parked.is_some() {
            if self.checking {
                return Vec::new();
            }
            self.checking = true;
            return vec![Effect::CheckHealth];
        }
        self.next(now)
    }

    /// Resume at once, parked or not (the server was seen ready by hand, a retry).
    pub fn resume(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        self.parked = None;
        self.next(now)
    }

    /// The server's health, asked while parked.
    pub fn health_checked(&mut self, health: ProviderHealth, now: DateTime<Utc>) -> Vec<Effect> {
        self.checking = false;
        if health.is_ready() {
            if self.parked.take().is_some() {
                tracing::info!("the speech-to-text server is ready again; voice notes resume");
            }
            return self.next(now);
        }
        if self.parked.is_some() {
            self.parked = Some(Parked {
                why: health_words(&health),
            });
            return vec![Effect::WakeAt(after(now, self.rules.health_interval))];
        }
        self.next(now)
    }

    /// The recording of the note in flight, read: `None`, it no longer waits.
    pub fn recording_read(
        &mut self,
        note_id: &str,
        read: Result<bool, String>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        match read {
            Ok(true) => vec![Effect::Transcribe {
                note_id: note_id.to_string(),
                deadline: self.rules.deadline,
                language: self.rules.language.clone(),
            }],
            Ok(false) => {
                self.jobs.remove(note_id);
                self.in_flight = None;
                self.next(now)
            }
            Err(error) => {
                tracing::warn!(%note_id, %error, "cannot read a voice note's recording; trying again later");
                self.later(note_id, now)
            }
        }
    }

    /// The server's answer for the note in flight.
    pub fn transcribed(
        &mut self,
        note_id: &str,
        answer: Result<String, ProviderError>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        let error = match answer {
            Ok(text) => {
                return vec![Effect::Save {
                    note_id: note_id.to_string(),
                    text,
                }]
            }
            Err(error) => error,
        };
        let reason = failure_reason(&error);
        let attempts = self.jobs.attempts(note_id);
        match decide(reason, 0, attempts, &self.rules.worker) {
            FailureDecision::ParkWorker { .. } => {
                // The note waits where it was; nothing counted.
                self.in_flight = None;
                self.parked = Some(Parked {
                    why: error.to_string(),
                });
                tracing::info!(%note_id, %error, "the speech-to-text server cannot work now; voice notes wait for it");
                vec![Effect::WakeAt(after(now, self.rules.health_interval))]
            }
            FailureDecision::RetryJobLater { wait, attempts } => {
                let next_run_at = after(now, wait);
                self.in_flight = None;
                if let Some(job) = self.jobs.remove(note_id) {
                    self.jobs.upsert(
                        note_id.to_string(),
                        QueuedJob {
                            attempts,
                            next_run_at,
                            ..job
                        },
                    );
                }
                let mut effects = vec![Effect::CountAttempt {
                    note_id: note_id.to_string(),
                    next_run_at,
                    error: failure_words(reason, &error),
                }];
                effects.extend(self.next(now));
                effects
            }
            FailureDecision::GiveUp { .. } => {
                self.in_flight = None;
                self.jobs.remove(note_id);
                let mut effects = vec![Effect::MarkFailed {
                    note_id: note_id.to_string(),
                    reason,
                    error: failure_words(reason, &error),
                }];
                effects.extend(self.next(now));
                effects
            }
        }
    }

    /// The words saved (`Ok(true)`), or the note no longer waited for them (`Ok(false)`:
    /// trashed, deleted, typed into meanwhile).
    pub fn saved(
        &mut self,
        note_id: &str,
        saved: Result<bool, String>,
        now: DateTime<Utc>,
    ) -> Vec<Effect> {
        match saved {
            Ok(stored) => {
                self.jobs.remove(note_id);
                self.in_flight = None;
                let mut effects = Vec::new();
                if stored {
                    effects.push(Effect::Enrich {
                        note_id: note_id.to_string(),
                    });
                }
                effects.extend(self.next(now));
                effects
            }
            Err(error) => {
                tracing::warn!(%note_id, %error, "cannot save a voice note's words; transcribing it again later");
                self.later(note_id, now)
            }
        }
    }

    /// The note in flight goes back to the queue a little later (the store's trouble).
    fn later(&mut self, note_id: &str, now: DateTime<Utc>) -> Vec<Effect> {
        self.in_flight = None;
        let wait = self.jobs.get(note_id).and_then(|job| job.wait_reason);
        self.jobs
            .reschedule(note_id, after(now, STORAGE_RETRY), wait);
        self.next(now)
    }

    /// The next thing to do: nothing while a call is in flight or the worker is
    /// parked; the earliest due job's recording read; or a wake-up when the next is due.
    fn next(&mut self, now: DateTime<Utc>) -> Vec<Effect> {
        if self.in_flight.is_some() {
            return Vec::new();
        }
        if self.parked.is_some() {
            return vec![Effect::WakeAt(after(now, self.rules.health_interval))];
        }
        match self.jobs.first().map(|(at, id)| (at, id.to_string())) {
            None => Vec::new(),
            Some((at, _)) if at > now => vec![Effect::WakeAt(at)],
            Some((_, note_id)) => {
                self.in_flight = Some(note_id.clone());
                vec![Effect::ReadRecording { note_id }]
            }
        }
    }
}

/// How a failed transcription counts. The chat server's rules, but for one: no
/// answer in time is the recording's (too long for the deadline), not an outage that
/// would park voice notes for ever; a server that is down answers "unreachable" at
/// once.
pub fn failure_reason(error: &ProviderError) -> FailureReason {
    match error {
        ProviderError::TimedOut(_) => FailureReason::Other,
        error => classify_reason(error),
    }
}

/// The failed note's `ai_error`: the reason, then what happened.
fn failure_words(reason: FailureReason, error: &ProviderError) -> String {
    format!("{}: transcription: {error}", reason.as_str())
}

/// The health's state in words, for the log and the status.
fn health_words(health: &ProviderHealth) -> String {
    match health {
        ProviderHealth::NotRunning { detail }
        | ProviderHealth::Loading { detail }
        | ProviderHealth::KeyRefused { detail } => detail.clone(),
        ProviderHealth::ModelMissing { model, .. } => {
            format!("the speech-to-text server does not serve the model {model}")
        }
        other => other
            .untrusted_listener_words()
            .unwrap_or_else(|| format!("{other:?}")),
    }
}

fn after(now: DateTime<Utc>, wait: Duration) -> DateTime<Utc> {
    now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::MAX)
}

#[cfg(test)]
mod tests;
