//! The `[transcription]` section: the speech-to-text server that turns voice notes into
//! words (whisper.cpp's `whisper-server`, Speaches, LocalAI, vLLM: anything with the
//! OpenAI-compatible `POST /v1/audio/transcriptions`), which model it runs, where its
//! key comes from, the spoken language, and whether a recording is kept once its words
//! are stored. An empty `url`: voice notes are off (the page and the CLI say how to
//! turn them on).

use std::time::Duration;

use serde::Deserialize;

use super::strict;

/// The largest `transcription.max_audio_bytes`: a recording is read into memory whole
/// (to store it, then once per call), and OpenAI's own endpoint takes no more.
pub const MAX_AUDIO_BYTES: u64 = 25 << 20;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptionSettings {
    /// The API's base, ending in `/v1` (`http://127.0.0.1:8178/v1`); empty: off.
    #[serde(deserialize_with = "strict::text")]
    pub url: String,
    /// The model's name, sent as the form's `model` (whisper.cpp's server ignores it
    /// and runs the one it loaded; Speaches loads the one named).
    #[serde(deserialize_with = "strict::text")]
    pub model: String,
    /// The name of the environment variable holding the server's API key; empty: none.
    #[serde(deserialize_with = "strict::text")]
    pub api_key_env: String,
    /// The spoken language as an ISO 639-1 code (`en`, `ko`); empty: the server detects it.
    #[serde(deserialize_with = "strict::text")]
    pub language: String,
    /// Keep a recording after its words are stored (until the note is deleted for
    /// good); false: delete it once the transcript is stored.
    #[serde(deserialize_with = "strict::boolean")]
    pub keep_audio: bool,
    /// The largest recording taken, in bytes.
    #[serde(deserialize_with = "strict::whole")]
    pub max_audio_bytes: u64,
    /// How long one transcription may take, in ms (upload, recognition, answer).
    #[serde(deserialize_with = "strict::whole")]
    pub request_timeout_ms: u64,
    /// While the server is down or loading its model, how often it is checked again.
    #[serde(deserialize_with = "strict::whole")]
    pub health_interval_ms: u64,
}

impl TranscriptionSettings {
    /// A server is configured: voice notes are on.
    pub fn enabled(&self) -> bool {
        !self.url.trim().is_empty()
    }

    /// The API's base without a trailing slash.
    pub fn base(&self) -> &str {
        self.url.trim().trim_end_matches('/')
    }

    /// The server's root, without `/v1` (where its `/health` is).
    pub fn server_root(&self) -> &str {
        let url = self.base();
        url.strip_suffix("/v1").unwrap_or(url)
    }

    /// The language to send; `None`: the server detects it.
    pub fn language(&self) -> Option<String> {
        let language = self.language.trim();
        (!language.is_empty()).then(|| language.to_string())
    }

    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    pub fn health_interval(&self) -> Duration {
        Duration::from_millis(self.health_interval_ms)
    }

    /// `[transcription]`, checked: the key at fault and why. An empty `url` needs
    /// nothing else.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let bad = |key: &'static str, reason: String| Err((key, reason));
        if !(1..=MAX_AUDIO_BYTES).contains(&self.max_audio_bytes) {
            return bad(
                "transcription.max_audio_bytes",
                format!("must be from 1 to {MAX_AUDIO_BYTES} (25 MiB)"),
            );
        }
        let language = self.language.trim();
        let is_code =
            (2..=3).contains(&language.len()) && language.chars().all(|c| c.is_ascii_lowercase());
        if !language.is_empty() && !is_code {
            return bad(
                "transcription.language",
                format!(
                    "\"{language}\" is not a language code: write one such as \"en\" or \"ko\", \
                     or \"\" to let the server tell"
                ),
            );
        }
        if !self.enabled() {
            return Ok(());
        }
        if let Err(reason) = strict::http_url(&self.url) {
            return bad("transcription.url", reason);
        }
        if !self.base().ends_with("/v1") {
            return bad(
                "transcription.url",
                format!(
                    "\"{}\" does not end in /v1: write the API's base, as in \
                     http://127.0.0.1:8178/v1",
                    self.url
                ),
            );
        }
        if self.request_timeout_ms == 0 {
            return bad(
                "transcription.request_timeout_ms",
                "must be at least 1".into(),
            );
        }
        if self.health_interval_ms == 0 {
            return bad(
                "transcription.health_interval_ms",
                "must be at least 1".into(),
            );
        }
        Ok(())
    }
}
