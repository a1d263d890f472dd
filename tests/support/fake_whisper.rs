//! A fake speech-to-text server, answering as whisper.cpp's `whisper-server` (1.8.5,
//! started with `--inference-path /v1/audio/transcriptions`) was seen to answer, with
//! the states of the other OpenAI-compatible servers inkling must handle besides
//! (docs/DESIGN.md, "Voice notes").
//!
//! On a `fake_http::FakeListener`, on the test's runtime (virtual time):
//! - `GET /health`: 200 `{"status":"ok"}`, or 503 `{"status":"loading model"}` while
//!   `set_loading(true)`;
//! - `GET /v1/models`: 404 `File Not Found (/v1/models)` as whisper.cpp's (it lists
//!   none), or, after `list_models`, the OpenAI list (as Speaches and LocalAI answer);
//! - `POST /v1/audio/transcriptions`: 401 with the OpenAI error's JSON without the key
//!   (`require_key`: whisper.cpp checks none, others do); 503 while loading; 400
//!   `text/plain` `Invalid request` for a body that is not multipart, has no `file`
//!   part, or a file whisper.cpp cannot decode without ffmpeg (anything but WAV, MP3,
//!   Ogg Vorbis: a browser's WebM or Ogg Opus); else the next scripted [`Reply`], or
//!   the default: the words as whisper.cpp writes them (a leading space, a trailing
//!   newline). Every request that reaches the route is recorded, its parts read.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::json;
use tokio::net::TcpStream;

use crate::fake_http::{read_request, respond, until_hung_up, FakeListener, HeldCount, JSON};

/// How the fake answers one transcription it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// 200 `{"text": " <words>\n"}`.
    Words(String),
    /// 200 `{"text": " [BLANK_AUDIO]\n"}`: a recording with nothing said.
    Blank,
    /// 200, not JSON.
    Garbage,
    /// 500 `{"error":"failed to process audio"}`, as whisper.cpp's decode failure.
    Failed,
    /// Reads the request, never answers; lets go when the client hangs up.
    Hang,
}

/// One multipart part as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    pub filename: Option<String>,
    pub content_type: Option<String>,
    pub data: Vec<u8>,
}

/// One transcription request as it arrived.
#[derive(Debug, Clone)]
pub struct TranscriptionCall {
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    pub parts: Vec<Part>,
}

impl TranscriptionCall {
    /// A text field's value.
    pub fn field(&self, name: &str) -> Option<String> {
        self.parts
            .iter()
            .find(|part| part.name == name)
            .map(|part| String::from_utf8_lossy(&part.data).to_string())
    }

    pub fn file(&self) -> Option<&Part> {
        self.parts.iter().find(|part| part.name == "file")
    }
}

#[derive(Default)]
struct State {
    replies: VecDeque<Reply>,
    default: Option<Reply>,
    loading: bool,
    key: Option<String>,
    models: Option<Vec<String>>,
    calls: Vec<TranscriptionCall>,
    health_checks: usize,
}

pub struct FakeWhisper {
    state: Arc<Mutex<State>>,
    held: HeldCount,
    listener: FakeListener,
}

/// What the fake says when nothing is scripted.
pub const DEFAULT_WORDS: &str = "Remember to buy milk and bread on the way home tomorrow.";

impl FakeWhisper {
    pub async fn start_new() -> FakeWhisper {
        let state = Arc::new(Mutex::new(State::default()));
        let held = HeldCount::default();
        let (for_handler, held_by_handler) = (state.clone(), held.clone());
        let listener = FakeListener::start_new("fake whisper-server", move |stream| {
            serve(stream, for_handler.clone(), held_by_handler.clone())
        })
        .await;
        FakeWhisper {
            state,
            held,
            listener,
        }
    }

    /// The API's base, as `transcription.url` names it.
    pub fn url(&self) -> String {
        format!("{}/v1", self.listener.url())
    }

    pub fn stop(&mut self) {
        self.listener.stop();
    }

    pub async fn start(&mut self) {
        self.listener.start().await;
    }

    pub fn set_loading(&self, loading: bool) {
        self.state.lock().unwrap().loading = loading;
    }

    /// Refuses any request without `Authorization: Bearer <key>` (401).
    pub fn require_key(&self, key: &str) {
        self.state.lock().unwrap().key = Some(key.to_string());
    }

    /// Lists these models on `GET /v1/models` (as Speaches does).
    pub fn list_models(&self, models: &[&str]) {
        self.state.lock().unwrap().models = Some(models.iter().map(|m| m.to_string()).collect());
    }

    pub fn set_default(&self, reply: Reply) {
        self.state.lock().unwrap().default = Some(reply);
    }

    pub fn push(&self, replies: &[Reply]) {
        self.state
            .lock()
            .unwrap()
            .replies
            .extend(replies.iter().cloned());
    }

    pub fn calls(&self) -> Vec<TranscriptionCall> {
        self.state.lock().unwrap().calls.clone()
    }

    pub fn health_checks(&self) -> usize {
        self.state.lock().unwrap().health_checks
    }

    /// Calls it holds open now (a `Hang`).
    pub fn held_calls(&self) -> usize {
        self.held.now()
    }
}

async fn serve(mut stream: TcpStream, state: Arc<Mutex<State>>, held: HeldCount) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let authorised = {
        let state = state.lock().unwrap();
        match &state.key {
            None => true,
            Some(key) => request.header("authorization") == Some(&format!("Bearer {key}")),
        }
    };
    let loading = state.lock().unwrap().loading;
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/health") => {
            state.lock().unwrap().health_checks += 1;
            if loading {
                respond(
                    &mut stream,
                    "503 Service Unavailable",
                    JSON,
                    r#"{"status":"loading model"}"#,
                )
                .await
            } else {
                respond(&mut stream, "200 OK", JSON, r#"{"status":"ok"}"#).await
            }
        }
        ("GET", "/v1/models") => {
            let models = state.lock().unwrap().models.clone();
            match models {
                None => {
                    respond(
                        &mut stream,
                        "404 Not Found",
                        "text/plain",
                        "File Not Found (/v1/models)",
                    )
                    .await
                }
                Some(_) if !authorised => refuse_key(&mut stream).await,
                Some(models) => {
                    let data: Vec<_> = models
                        .iter()
                        .map(|id| json!({"id": id, "object": "model"}))
                        .collect();
                    respond(
                        &mut stream,
                        "200 OK",
                        JSON,
                        &json!({"object": "list", "data": data}).to_string(),
                    )
                    .await
                }
            }
        }
        ("POST", "/v1/audio/transcriptions") => {
            let call = TranscriptionCall {
                authorization: request.header("authorization").map(String::from),
                content_type: request.header("content-type").map(String::from),
                parts: request
                    .header("content-type")
                    .and_then(boundary_of)
                    .map(|boundary| parts_of(&request.body, &boundary))
                    .unwrap_or_default(),
            };
            let decodable = call.file().is_some_and(|file| whisper_decodes(&file.data));
            let reply = {
                let mut state = state.lock().unwrap();
                state.calls.push(call);
                let reply = state.replies.pop_front();
                reply.or_else(|| state.default.clone())
            };
            if !authorised {
                return refuse_key(&mut stream).await;
            }
            if loading {
                return respond(
                    &mut stream,
                    "503 Service Unavailable",
                    JSON,
                    r#"{"error":"loading model"}"#,
                )
                .await;
            }
            if !decodable {
                return respond(
                    &mut stream,
                    "400 Bad Request",
                    "text/plain",
                    "Invalid request",
                )
                .await;
            }
            match reply.unwrap_or_else(|| Reply::Words(DEFAULT_WORDS.into())) {
                Reply::Words(words) => {
                    let body = json!({ "text": format!(" {words}\n") }).to_string();
                    respond(&mut stream, "200 OK", JSON, &body).await
                }
                Reply::Blank => {
                    respond(
                        &mut stream,
                        "200 OK",
                        JSON,
                        r#"{"text":" [BLANK_AUDIO]\n"}"#,
                    )
                    .await
                }
                Reply::Garbage => respond(&mut stream, "200 OK", JSON, "not json at all").await,
                Reply::Failed => {
                    respond(
                        &mut stream,
                        "500 Internal Server Error",
                        JSON,
                        r#"{"error":"failed to process audio"}"#,
                    )
                    .await
                }
                Reply::Hang => {
                    let _held = held.hold();
                    until_hung_up(&mut stream).await
                }
            }
        }
        (_, path) => {
            respond(
                &mut stream,
                "404 Not Found",
                "text/plain",
                &format!("File Not Found ({path})"),
            )
            .await
        }
    }
}

async fn refuse_key(stream: &mut TcpStream) {
    respond(
        stream,
        "401 Unauthorized",
        JSON,
        r#"{"error":{"message":"Invalid API key","type":"invalid_request_error"}}"#,
    )
    .await
}

/// What whisper.cpp's miniaudio reads without ffmpeg: WAV, MP3, FLAC, Ogg Vorbis.
fn whisper_decodes(data: &[u8]) -> bool {
    let wav = data.len() >= 12 && &data[0..4] == b"RIFF" && &data[8..12] == b"WAVE";
    let mp3 = data.starts_with(b"ID3") || (data.len() >= 2 && data[0] == 0xFF && data[1] >= 0xE0);
    let flac = data.starts_with(b"fLaC");
    let vorbis = data.starts_with(b"OggS") && data.windows(6).any(|w| w == b"vorbis");
    wav || mp3 || flac || vorbis
}

fn boundary_of(content_type: &str) -> Option<String> {
    let (kind, rest) = content_type.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    rest.split(';').find_map(|parameter| {
        let (key, value) = parameter.split_once('=')?;
        (key.trim() == "boundary").then(|| value.trim().trim_matches('"').to_string())
    })
}

/// The parts of a multipart body (RFC 7578), read strictly: each between
/// `--boundary\r\n` and `\r\n--boundary`, the last followed by `--`.
pub fn parts_of(body: &[u8], boundary: &str) -> Vec<Part> {
    let delimiter = format!("--{boundary}").into_bytes();
    let mut parts = Vec::new();
    let mut at = match find(body, &delimiter, 0) {
        Some(start) => start + delimiter.len(),
        None => return parts,
    };
    loop {
        if body[at..].starts_with(b"--") {
            return parts;
        }
        if !body[at..].starts_with(b"\r\n") {
            return parts;
        }
        let start = at + 2;
        let Some(end) = find(body, &[b"\r\n".as_slice(), &delimiter].concat(), start) else {
            return parts;
        };
        let part = &body[start..end];
        if let Some(split) = find(part, b"\r\n\r\n", 0) {
            let head = String::from_utf8_lossy(&part[..split]).to_string();
            let data = part[split + 4..].to_vec();
            let mut name = String::new();
            let mut filename = None;
            let mut content_type = None;
            for line in head.lines() {
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("content-disposition:") {
                    name = parameter(line, "name").unwrap_or_default();
                    filename = parameter(line, "filename");
                } else if lower.starts_with("content-type:") {
                    content_type = line.split_once(':').map(|(_, v)| v.trim().to_string());
                }
            }
            parts.push(Part {
                name,
                filename,
                content_type,
                data,
            });
        }
        at = end + 2 + delimiter.len();
    }
}

fn parameter(line: &str, key: &str) -> Option<String> {
    line.split(';').find_map(|piece| {
        let (k, v) = piece.split_once('=')?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|i| i + from)
}

/// A WAV file: 16 kHz mono 16-bit PCM, `millis` of a tone (what the page records).
pub fn tone_wav(millis: u32) -> Vec<u8> {
    let rate = 16_000u32;
    let samples = rate * millis / 1000;
    let mut pcm = Vec::with_capacity(samples as usize * 2);
    for i in 0..samples {
        let t = i as f32 / rate as f32;
        let value = (t * 440.0 * std::f32::consts::TAU).sin() * 8000.0;
        pcm.extend_from_slice(&(value as i16).to_le_bytes());
    }
    let mut wav = Vec::with_capacity(44 + pcm.len());
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + pcm.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes());
    wav.extend_from_slice(&rate.to_le_bytes());
    wav.extend_from_slice(&(rate * 2).to_le_bytes());
    wav.extend_from_slice(&2u16.to_le_bytes());
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(pcm.len() as u32).to_le_bytes());
    wav.extend_from_slice(&pcm);
    wav
}
