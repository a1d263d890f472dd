//! Speech to text, as a capability of its own: what a speech-to-text server (whisper.cpp's
//! `whisper-server`, Speaches, LocalAI, vLLM: the OpenAI-compatible
//! `POST /v1/audio/transcriptions`) does for inkling, and nothing else of the chat
//! server's. Its client is [`super::transcription::TranscriptionClient`]; the voice
//! notes' worker (`crate::actors::transcriber`) holds it through this trait, beside the
//! server's [`super::Health`], as [`super::Capabilities::transcription`] carries them.
//!
//! The recording's format is the wire type [`AudioFormat`] (`crate::api::voice`): the
//! route that takes a recording, the CLI that sends one and the client that uploads it
//! read it the same way.

use std::time::Duration;

use futures_util::future::LocalBoxFuture;

use super::ProviderError;

pub use crate::api::voice::AudioFormat;

/// One recording to turn into text, as the caller decided it: plain data that any
/// speech-to-text server carries out as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscribePlan {
    /// How long the whole call may take (upload, recognition, answer).
    pub deadline: Duration,
    pub audio: Vec<u8>,
    pub format: AudioFormat,
    /// The spoken language as a BCP 47 tag (`en`, `ko`); `None`: the server detects it.
    pub language: Option<String>,
}

/// What was said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The words, as one text (becomes a note's body).
    pub text: String,
    /// The language the server heard, when it says.
    pub language: Option<String>,
    /// How long the recording was, when the server says.
    pub duration: Option<Duration>,
}

/// A speech-to-text server.
pub trait Transcribe {
    /// The recording's words, under the plan's deadline.
    fn transcribe(
        &self,
        plan: TranscribePlan,
    ) -> LocalBoxFuture<'static, Result<Transcript, ProviderError>>;
}
