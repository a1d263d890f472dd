//! Voice notes on the wire: the recordings `POST /api/notes/voice` takes ([`AudioFormat`],
//! named by their `Content-Type`, or found from a file's name and first bytes by the
//! CLI), the words said when one is refused, and `GET /api/transcription`'s answer
//! ([`TranscriptionStatus`]: whether voice notes are on, the speech-to-text server's
//! health, how to turn them on). Plain rules over plain data; both sides use them.

use serde::{Deserialize, Serialize};

use super::provider::ProviderHealth;

/// A recording's encoding, as the person's device made it and the server is told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AudioFormat {
    /// RIFF WAVE, 16-bit PCM: what the page records, and what whisper.cpp's server
    /// reads without converting (docs/DESIGN.md, "Voice notes").
    Wav,
    /// Ogg with Opus (Firefox's `MediaRecorder`, phones' voice memos).
    #[serde(rename = "ogg")]
    OggOpus,
    /// WebM with Opus (Chromium's `MediaRecorder`).
    #[serde(rename = "webm")]
    WebmOpus,
    /// MPEG audio (MP3).
    Mp3,
}

/// The content types `POST /api/notes/voice` takes, as a person reads them in a refusal.
pub const ACCEPTED_TYPES: &str = "audio/wav, audio/webm, audio/ogg or audio/mpeg";

impl AudioFormat {
    /// The format a `Content-Type` names (its parameters, `;codecs=opus`, ignored);
    /// `None` for any other type.
    pub fn from_content_type(content_type: &str) -> Option<Self> {
        let essence = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        match essence.as_str() {
            "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => Some(Self::Wav),
            "audio/webm" => Some(Self::WebmOpus),
            "audio/ogg" | "audio/opus" => Some(Self::OggOpus),
            "audio/mpeg" | "audio/mp3" => Some(Self::Mp3),
            _ => None,
        }
    }

    /// The type it is sent and stored as.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Wav => "audio/wav",
            Self::WebmOpus => "audio/webm",
            Self::OggOpus => "audio/ogg",
            Self::Mp3 => "audio/mpeg",
        }
    }

    /// The file name's ending, for the recording kept in the data dir and the upload's
    /// file name (some servers read the format from it).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Wav => "wav",
            Self::WebmOpus => "webm",
            Self::OggOpus => "ogg",
            Self::Mp3 => "mp3",
        }
    }

    /// The stored name back to its format (the extension, as [`AudioFormat::extension`]
    /// writes it).
    pub fn from_extension(extension: &str) -> Option<Self> {
        match extension.to_ascii_lowercase().as_str() {
            "wav" | "wave" => Some(Self::Wav),
            "webm" => Some(Self::WebmOpus),
            "ogg" | "oga" | "opus" => Some(Self::OggOpus),
            "mp3" => Some(Self::Mp3),
            _ => None,
        }
    }

    /// The format the first bytes of a file say (its magic numbers): what the CLI
    /// trusts before a file's name.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WAVE" {
            return Some(Self::Wav);
        }
        if bytes.starts_with(b"OggS") {
            return Some(Self::OggOpus);
        }
        if bytes.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
            return Some(Self::WebmOpus);
        }
        // An ID3 tag, or an MPEG audio frame's sync word (11 bits set).
        if bytes.starts_with(b"ID3") || (bytes.len() >= 2 && bytes[0] == 0xFF && bytes[1] >= 0xE0) {
            return Some(Self::Mp3);
        }
        None
    }
}

/// Why a recording was refused before anything was stored (each a 4xx of its own).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VoiceRefusal {
    #[error("the recording is empty: record something, then send it again")]
    Empty,
    #[error(
        "the recording is {size} bytes, more than the {limit} bytes a voice note may be \
         (transcription.max_audio_bytes): send a shorter one"
    )]
    TooLarge { size: u64, limit: u64 },
    #[error(
        "a voice note is sent as {ACCEPTED_TYPES}, not \"{0}\": set the Content-Type to the \
         recording's type"
    )]
    WrongType(String),
}

/// The recording's format from its `Content-Type`, and its size checked against the
/// limit: the rule `POST /api/notes/voice` applies before storing anything.
pub fn accept_recording(
    content_type: Option<&str>,
    size: u64,
    limit: u64,
) -> Result<AudioFormat, VoiceRefusal> {
    let named = content_type.unwrap_or_default();
    let format = AudioFormat::from_content_type(named)
        .ok_or_else(|| VoiceRefusal::WrongType(named.to_string()))?;
    if size == 0 {
        return Err(VoiceRefusal::Empty);
    }
    if size > limit {
        return Err(VoiceRefusal::TooLarge { size, limit });
    }
    Ok(format)
}

/// `GET /api/transcription` → whether voice notes are on, and the speech-to-text
/// server's health when they are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptionStatus {
    /// A `[transcription]` server is configured.
    pub enabled: bool,
    /// The server's health as last checked; absent while off or not checked yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<ProviderHealth>,
    /// The largest recording taken, in bytes.
    pub max_audio_bytes: u64,
    /// Voice notes waiting for their words.
    pub waiting: u64,
}

/// How voice notes are turned on, for the page and the CLI when they are off.
pub const HOW_TO_TURN_ON: &str = "voice notes are off: start a speech-to-text server \
     (whisper.cpp's whisper-server, Speaches, LocalAI) and set [transcription] url (e.g. \
     \"http://127.0.0.1:8178/v1\") and model in inkling's config.toml, then restart inkling";

#[cfg(test)]
mod tests;
