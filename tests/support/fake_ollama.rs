//! A fake Ollama HTTP server, written from docs/PLATFORM.md ("Ollama"), with the
//! failure modes inkling must survive.
//!
//! It runs on the test's own runtime (so it follows tokio's paused clock) on a
//! `fake_http::FakeListener`: one request per connection, `Connection: close`.
//! - `GET /api/tags` lists the installed models (`set_models`), `GET /api/version`;
//! - `POST /api/chat` answers with the next scripted [`Reply`] (`push`), else the
//!   default (`set_default`), streamed as Ollama streams it when asked
//!   (`fake_answers::answer_chat`), and records the call (`calls`); a question (the Ask
//!   prompt) gets `answers()`'s answer instead (`fake_answers`), 404 while the
//!   model is not installed;
//! - `POST /api/pull` streams a download's progress (`set_pull_step_seconds`) and then
//!   installs the model, or ends with `fail_pulls`'s error;
//! - `POST /api/show` gives the model's context length (`set_context_length`);
//! - `POST /api/generate` with no prompt loads the model (`done_reason: "load"`, after
//!   `set_load_seconds`), or 404s while it is not installed; loads are counted;
//! - `POST /api/embed` answers each `input` with a bag-of-words vector
//!   (`fake_embeddings`), 404 "model not found" while the embedding model is not in
//!   `set_models`' list (`embeddinggemma:latest` is, at start), or as `set_embed`
//!   says; the requests are recorded (`embed_calls`);
//! - `stop()` closes the listening socket (connection refused) and `start()` opens
//!   the same port again: the provider going down and coming back.
//! - `simulate` answers every call as a slow desktop's model would, on virtual time
//!   (`fake_simulated_model.rs`).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::fake_http::{read_request, respond, until_hung_up, FakeListener, JSON};

#[path = "fake_answers.rs"]
pub mod fake_answers;
#[path = "fake_embeddings.rs"]
pub mod fake_embeddings;
#[path = "fake_simulated_model.rs"]
pub mod simulated_model;
pub use fake_answers::Answers;
use fake_answers::{answer_chat, answer_chat_then, is_question, Wire};
pub use fake_embeddings::EmbedReply;
use simulated_model::{simulated_chat, simulated_load, Simulation};

/// How the fake answers one `/api/chat` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// 200, a valid enrichment.
    Ok,
    /// 200, a valid enrichment after this many seconds (a slow model; virtual time under
    /// a paused runtime).
    OkAfterSeconds(u64),
    /// 200, the enrichment inside a ```json fence (accepted).
    Fenced,
    /// Reads the request, never answers; lets go when the client hangs up (as Ollama
    /// stops generating when its client disconnects).
    Hang,
    /// Reads the request, closes the connection without a response.
    Reset,
    /// 200, content that is not JSON.
    InvalidJson,
    /// 200, JSON with the wrong fields (`tags` a string, `summary` missing).
    WrongSchema,
    /// 200, `done_reason: "length"`, the JSON cut off.
    Truncated,
    /// 200, `done: false` and whitespace (the whitespace abort).
    NotDone,
    /// 200, empty content (the answer went to `thinking`).
    EmptyContent,
    /// 200 with a body that is not JSON at all.
    GarbageBody,
    /// 404 model not found.
    ModelMissing,
    /// 404 as llama.cpp's server answers a path it does not have (`/api/chat`): the
    /// server at the URL is not Ollama.
    NotOllama,
    /// 500 runner crash.
    RunnerCrash,
    /// 500 model load timed out on the server.
    LoadTimeout,
    /// 503 server busy.
    Busy,
    /// 200, a valid enrichment on a kept-alive HTTP/1.1 connection, which the server
    /// then closes a moment later (as when Ollama restarts): a client that kept it for
    /// reuse finds it dead on its next request.
    OkThenCloseKeptConnection,
    /// As the simulated model answers ([`FakeOllama::simulate`]).
    Simulated,
}

/// One recorded `/api/chat` call.
#[derive(Debug, Clone)]
pub struct ChatCall {
    /// When it arrived (tokio's clock: virtual under a paused runtime).
    pub at: Instant,
    pub request: serde_json::Value,
    pub reply: Reply,
}

struct State {
    default: Reply,
    script: VecDeque<Reply>,
    models: Vec<String>,
    /// The tags a valid enrichment gives (`set_tags`).
    tags: Vec<String>,
    /// The `when` a valid enrichment gives (`set_when`): "" at first.
    when: String,
    calls: Vec<ChatCall>,
    health_checks: usize,
    /// `Hang` calls whose client is still connected, and slow answers or loads still
    /// working.
    held: usize,
    /// Model loads asked for (`/api/generate` with no prompt).
    loads: usize,
    /// How long a load takes.
    load_seconds: u64,
    /// The model's context length, as `/api/show` reports it.
    context_length: u32,
    /// How long each of a download's three steps takes; `None` in `pull_error`: it ends
    /// with this error instead of installing the model.
    pull_step_seconds: u64,
    pull_error: Option<String>,
    pulls: usize,
    simulation: Option<Simulation>,
    embed: EmbedReply,
    embed_calls: Vec<serde_json::Value>,
    answers: Answers,
}

/// Counts a held call until the connection ends.
struct Held(Arc<Mutex<State>>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.lock().unwrap().held -= 1;
    }
}

pub struct FakeOllama {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    listener: FakeListener,
}

impl FakeOllama {
    /// Starts on a free loopback port, answering `Ok` with `llama3.2:latest` installed.
    pub async fn start_new() -> FakeOllama {
        let state = Arc::new(Mutex::new(State {
            default: Reply::Ok,
            script: VecDeque::new(),
            models: vec!["llama3.2:latest".into(), "embeddinggemma:latest".into()],
            tags: vec!["fake".into(), "test".into()],
            when: String::new(),
            calls: Vec::new(),
            health_checks: 0,
            held: 0,
            loads: 0,
            load_seconds: 0,
            context_length: 131_072,
            pull_step_seconds: 0,
            pull_error: None,
            pulls: 0,
            simulation: None,
            embed: EmbedReply::Ok,
            embed_calls: Vec::new(),
            answers: Answers::default(),
        }));
        let serving = state.clone();
        let listener =
            FakeListener::start_new("fake Ollama", move |stream| handle(stream, serving.clone()))
                .await;
        FakeOllama {
            addr: listener.addr,
            state,
            listener,
        }
    }

    pub fn url(&self) -> String {
        self.listener.url()
    }

    /// Closes the listening socket: connections are refused from now on.
    pub fn stop(&mut self) {
        self.listener.stop();
        // A server that went away has no model loaded when it is back.
        if let Some(simulation) = self.state.lock().unwrap().simulation.as_mut() {
            simulation.loaded = None;
        }
    }

    /// Listens again on the same port.
    pub async fn start(&mut self) {
        self.listener.start().await;
    }

    pub fn set_default(&self, reply: Reply) {
        self.state.lock().unwrap().default = reply;
    }

    /// Queues replies for the next calls, before the default applies again.
    pub fn push(&self, replies: &[Reply]) {
        self.state.lock().unwrap().script.extend(replies);
    }

    /// The tags every valid enrichment gives from now on.
    /// The words a valid enrichment quotes as the note's time (`when`), as a model
    /// would copy them from the note ("" for none).
    pub fn set_when(&self, when: &str) {
        self.state.lock().unwrap().when = when.to_string();
    }

    pub fn set_tags(&self, tags: &[&str]) {
        self.state.lock().unwrap().tags = tags.iter().map(|t| t.to_string()).collect();
    }

    /// How `/api/embed` answers from now on.
    pub fn set_embed(&self, reply: EmbedReply) {
        self.state.lock().unwrap().embed = reply;
    }

    /// The streamed answers to questions: what they say, and the questions asked.
    pub fn answers(&self) -> Answers {
        self.state.lock().unwrap().answers.clone()
    }

    /// Every `/api/embed` request so far.
    pub fn embed_calls(&self) -> Vec<serde_json::Value> {
        self.state.lock().unwrap().embed_calls.clone()
    }

    pub fn set_models(&self, models: &[&str]) {
        self.state.lock().unwrap().models = models.iter().map(|m| m.to_string()).collect();
    }

    pub fn calls(&self) -> Vec<ChatCall> {
        self.state.lock().unwrap().calls.clone()
    }

    /// How long a model load takes from now on (virtual time under a paused runtime).
    pub fn set_load_seconds(&self, seconds: u64) {
        self.state.lock().unwrap().load_seconds = seconds;
    }

    /// The context length `/api/show` reports from now on.
    pub fn set_context_length(&self, tokens: u32) {
        self.state.lock().unwrap().context_length = tokens;
    }

    /// How long each step of a download takes from now on.
    pub fn set_pull_step_seconds(&self, seconds: u64) {
        self.state.lock().unwrap().pull_step_seconds = seconds;
    }

    /// Downloads end with this error (as Ollama's stream does) instead of installing.
    pub fn fail_pulls(&self, error: &str) {
        self.state.lock().unwrap().pull_error = Some(error.to_string());
    }

    pub fn pulls(&self) -> usize {
        self.state.lock().unwrap().pulls
    }

    pub fn loads(&self) -> usize {
        self.state.lock().unwrap().loads
    }

    pub fn health_checks(&self) -> usize {
        self.state.lock().unwrap().health_checks
    }

    /// `Hang` calls still held open by their client (the pipeline's barrier: a call the
    /// fake holds is not work in progress).
    pub fn held_calls(&self) -> usize {
        self.state.lock().unwrap().held
    }
}

fn chat_answer(model: &str, content: &str, done: bool, done_reason: Option<&str>) -> String {
    let mut answer = serde_json::json!({
        "model": model,
        "created_at": "2026-03-01T12:00:00.123456789Z",
        "message": { "role": "assistant", "content": content },
        "done": done,
    });
    if let Some(reason) = done_reason {
        answer["done_reason"] = reason.into();
        answer["total_duration"] = 174_560_334.into();
        answer["eval_count"] = 18.into();
    }
    answer.to_string()
}

fn enrichment_for(request: &serde_json::Value, tags: &[String], when: &str) -> String {
    let text = request["messages"][1]["content"].as_str().unwrap_or("");
    let title: String = text.chars().take(40).collect();
    serde_json::json!({
        "title": format!("About: {}", title.trim()),
        "tags": tags,
        "summary": "A note the fake model read.",
        "when": when,
    })
    .to_string()
}

/// A chat that is a question, not a note's enrichment.
fn is_streamed_question(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|request| is_question(&request))
}

/// Whether `model` is installed (listed with or without its `:latest` tag).
fn installed(state: &Arc<Mutex<State>>, model: &str) -> bool {
    let state = state.lock().unwrap();
    state.models.iter().any(|m| {
        m.eq_ignore_ascii_case(model) || m.eq_ignore_ascii_case(&format!("{model}:latest"))
    })
}

/// Ollama's 404 for a model that is not installed.
async fn model_not_found(stream: &mut TcpStream, model: &str) {
    let error = format!(r#"{{"error":"model '{model}' not found"}}"#);
    respond(stream, "404 Not Found", JSON, &error).await
}

/// Works for `seconds` of (virtual) time, counted as held meanwhile: only the clock
/// moving can finish it.
async fn hold_for(state: &Arc<Mutex<State>>, seconds: u64) {
    if seconds == 0 {
        return;
    }
    state.lock().unwrap().held += 1;
    let _held = Held(state.clone());
    tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
}

async fn handle(mut stream: TcpStream, state: Arc<Mutex<State>>) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let body = request.body;
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/api/tags") => {
            let models = {
                let mut state = state.lock().unwrap();
                state.health_checks += 1;
                state.models.clone()
            };
            let listed: Vec<_> = models
                .iter()
                .map(|m| serde_json::json!({ "name": m, "model": m, "size": 2019393189 }))
                .collect();
            respond(
                &mut stream,
                "200 OK",
                JSON,
                &serde_json::json!({ "models": listed }).to_string(),
            )
            .await;
        }
        ("POST", "/api/generate") if state.lock().unwrap().simulation.is_some() => {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            simulated_load(&mut stream, &state, &request).await;
        }
        ("POST", "/api/generate") => {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let model = request["model"].as_str().unwrap_or("").to_string();
            let seconds = {
                let mut state = state.lock().unwrap();
                state.loads += 1;
                state.load_seconds
            };
            if !installed(&state, &model) {
                return model_not_found(&mut stream, &model).await;
            }
            hold_for(&state, seconds).await;
            let answer = serde_json::json!({
                "model": model, "created_at": "2026-03-01T12:00:00Z", "response": "",
                "done": true, "done_reason": "load",
            });
            respond(&mut stream, "200 OK", JSON, &answer.to_string()).await;
        }
        ("POST", "/api/pull") => {
            // Streamed NDJSON as Ollama (Go's net/http) sends it: chunked, a line a chunk.
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let model = request["model"].as_str().unwrap_or("").to_string();
            let (seconds, error) = {
                let mut state = state.lock().unwrap();
                state.pulls += 1;
                (state.pull_step_seconds, state.pull_error.clone())
            };
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n\
                        Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
            let chunk = |line: &serde_json::Value| {
                let text = format!("{line}\n");
                format!("{:x}\r\n{text}\r\n", text.len())
            };
            if stream.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            let total: u64 = 2_019_377_376;
            let mut lines = vec![serde_json::json!({ "status": "pulling manifest" })];
            for done in [0, total / 2, total] {
                lines.push(serde_json::json!({
                    "status": "downloading 6a0746a1ec1a", "digest": "sha256:6a0746a1ec1a",
                    "total": total, "completed": done,
                }));
            }
            for (i, line) in lines.iter().enumerate() {
                if i > 1 {
                    hold_for(&state, seconds).await;
                }
                if stream.write_all(chunk(line).as_bytes()).await.is_err() {
                    return;
                }
            }
            let last = match error {
                Some(error) => serde_json::json!({ "error": error }),
                None => {
                    let mut state = state.lock().unwrap();
                    let name = format!("{model}:latest");
                    if !state.models.contains(&name) {
                        state.models.push(name);
                    }
                    serde_json::json!({ "status": "success" })
                }
            };
            let verifying = serde_json::json!({ "status": "verifying sha256 digest" });
            let tail = chunk(&verifying) + &chunk(&last) + "0\r\n\r\n";
            let _ = stream.write_all(tail.as_bytes()).await;
            let _ = stream.shutdown().await;
        }
        ("POST", "/api/show") => {
            let context = state.lock().unwrap().context_length;
            let show = serde_json::json!({
                "details": { "family": "llama", "parameter_size": "3.2B" },
                "model_info": { "general.architecture": "llama", "llama.context_length": context },
            });
            respond(&mut stream, "200 OK", JSON, &show.to_string()).await;
        }
        ("POST", "/api/embed") => {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let model = request["model"].as_str().unwrap_or("").to_string();
            let reply = {
                let mut state = state.lock().unwrap();
                state.embed_calls.push(request.clone());
                state.embed
            };
            if !installed(&state, &model) || reply == EmbedReply::ModelMissing {
                return model_not_found(&mut stream, &model).await;
            }
            let inputs = fake_embeddings::inputs_of(&request);
            if let EmbedReply::HoldFor(seconds) = reply {
                hold_for(&state, seconds).await;
            }
            let dims = match reply {
                EmbedReply::NotServed => {
                    return respond(&mut stream, "501 Not Implemented", JSON,
                        r#"{"error":"This server does not support embeddings. Start it with `--embeddings`"}"#).await;
                }
                EmbedReply::LongerThan(bytes) if inputs.iter().any(|i| i.len() > bytes) => {
                    return respond(
                        &mut stream,
                        "400 Bad Request",
                        JSON,
                        r#"{"error":"the input length exceeds the context length"}"#,
                    )
                    .await;
                }
                EmbedReply::WrongLength(dims) => dims,
                _ => fake_embeddings::DIMS,
            };
            let embeddings: Vec<Vec<f32>> = inputs
                .iter()
                .map(|text| match reply {
                    EmbedReply::Degenerate => fake_embeddings::degenerate_vector_of(text, dims),
                    EmbedReply::Zeros => vec![0.0; dims],
                    _ => fake_embeddings::vector_of(text, dims),
                })
                .collect();
            let answer = serde_json::json!({
                "model": model, "embeddings": embeddings,
                "total_duration": 14_143_917, "load_duration": 1_019_500,
                "prompt_eval_count": inputs.len() * 8,
            });
            respond(&mut stream, "200 OK", JSON, &answer.to_string()).await;
        }
        ("GET", "/api/version") => {
            respond(&mut stream, "200 OK", JSON, r#"{"version":"0.33.0"}"#).await;
        }
        ("POST", "/api/chat") if is_streamed_question(&body) => {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let model = request["model"].as_str().unwrap_or("").to_string();
            if !installed(&state, &model) {
                return model_not_found(&mut stream, &model).await;
            }
            let (answers, calls_before) = {
                let state = state.lock().unwrap();
                (state.answers.clone(), state.calls.len())
            };
            answers
                .stream(
                    &mut stream,
                    request,
                    calls_before,
                    fake_answers::Wire::Ollama,
                )
                .await;
        }
        ("POST", "/api/chat") => {
            let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
            let (reply, tags, when) = {
                let mut state = state.lock().unwrap();
                let reply = state.script.pop_front().unwrap_or(state.default);
                state.calls.push(ChatCall {
                    at: Instant::now(),
                    request: request.clone(),
                    reply,
                });
                (reply, state.tags.clone(), state.when.clone())
            };
            let enrichment_for =
                |request: &serde_json::Value| enrichment_for(request, &tags, &when);
            let model = request["model"].as_str().unwrap_or("").to_string();
            match reply {
                Reply::Simulated => simulated_chat(&mut stream, &state, &request).await,
                Reply::Ok => {
                    let answer = chat_answer(&model, &enrichment_for(&request), true, Some("stop"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::OkAfterSeconds(seconds) => {
                    hold_for(&state, seconds).await;
                    let answer = chat_answer(&model, &enrichment_for(&request), true, Some("stop"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::OkThenCloseKeptConnection => {
                    let answer = chat_answer(&model, &enrichment_for(&request), true, Some("stop"));
                    answer_chat_then(&mut stream, &request, &answer, Wire::Ollama, false).await;
                    // The client keeps the connection; the server goes away later.
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    drop(stream);
                }
                Reply::Fenced => {
                    let fenced = format!("```json\n{}\n```", enrichment_for(&request));
                    answer_chat(&mut stream, &request, &chat_answer(&model, &fenced, true, Some("stop")), Wire::Ollama).await
                }
                Reply::Hang => {
                    state.lock().unwrap().held += 1;
                    let _held = Held(state.clone());
                    until_hung_up(&mut stream).await;
                }
                Reply::Reset => drop(stream),
                Reply::InvalidJson => {
                    let answer = chat_answer(&model, "Sure! Here is your note: {title", true, Some("stop"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::WrongSchema => {
                    let answer = chat_answer(&model, r#"{"title":"T","tags":"a"}"#, true, Some("stop"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::Truncated => {
                    let answer = chat_answer(&model, r#"{"title":"Foo","tags":["a","b"#, true, Some("length"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::NotDone => {
                    let answer = chat_answer(&model, "{}\n \n \n  \n", false, None);
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::EmptyContent => {
                    let answer = chat_answer(&model, "", true, Some("stop"));
                    answer_chat(&mut stream, &request, &answer, Wire::Ollama).await
                }
                Reply::GarbageBody => answer_chat(&mut stream, &request, "<html>oops</html>", Wire::Ollama).await,
                Reply::ModelMissing => model_not_found(&mut stream, &model).await,
                Reply::NotOllama => {
                    respond(&mut stream, "404 Not Found", JSON,
                        r#"{"error":{"message":"File Not Found","type":"not_found_error","code":404}}"#).await
                }
                Reply::RunnerCrash => {
                    respond(&mut stream, "500 Internal Server Error", JSON,
                        r#"{"error":"model runner has unexpectedly stopped, this may be due to resource limitations or an internal error, check ollama server logs for details"}"#).await
                }
                Reply::LoadTimeout => {
                    respond(&mut stream, "500 Internal Server Error", JSON,
                        r#"{"error":"timed out waiting for llama runner to start - progress 0.00 - "}"#).await
                }
                Reply::Busy => {
                    respond(&mut stream, "503 Service Unavailable", JSON,
                        r#"{"error":"server busy, please try again.  maximum pending requests exceeded"}"#).await
                }
            }
        }
        _ => {
            respond(
                &mut stream,
                "404 Not Found",
                "text/plain",
                "404 page not found",
            )
            .await
        }
    }
}
