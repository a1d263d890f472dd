//! The wire of the OpenAI-compatible `POST /v1/audio/transcriptions`, as plain
//! functions over bytes (the client only sends and receives): the multipart form
//! (`file`, `model`, `language` when set, `response_format=json`) with a boundary that
//! is random and not in the recording, the answer read (`{"text": …}`), every refusal
//! turned into the `ProviderError` the voice notes' worker reads (an outage or the
//! note's own failure), and the server's health read from its `/health` and `/models`.
//!
//! What whisper.cpp's `whisper-server` (1.8.5) was seen to do: `json` answers
//! `{"text": " … \n"}` (a leading space, a trailing newline, and a line break every
//! segment of at most 60 characters; a silent recording's words are `[BLANK_AUDIO]`); it refuses connections while it loads its model, then
//! `GET /health` is 200 `{"status":"ok"}` (503 `{"status":"loading model"}` only while
//! `POST /load` swaps it); it has no `/v1/models` (404) and checks no key; audio it
//! cannot decode (WebM and Ogg Opus without `--convert` and ffmpeg) is 400 `text/plain`
//! `Invalid request`, a failure inside the model 500 `{"error":"failed to process
//! audio"}`. Speaches, LocalAI and vLLM list their models and may want a key (401).

use serde_json::Value;

use crate::ai::transcribe::{AudioFormat, TranscribePlan, Transcript};
use crate::ai::transport::error_message;
use crate::ai::{ModelServer, ProviderError, ProviderHealth};

/// One `multipart/form-data` body and the `Content-Type` that names its boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub content_type: String,
    pub body: Vec<u8>,
}

/// The form of one transcription: the recording as `file` (named `recording.<ext>`,
/// with its type: some servers tell the format by the name), the model, the language
/// when the plan has one, and `response_format=json`. `random` is 16 fresh random
/// bytes (the caller's, so the form itself is a plain function); the boundary made of
/// them is made longer until the recording does not contain it.
pub fn transcription_form(plan: &TranscribePlan, model: &str, random: [u8; 16]) -> Form {
    let mut boundary = format!("inkling-{}", hex(&random));
    while contains(&plan.audio, boundary.as_bytes()) {
        boundary.push('x');
    }
    let mut body = Vec::with_capacity(plan.audio.len() + 512);
    let mut field = |name: &str, value: &str| {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    };
    field("model", model);
    if let Some(language) = &plan.language {
        field("language", language);
    }
    field("response_format", "json");
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; \
             filename=\"recording.{}\"\r\nContent-Type: {}\r\n\r\n",
            plan.format.extension(),
            plan.format.content_type()
        )
        .as_bytes(),
    );
    body.extend_from_slice(&plan.audio);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Form {
        content_type: format!("multipart/form-data; boundary={boundary}"),
        body,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

/// The words a server writes for a recording with none in it (whisper.cpp's markers).
const SILENCE_MARKERS: [&str; 3] = ["[BLANK_AUDIO]", "[ Silence ]", "(silence)"];

/// A transcription's answer, whatever its status: the words, or what went wrong as
/// the voice notes' worker reads it (`url`: the API's base, for the words).
pub fn read_transcript(
    status: u16,
    bytes: &[u8],
    url: &str,
    format: AudioFormat,
) -> Result<Transcript, ProviderError> {
    let message = error_message(bytes);
    match status {
        200..=299 => {}
        401 | 403 => {
            return Err(ProviderError::Misconfigured(format!(
                "the speech-to-text server at {url} refused inkling's API key (HTTP {status}): \
                 check transcription.api_key_env"
            )))
        }
        404 if !message.to_lowercase().contains("model") => {
            return Err(ProviderError::Misconfigured(format!(
                "{url}/audio/transcriptions answered HTTP 404: no transcription there; check \
                 transcription.url (whisper-server needs --inference-path \
                 /v1/audio/transcriptions)"
            )))
        }
        // whisper.cpp's server without ffmpeg (`--convert`) cannot decode Opus (a
        // browser's WebM or Ogg): it answers 400 `Invalid request`, nothing more.
        400 | 415 | 422 if matches!(format, AudioFormat::WebmOpus | AudioFormat::OggOpus) => {
            return Err(ProviderError::Status {
                code: status,
                message: format!(
                    "{message} (the server could not read the {} recording: whisper-server \
                     reads WebM and Ogg Opus only when started with --convert, which needs \
                     ffmpeg; WAV it always reads)",
                    format.content_type()
                ),
            })
        }
        _ => {
            return Err(ProviderError::Status {
                code: status,
                message,
            })
        }
    }
    let answer: Value = serde_json::from_slice(bytes).map_err(|e| {
        ProviderError::Invalid(format!("the answer is not a transcription's JSON: {e}"))
    })?;
    if let Some(error) = answer.get("error") {
        return Err(ProviderError::Invalid(format!(
            "the server answered with an error: {}",
            error_message(error.to_string().as_bytes())
        )));
    }
    let text = answer
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| ProviderError::Invalid("the answer has no \"text\"".into()))?;
    let text = words_of(text);
    if text.is_empty() {
        return Err(ProviderError::Invalid(
            "the server heard no words in the recording".into(),
        ));
    }
    Ok(Transcript {
        text,
        language: answer
            .get("language")
            .and_then(Value::as_str)
            .map(String::from),
        duration: answer
            .get("duration")
            .and_then(Value::as_f64)
            .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
            .map(std::time::Duration::from_secs_f64),
    })
}

/// The words as stored: a silence marker taken out, and whisper.cpp's lines (it cuts
/// its segments at 60 characters, each line with a leading space) joined back into
/// prose with one space.
fn words_of(text: &str) -> String {
    let mut text = text.to_string();
    for marker in SILENCE_MARKERS {
        text = text.replace(marker, "");
    }
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The health from the server's `GET /health` (whisper.cpp, Speaches; `None` when it
/// has none, or says nothing beyond "up"): loading and a refused key are states of
/// their own.
pub fn health_from_health(status: u16, bytes: &[u8], root: &str) -> Option<ProviderHealth> {
    match status {
        503 => Some(ProviderHealth::Loading {
            detail: format!(
                "the speech-to-text server at {root} is loading its model ({})",
                error_message(bytes)
            ),
        }),
        401 | 403 => Some(key_refused(status, root)),
        _ => None,
    }
}

/// The health from `GET {url}/models`: the model listed (or a server that lists none:
/// whisper.cpp's runs the one it loaded, and has no `/models`), missing, or the key
/// refused.
pub fn health_from_models(status: u16, bytes: &[u8], url: &str, model: &str) -> ProviderHealth {
    if matches!(status, 401 | 403) {
        return key_refused(status, url);
    }
    if status == 404 || status == 405 {
        return ProviderHealth::Ready;
    }
    if status == 503 {
        return ProviderHealth::Loading {
            detail: format!("the speech-to-text server at {url} is loading its model"),
        };
    }
    let listed = (status == 200)
        .then(|| serde_json::from_slice::<Value>(bytes).ok())
        .flatten()
        .and_then(|models| models.get("data").and_then(Value::as_array).cloned());
    let Some(listed) = listed else {
        return ProviderHealth::NotRunning {
            detail: format!(
                "{url}/models answered HTTP {status}, not as a speech-to-text server does; \
                 check transcription.url"
            ),
        };
    };
    let named = |entry: &Value| {
        entry
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.eq_ignore_ascii_case(model.trim()))
    };
    // A server that lists nothing (LocalAI before a model is installed lists what it
    // has; an empty list is a server with no model at all).
    if listed.iter().any(named) {
        ProviderHealth::Ready
    } else {
        ProviderHealth::ModelMissing {
            model: model.to_string(),
            server: ModelServer::SpeechToText,
        }
    }
}

fn key_refused(status: u16, url: &str) -> ProviderHealth {
    ProviderHealth::KeyRefused {
        detail: format!(
            "the speech-to-text server at {url} refused inkling's API key (HTTP {status}): put \
             the server's key in the environment variable transcription.api_key_env names, and \
             restart inkling"
        ),
    }
}

#[cfg(test)]
mod tests;
