//! Speech to text, as a capability of its own: what a speech-to-text server (whisper.cpp's
//! server, an OpenAI-compatible `/audio/transcriptions`) will implement, and nothing
//! else of the chat server's.
//!
//! **Declared, not implemented.** Nothing in inkling implements [`Transcribe`] yet and
//! nothing calls it: the trait and its request and answer are here so that the server
//! that comes next (a later issue: voice notes) plugs in beside [`super::Chat`] and
//! [`super::Embed`] without touching them. When it comes, its client implements this
//! trait alone, and [`super::Capabilities`] gains the field that holds it.

use std::time::Duration;

use futures_util::future::LocalBoxFuture;

use super::ProviderError;

/// The recording's encoding, as the server is told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AudioFormat {
    /// RIFF WAVE, 16-bit PCM (what whisper.cpp's server reads without converting).
    Wav,
    /// Ogg with Opus (what a browser's `MediaRecorder` makes).
    OggOpus,
    /// WebM with Opus (Chromium's `MediaRecorder`).
    WebmOpus,
}

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

/// A speech-to-text server. See the module's header: declared for the server a later
/// issue adds; no implementation exists yet.
pub trait Transcribe {
    /// The recording's words, under the plan's deadline.
    fn transcribe(
        &self,
        plan: TranscribePlan,
    ) -> LocalBoxFuture<'static, Result<Transcript, ProviderError>>;
}
