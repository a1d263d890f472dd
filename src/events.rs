//! Notifications that several actors hear. Published to the [`Hub`], which fans them
//! out to subscribers (the worker, and later the tray and the live inbox page).
//!
//! [`Hub`]: crate::actors::hub::Hub

use actix::Message;

use crate::ai::{FailureReason, ProviderHealth};

/// The number of failed, active notes changed (a note failed, or retry-all ran).
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct FailedCountChanged {
    pub count: u64,
}

/// The provider's health changed, or a manual recheck asked for it to be announced.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct OllamaStatusChanged {
    pub health: ProviderHealth,
}

/// A note's stored state changed (captured, enriched, failed, requeued).
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct NoteChanged {
    pub note_id: String,
}

/// Many notes changed at once (a retry-all, emptying the expired notes): the live page
/// reloads its list instead of fetching each note.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct NotesChanged {
    pub count: u64,
}

/// A job failed for good: its note ran out of attempts and is now `failed`. The worker
/// announces it; the usage log writes `ai_failed` from it.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct JobFailed {
    pub note_id: String,
    /// Schema or other: an outage never fails a job.
    pub reason: FailureReason,
    pub attempts: u32,
    /// The note's `ai_error`: "reason: what went wrong".
    pub error: String,
}
