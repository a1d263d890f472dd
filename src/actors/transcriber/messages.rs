//! What others tell the voice notes' worker, and what it answers.

use actix::Message;

use crate::api::voice::TranscriptionStatus;

/// A voice note was just captured: transcribe it now.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct TranscribeVoiceNote {
    pub note_id: String,
}

/// Voice notes may have come back to the queue (retry-all, one note's retry, a note
/// restored from the trash): read the stored jobs again, and resume at once.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ReloadVoiceJobs;

/// Whether the server is ready, and how many voice notes wait (`GET /api/transcription`).
#[derive(Debug, Message)]
#[rtype(result = "TranscriptionStatus")]
pub struct GetTranscriptionStatus;

/// Whether a recording is being read, sent or saved, or the health asked (the tests'
/// barrier: "nothing in flight" shown by a round trip, never by a wait).
#[derive(Debug, Message)]
#[rtype(result = "bool")]
pub struct IsTranscribing;
