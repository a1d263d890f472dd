//! The call in flight ([`InFlight`]): the one note whose call (or its bookkeeping) is
//! running, the body it is about, what its prompt holds, its own vector's call before
//! it, and a load of the model, which is a call in flight too. At most one of these at
//! a time; while one is, no timer is pending and nothing else starts.

use chrono::{DateTime, Utc};

use super::neighbours::PromptVectorCall;

/// The call in flight and what the core must remember about it until it ends.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    /// The note whose call (or its bookkeeping) is in flight: at most one.
    pub(super) note: Option<String>,
    /// The body the call in flight is about, once it was sent.
    pub(super) body: Option<String>,
    /// The note in flight was queued again while its call ran (edited, or its AI asked
    /// for again): that new entry stands whatever the call brings.
    pub(super) requeued: bool,
    /// What the prompt in flight holds: how much of the note, and its estimated tokens.
    pub(super) read_chars: Option<u32>,
    pub(super) estimate: usize,
    /// The call for the vector of the note in flight, before its prompt
    /// ([`super::neighbours`]).
    pub(super) prompt_vector: Option<PromptVectorCall>,
    /// The note whose vector this call's preparation already asked for (one try).
    pub(super) prompt_vector_tried: Option<String>,
    /// The model is being loaded (no call meanwhile).
    pub(super) loading_model: bool,
    /// When the call or load in flight started (the model's time is counted from it).
    pub(super) model_busy_since: Option<DateTime<Utc>>,
}

impl InFlight {
    /// `note_id`'s call starts (its body is read or sent next).
    pub(super) fn start(&mut self, note_id: String) {
        self.note = Some(note_id);
        self.requeued = false;
    }

    /// The call in flight and its bookkeeping are over.
    pub(super) fn end(&mut self) {
        self.note = None;
        self.body = None;
        self.requeued = false;
    }

    /// `note_id` was queued afresh: if its call is in flight, its new entry outlives
    /// that call.
    pub(super) fn queued_again(&mut self, note_id: &str) {
        if self.note.as_deref() == Some(note_id) {
            self.requeued = true;
        }
    }

    /// The model's time since the call or load in flight started (none in flight: 0).
    pub(super) fn model_ms(&mut self, now: DateTime<Utc>) -> u64 {
        self.model_busy_since
            .take()
            .map_or(0, |since| (now - since).num_milliseconds().max(0) as u64)
    }
}
