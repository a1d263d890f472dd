//! Notifications that several actors hear. Published to the [`Hub`], which fans them
//! out to subscribers (the worker, and later the tray and the live inbox page).
//!
//! [`Hub`]: crate::actors::hub::Hub

use actix::Message;

use crate::ai::{FailureReason, ProviderHealth};
use crate::domain::Note;
use crate::storage::NoteCounts;

/// The counts the banners show (pending, failed, expired) changed. Announced by the
/// repository right after the write that changed them, and only then; a new
/// subscriber is sent the last one at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct CountsChanged {
    pub counts: NoteCounts,
}

/// The number of failed, active notes changed (a note failed, retry-all ran, a failed
/// note was trashed or restored): the tray's menu. Announced with [`CountsChanged`].
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct FailedCountChanged {
    pub count: u64,
}

/// The provider's health changed, or a manual recheck asked for it to be announced.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct ProviderStatusChanged {
    pub health: ProviderHealth,
}

/// How many reminders are due and not done: the tray says so. Published by the reminder
/// actor when it changes (at each look, a minute at most apart); a new subscriber is
/// sent the last one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct RemindersDue {
    pub count: u64,
}

/// A note keeps taking longer than its deadline while Ollama is up (the worker, from
/// the third such timeout on): the page marks it, with what to do.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct NoteSlow {
    pub slow: crate::api::worker::SlowNote,
}

/// How a model download is going: the wire type (`crate::api::pull`), heard through
/// the hub.
pub use crate::api::pull::{ModelPullProgress, PullState};

impl Message for ModelPullProgress {
    type Result = ();
}

/// One note's stored state changed (captured, enriched, failed, trashed, restored,
/// kept): the note as it is now, so a listener need not read it back.
#[derive(Debug, Clone, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct NoteChanged {
    pub note: Note,
}

/// Many notes changed at once (a retry-all, the expired notes to the trash): the live
/// page reloads its list once.
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
