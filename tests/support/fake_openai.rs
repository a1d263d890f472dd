//! A fake OpenAI-compatible model server, answering as llama.cpp's `llama-server` does
//! (docs/PLATFORM.md, "OpenAI-compatible servers"), with the cases inkling must handle.
//!
//! On a `fake_http::FakeListener`, on the test's runtime (virtual time):
//! - `GET /health`: `{"status":"ok"}`, or 503 "Loading model" while `set_loading(true)`;
//! - `GET /v1/models`: the served model (`id` and `aliases`) with its context in
//!   `meta.n_ctx`; 401 without the key (`require_key`) as llama.cpp b11434's `--api-key`
//!   answers, unless `open_models(true)` (a server that lists its models to anyone);
//! - `GET /props`: the context in `default_generation_settings.n_ctx`; 401 without the
//!   key;
//! - `POST /v1/chat/completions`: 401 without the key (`require_key`); 400 for a
//!   `json_schema` response format while `refuse_json_schema(true)` (as some servers
//!   refuse it); 400 for a `response_format` type llama.cpp does not know, in its words;
//!   503 while loading; else the next scripted [`Reply`], or the default. A `json_schema`
//!   format whose schema is not where llama.cpp reads it (`json_schema.schema`) is
//!   taken, as llama.cpp takes it, as no constraint at all: the answer is prose.
//!   Every request that reaches this route is recorded (`calls`). An answer goes out
//!   streamed as llama.cpp streams it when asked (`fake_answers::answer_chat`); a
//!   question (the Ask prompt) gets `answers()`'s answer as server-sent events instead
//!   (`fake_answers`).
//! - `POST /v1/embeddings`: 501 "does not support embeddings" as llama.cpp's server
//!   started without `--embeddings` answers, until `set_embed` says otherwise; then a
//!   bag-of-words vector per `input` (`fake_embeddings`), in the OpenAI API's shape.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::net::TcpStream;

use crate::fake_http::{read_request, respond, until_hung_up, FakeListener, HeldCount, JSON};

// The fake Ollama's (every crate with this fake has that one too).
use crate::fake_ollama::fake_answers::{self, Answers};
use crate::fake_ollama::fake_embeddings;
pub use fake_embeddings::EmbedReply;

const OPENAI: fake_answers::Wire = fake_answers::Wire::OpenAi;

/// How the fake answers one chat call that it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// 200, a valid enrichment, with llama.cpp's `timings` and `usage`.
    Ok,
    /// 200, a valid enrichment after a reasoning block (`<think>…</think>`).
    Thinking,
    /// 400 `exceed_context_size_error`, with the prompt's tokens and the context.
    ContextExceeded,
    /// Reads the request, never answers; lets go when the client hangs up.
    Hang,
    /// 200, streamed: a piece of the answer every (virtual) second for ever, as a
    /// model writing past any deadline, until the client hangs up (`hang_ups`).
    Generating,
}

/// What a chat request got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    Reply(Reply),
    /// 401: no key, or the wrong one.
    Unauthorised,
    /// 400: the `json_schema` format is refused.
    FormatRefused,
    /// 400: a `response_format` type llama.cpp does not know.
    FormatUnknown,
    /// 503: the model is loading.
    Loading,
}

/// One recorded chat request.
#[derive(Debug, Clone)]
pub struct ChatCall {
    pub request: Value,
    pub answered: Answered,
}

struct State {
    /// The model's name (`id`) and its alias, as `--alias` gives it.
    model: String,
    context: u32,
    key: Option<String>,
    /// `/v1/models` answers without the key.
    models_open: bool,
    loading: bool,
    refuse_json_schema: bool,
    default: Reply,
    script: VecDeque<Reply>,
    calls: Vec<ChatCall>,
    embed: EmbedReply,
    embed_calls: Vec<Value>,
    answers: Answers,
    /// When clients hung up on a `Generating` answer.
    hang_ups: Vec<tokio::time::Instant>,
    /// Seconds a `Generating` answer goes on after its client hung up (a server that
    /// does not stop): the next chat waits for its slot until then.
    goes_on_after_hang_up: u64,
    busy_until: Option<tokio::time::Instant>,
    /// The `when` a valid enrichment gives (`set_when`): "" at first, a note with no
    /// time.
    when: String,
}

pub struct FakeOpenAi {
    state: Arc<Mutex<State>>,
    held: HeldCount,
    listener: FakeListener,
}

impl FakeOpenAi {
    /// Starts on a free loopback port serving `gemma-3-270m` with a 2,048-token context,
    /// no key, answering `Ok`.
    pub async fn start_new() -> FakeOpenAi {
        let state = Arc::new(Mutex::new(State {
            model: "gemma-3-270m".into(),
            context: 2048,
            key: None,
            models_open: false,
            loading: false,
            refuse_json_schema: false,
            default: Reply::Ok,
            script: VecDeque::new(),
            calls: Vec::new(),
            embed: EmbedReply::NotServed,
            embed_calls: Vec::new(),
            answers: Answers::default(),
            hang_ups: Vec::new(),
            goes_on_after_hang_up: 0,
            busy_until: None,
            when: String::new(),
        }));
        let held = HeldCount::default();
        let (serving, holding) = (state.clone(), held.clone());
        let listener = FakeListener::start_new("fake OpenAI-compatible server", move |stream| {
            handle(stream, serving.clone(), holding.clone())
        })
        .await;
        FakeOpenAi {
            state,
            held,
            listener,
        }
    }

    /// The API's base, as `openai.url` takes it.
    pub fn url(&self) -> String {
        format!("{}/v1", self.listener.url())
    }

    /// How `/v1/embeddings` answers from now on.
    pub fn set_embed(&self, reply: EmbedReply) {
        self.state.lock().unwrap().embed = reply;
    }

    /// The streamed answers to questions: what they say, and the questions asked.
    pub fn answers(&self) -> Answers {
        self.state.lock().unwrap().answers.clone()
    }

    /// Every `/v1/embeddings` request so far.
    pub fn embed_calls(&self) -> Vec<Value> {
        self.state.lock().unwrap().embed_calls.clone()
    }

    /// The served model's name.
    pub fn model(&self) -> String {
        self.state.lock().unwrap().model.clone()
    }

    pub fn stop(&mut self) {
        self.listener.stop();
    }

    pub async fn start(&mut self) {
        self.listener.start().await;
    }

    /// Every route but `/health` needs `Authorization: Bearer key` from now on.
    pub fn require_key(&self, key: &str) {
        self.state.lock().unwrap().key = Some(key.to_string());
    }

    /// `/v1/models` answers without the key (only chat and `/props` need it).
    pub fn open_models(&self, open: bool) {
        self.state.lock().unwrap().models_open = open;
    }

    pub fn set_loading(&self, loading: bool) {
        self.state.lock().unwrap().loading = loading;
    }

    pub fn refuse_json_schema(&self, refuse: bool) {
        self.state.lock().unwrap().refuse_json_schema = refuse;
    }

    pub fn set_default(&self, reply: Reply) {
        self.state.lock().unwrap().default = reply;
    }

    /// The words a valid enrichment quotes as the note's time (`when`), as a model
    /// would copy them from the note ("" for none).
    pub fn set_when(&self, when: &str) {
        self.state.lock().unwrap().when = when.to_string();
    }

    /// Queues replies for the next calls taken, before the default applies again.
    pub fn push(&self, replies: &[Reply]) {
        self.state.lock().unwrap().script.extend(replies);
    }

    pub fn calls(&self) -> Vec<ChatCall> {
        self.state.lock().unwrap().calls.clone()
    }

    /// A `Generating` answer goes on `seconds` after its client hangs up, holding the
    /// one slot: the next chat call waits for it (0, the default: it stops at once).
    pub fn set_goes_on_after_hang_up(&self, seconds: u64) {
        self.state.lock().unwrap().goes_on_after_hang_up = seconds;
    }

    /// When clients hung up on a `Generating` answer (the server stopped then).
    pub fn hang_ups(&self) -> Vec<tokio::time::Instant> {
        self.state.lock().unwrap().hang_ups.clone()
    }

    /// Calls held open (the pipeline's barrier does not wait for them).
    pub fn held_calls(&self) -> usize {
        self.held.now()
    }
}

async fn handle(mut stream: TcpStream, state: Arc<Mutex<State>>, held: HeldCount) {
    let Some(request) = read_request(&mut stream).await else {
        return;
    };
    let loading = state.lock().unwrap().loading;
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/health") | ("GET", "/v1/health") if loading => {
            loading_answer(&mut stream).await;
        }
        ("GET", "/health") | ("GET", "/v1/health") => {
            respond(&mut stream, "200 OK", JSON, r#"{"status":"ok"}"#).await;
        }
        ("GET", "/v1/models") => {
            let (model, context, key) = {
                let state = state.lock().unwrap();
                let key = state.key.clone().filter(|_| !state.models_open);
                (state.model.clone(), state.context, key)
            };
            if key.is_some() && bearer_of(&request) != key {
                return unauthorised(&mut stream).await;
            }
            let models = json!({
                "models": [{ "name": model, "model": model, "type": "model" }],
                "object": "list",
                "data": [{
                    "id": model, "aliases": [model], "object": "model",
                    "created": 1_780_000_000, "owned_by": "llamacpp",
                    "meta": { "n_ctx": context, "n_ctx_train": 32_768, "n_vocab": 262_144 },
                }],
            });
            respond(&mut stream, "200 OK", JSON, &models.to_string()).await;
        }
        ("GET", "/props") => {
            let (context, key) = {
                let state = state.lock().unwrap();
                (state.context, state.key.clone())
            };
            if key.is_some() && bearer_of(&request) != key {
                return unauthorised(&mut stream).await;
            }
            let props = json!({ "default_generation_settings": { "n_ctx": context } });
            respond(&mut stream, "200 OK", JSON, &props.to_string()).await;
        }
        ("POST", "/v1/embeddings") => {
            let body = request.json();
            let reply = {
                let mut state = state.lock().unwrap();
                state.embed_calls.push(body.clone());
                state.embed
            };
            let inputs = fake_embeddings::inputs_of(&body);
            let dims = match reply {
                EmbedReply::NotServed => {
                    return respond(&mut stream, "501 Not Implemented", JSON,
                        r#"{"error":{"code":501,"message":"This server does not support embeddings. Start it with `--embeddings`","type":"not_supported_error"}}"#).await;
                }
                EmbedReply::ModelMissing => {
                    return respond(&mut stream, "404 Not Found", JSON,
                        r#"{"error":{"code":404,"message":"model not found","type":"not_found_error"}}"#).await;
                }
                EmbedReply::LongerThan(bytes) if inputs.iter().any(|i| i.len() > bytes) => {
                    return respond(&mut stream, "500 Internal Server Error", JSON,
                        r#"{"error":{"code":500,"message":"input (596 tokens) is too large to process. increase the physical batch size (current batch size: 512)","type":"server_error"}}"#).await;
                }
                EmbedReply::WrongLength(dims) => dims,
                _ => fake_embeddings::DIMS,
            };
            let data: Vec<Value> = inputs
                .iter()
                .enumerate()
                .map(|(index, text)| {
                    json!({
                        "object": "embedding", "index": index,
                        "embedding": fake_embeddings::vector_of(text, dims),
                    })
                })
                .collect();
            let answer = json!({
                "object": "list", "model": body["model"], "data": data,
                "usage": { "prompt_tokens": inputs.len() * 8, "total_tokens": inputs.len() * 8 },
            });
            respond(&mut stream, "200 OK", JSON, &answer.to_string()).await;
        }
        ("POST", "/v1/chat/completions") if fake_answers::is_question(&request.json()) => {
            let (answers, calls_before) = {
                let state = state.lock().unwrap();
                (state.answers.clone(), state.calls.len())
            };
            answers
                .stream(
                    &mut stream,
                    request.json(),
                    calls_before,
                    fake_answers::Wire::OpenAi,
                )
                .await;
        }
        ("POST", "/v1/chat/completions") => {
            // The one slot: busy while an answer given up goes on.
            let busy = state.lock().unwrap().busy_until;
            if let Some(until) = busy {
                let _held = held.hold();
                tokio::time::sleep_until(until).await;
            }
            let body = request.json();
            let bearer = bearer_of(&request);
            let answered = {
                let mut state = state.lock().unwrap();
                let answered = if state.key.is_some() && bearer != state.key {
                    Answered::Unauthorised
                } else if loading {
                    Answered::Loading
                } else if state.refuse_json_schema
                    && body.pointer("/response_format/type") == Some(&json!("json_schema"))
                {
                    Answered::FormatRefused
                } else if !format_known(&body) {
                    Answered::FormatUnknown
                } else {
                    Answered::Reply(state.script.pop_front().unwrap_or(state.default))
                };
                state.calls.push(ChatCall {
                    request: body.clone(),
                    answered,
                });
                answered
            };
            let (context, when) = {
                let state = state.lock().unwrap();
                (state.context, state.when.clone())
            };
            let enrichment_for = |body: &Value| enrichment_for(body, &when);
            match answered {
                Answered::Unauthorised => unauthorised(&mut stream).await,
                Answered::Loading => loading_answer(&mut stream).await,
                Answered::FormatRefused => {
                    respond(&mut stream, "400 Bad Request", JSON,
                        r#"{"error":{"code":400,"message":"response_format type json_schema is not supported","type":"invalid_request_error"}}"#).await;
                }
                Answered::FormatUnknown => {
                    respond(&mut stream, "400 Bad Request", JSON,
                        r#"{"error":{"code":400,"message":"response_format type must be one of \"text\" or \"json_object\", but got: json","type":"invalid_request_error"}}"#).await;
                }
                Answered::Reply(Reply::Ok) if !schema_where_read(&body) => {
                    let prose = "Sure! This note is about a plumber. Title: Plumber.";
                    fake_answers::answer_chat(
                        &mut stream,
                        &body,
                        &chat_answer(&body, prose),
                        OPENAI,
                    )
                    .await;
                }
                Answered::Reply(Reply::Ok) => {
                    let answer = chat_answer(&body, &enrichment_for(&body));
                    fake_answers::answer_chat(&mut stream, &body, &answer, OPENAI).await;
                }
                Answered::Reply(Reply::Thinking) => {
                    let content = format!(
                        "<think>The note is short; a title and two tags.</think>\n{}",
                        enrichment_for(&body)
                    );
                    fake_answers::answer_chat(
                        &mut stream,
                        &body,
                        &chat_answer(&body, &content),
                        OPENAI,
                    )
                    .await;
                }
                Answered::Reply(Reply::ContextExceeded) => {
                    let error = json!({ "error": {
                        "code": 400,
                        "message": format!("the request exceeds the available context size, try increasing it"),
                        "type": "exceed_context_size_error",
                        "n_prompt_tokens": prompt_tokens(&body),
                        "n_ctx": context,
                    }});
                    respond(&mut stream, "400 Bad Request", JSON, &error.to_string()).await;
                }
                Answered::Reply(Reply::Hang) => {
                    let _held = held.hold();
                    until_hung_up(&mut stream).await;
                }
                Answered::Reply(Reply::Generating) => {
                    let _held = held.hold();
                    generate_until_hung_up(&mut stream).await;
                    let mut state = state.lock().unwrap();
                    let now = tokio::time::Instant::now();
                    state.hang_ups.push(now);
                    let goes_on = std::time::Duration::from_secs(state.goes_on_after_hang_up);
                    state.busy_until = Some(now + goes_on);
                }
            }
        }
        _ => {
            respond(
                &mut stream,
                "404 Not Found",
                JSON,
                r#"{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}"#,
            )
            .await;
        }
    }
}

/// Streams pieces of an answer that never ends, one a second, until the client goes.
async fn generate_until_hung_up(stream: &mut TcpStream) {
    use tokio::io::AsyncWriteExt;
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\
                Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    loop {
        let line = format!(
            "data: {}\n\n",
            json!({ "choices": [{ "index": 0, "delta": { "content": "{\"title\": \"and " } }] })
        );
        let piece = format!("{:x}\r\n{line}\r\n", line.len());
        if stream.write_all(piece.as_bytes()).await.is_err() {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(std::time::Duration::from_secs(1)) => {}
            _ = until_hung_up(stream) => return,
        }
    }
}

/// Whether llama.cpp knows the request's `response_format` type (none, `text`,
/// `json_object`, `json_schema`).
fn format_known(request: &Value) -> bool {
    match request.pointer("/response_format/type") {
        None => true,
        Some(kind) => ["text", "json_object", "json_schema"]
            .iter()
            .any(|known| kind == known),
    }
}

/// Whether a `json_schema` format carries its schema where llama.cpp reads it
/// (`response_format.json_schema.schema`, an object): elsewhere it reads none, and the
/// model writes as it likes. Any other format is not about a schema.
fn schema_where_read(request: &Value) -> bool {
    request.pointer("/response_format/type") != Some(&json!("json_schema"))
        || request
            .pointer("/response_format/json_schema/schema")
            .is_some_and(Value::is_object)
}

/// The key in `Authorization: Bearer …`.
fn bearer_of(request: &crate::fake_http::Request) -> Option<String> {
    request
        .header("authorization")
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_string)
}

/// llama.cpp's answer to a request without the key `--api-key` set.
async fn unauthorised(stream: &mut TcpStream) {
    respond(
        stream,
        "401 Unauthorized",
        JSON,
        r#"{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}"#,
    )
    .await;
}

/// llama.cpp's answer to everything but `/health`'s 200 while it loads its model.
async fn loading_answer(stream: &mut TcpStream) {
    respond(
        stream,
        "503 Service Unavailable",
        JSON,
        r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
    )
    .await;
}

/// The prompt's size in tokens, as a model reading four characters a token would count.
fn prompt_tokens(request: &Value) -> u64 {
    let characters: usize = request["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter_map(|m| m["content"].as_str())
                .map(|text| text.chars().count())
                .sum()
        })
        .unwrap_or(0);
    (characters / 4) as u64 + 1
}

/// The note the request is about (the user message).
fn note_of(request: &Value) -> String {
    request["messages"]
        .as_array()
        .and_then(|messages| messages.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or("")
        .to_string()
}

fn enrichment_for(request: &Value, when: &str) -> String {
    let title: String = note_of(request).chars().take(40).collect();
    json!({
        "title": format!("About: {}", title.trim()),
        "tags": ["fake", "test"],
        "summary": "A note the fake model read.",
        "when": when,
    })
    .to_string()
}

/// A chat completion as llama.cpp writes it.
fn chat_answer(request: &Value, content: &str) -> String {
    let prompt = prompt_tokens(request);
    let written = (content.chars().count() / 4) as u64 + 1;
    json!({
        "choices": [{
            "finish_reason": "stop", "index": 0,
            "message": { "role": "assistant", "content": content },
        }],
        "created": 1_780_000_100,
        "model": request["model"],
        "object": "chat.completion",
        "usage": { "completion_tokens": written, "prompt_tokens": prompt, "total_tokens": prompt + written },
        "id": "chatcmpl-fake",
        "timings": {
            "prompt_n": prompt, "prompt_ms": prompt as f64 * 5.0,
            "predicted_n": written, "predicted_ms": written as f64 * 25.0,
        },
    })
    .to_string()
}
