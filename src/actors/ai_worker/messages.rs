//! What other actors tell the AI worker. What it announces (`JobFailed`, `NoteSlow`)
//! goes through the hub: `crate::events`; the repository announces the notes its
//! writes changed and the counts (`NoteChanged`, `FailedCountChanged`).

use actix::Message;
use chrono::{DateTime, Utc};

use super::core::WorkerStatus;

/// New jobs: freshly captured or requeued notes, due at `at`.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Enqueue {
    pub note_ids: Vec<String>,
    pub at: DateTime<Utc>,
}

/// Notes stored without a job (imported as done or failed): they have no vector yet.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct EmbedNotes {
    pub note_ids: Vec<String>,
}

/// A note came back from the trash: take its job (as stored, attempts included) into
/// the queue again.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct TrackJob {
    pub note_id: String,
}

/// Notes left the queue outside the worker (trashed): forget their jobs and bodies.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct Forget {
    pub note_ids: Vec<String>,
}

/// The provider was seen healthy by hand (recheck, retry-all): resume at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ResumeNow {
    pub why: &'static str,
}

/// What the worker is doing, for `/api/status`.
#[derive(Debug, Message)]
#[rtype(result = "WorkerStatus")]
pub struct GetWorkerStatus;
