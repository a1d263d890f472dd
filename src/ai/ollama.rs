//! `OllamaClient`: the awc client for Ollama's HTTP API (docs/PLATFORM.md, "Ollama").
//!
//! - `enrich`: `POST /api/chat`, `"stream": false`, the enrichment schema as `format`,
//!   `keep_alive`, the call as the worker planned it ([`CallPlan`]: its deadline, a
//!   refused answer to show the model, a retry's seed, the token cap). One overall
//!   deadline covers connect, queueing, generation and reading the body; awc's own 5 s
//!   default would abort every cold start (and an aborted load restarts from zero).
//! - `load_model`: `POST /api/generate` with no prompt, which only loads the model,
//!   under `ollama.load_timeout_ms`: a cold load is not charged to a note.
//! - one `num_ctx` for every call and load: `ollama.num_ctx`, never above the model's
//!   own context (`POST /api/show`). A note longer than fits is cut here, keeping its
//!   beginning, and the answer says how much was read; Ollama would cut the front.
//! - `health`: `GET /api/tags`: is Ollama answering, and is the model pulled?
//! - `pull_model`: `POST /api/pull`, its NDJSON progress read line by line as it comes
//!   (a download takes minutes: no overall deadline, but a stalled one ends).

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use awc::Client;
use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;
use futures_util::FutureExt;
use futures_util::StreamExt as _;
use serde::Deserialize;
use serde_json::json;

use super::enrichment::{
    chat_messages, context_length, estimate_tokens, fit_note, follow_up, format_schema,
    parse_enrichment, sampling_options, system_prompt,
};
use super::speed::{note_deadline, ModelSpeed};
use super::{
    CallPlan, EnrichRequest, EnrichmentProvider, ProviderError, ProviderHealth, PullProgress,
    RefusedAnswer,
};
use crate::configuration::OllamaSettings;
use crate::domain::Enrichment;

/// Answers larger than this are refused (a chat answer is a few hundred bytes).
const MAX_ANSWER_BYTES: usize = 4 << 20;
/// The health check is a cheap local GET; it must not hang the monitor.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(3);
/// Connecting to a local server is instant when it runs; no need to wait long.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// A client for one Ollama server and model.
#[derive(Clone)]
pub struct OllamaClient {
    http: Client,
    base_url: String,
    model: String,
    /// Sent with every request as it is written (`ollama.keep_alive`: "30m", "-1").
    keep_alive: String,
    load_timeout: Duration,
    /// `ollama.num_ctx`: the context asked for.
    num_ctx_wanted: u32,
    /// The context every call uses: `ollama.num_ctx`, or the model's own when smaller,
    /// once `POST /api/show` has said (shared by the clones; read again at each load).
    num_ctx: Rc<Cell<Option<u32>>>,
    /// The model's speed on this machine, from the answers so far (shared by clones).
    speed: Rc<Cell<Option<ModelSpeed>>>,
    /// `ollama.max_request_timeout_ms`: the longest a call's deadline gets.
    max_request_timeout: Duration,
}

/// The parts of a non-streaming `/api/chat` answer that matter; unknown fields ignored.
#[derive(Debug, Deserialize)]
struct ChatResponse {
    message: Option<ChatMessage>,
    done: Option<bool>,
    done_reason: Option<String>,
    error: Option<String>,
    /// Tokens of the prompt as Ollama evaluated it (after any truncation of its own).
    /// This and the next three are diagnostics: read leniently (any JSON value; a
    /// number that is not a whole one is no figure), so they can never cost an answer.
    #[serde(default)]
    prompt_eval_count: Option<serde_json::Value>,
    /// Nanoseconds reading the prompt; the tokens written and the time writing them.
    #[serde(default)]
    prompt_eval_duration: Option<serde_json::Value>,
    #[serde(default)]
    eval_count: Option<serde_json::Value>,
    #[serde(default)]
    eval_duration: Option<serde_json::Value>,
}

/// A diagnostic figure of an answer, if it is a whole number.
fn figure(value: &Option<serde_json::Value>) -> Option<u64> {
    value.as_ref().and_then(serde_json::Value::as_u64)
}

#[derive(Debug, Deserialize)]
struct ChatMessage {
    #[serde(default)]
    content: String,
}

#[derive(Debug, Deserialize)]
struct TagsResponse {
    models: Vec<TagsModel>,
}

#[derive(Debug, Deserialize)]
struct TagsModel {
    #[serde(default)]
    name: String,
    #[serde(default)]
    model: String,
}

impl OllamaClient {
    pub fn new(settings: &OllamaSettings) -> Self {
        let http = Client::builder()
            // The overall deadline is applied around the whole call instead.
            .disable_timeout()
            .connector(awc::Connector::new().timeout(CONNECT_TIMEOUT))
            .finish();
        OllamaClient {
            http,
            base_url: settings.url.trim_end_matches('/').to_string(),
            model: settings.model.clone(),
            keep_alive: settings.keep_alive.clone(),
            load_timeout: settings.load_timeout(),
            num_ctx_wanted: settings.num_ctx,
            num_ctx: Rc::new(Cell::new(None)),
            speed: Rc::new(Cell::new(None)),
            max_request_timeout: settings.max_request_timeout(),
        }
    }

    /// How long this note's call should take at the model's measured speed (`None`
    /// before any answer said): its prompt as estimated, within the context.
    fn expected_time(&self, request: &EnrichRequest) -> Option<Duration> {
        let speed = self.speed.get()?;
        let context = self.num_ctx.get().unwrap_or(self.num_ctx_wanted) as usize;
        let prompt =
            estimate_tokens(&system_prompt(&request.tags_in_use)) + estimate_tokens(&request.body);
        Some(speed.expected(prompt.min(context), request.plan.output_tokens))
    }

    /// The `/api/chat` request for one note, as planned, in a context of `num_ctx`
    /// tokens: the note is cut to fit, keeping its beginning. Also how many characters
    /// of the note were kept (`None`: all) and the prompt's estimated tokens.
    fn chat_request(
        &self,
        request: &EnrichRequest,
        num_ctx: u32,
    ) -> (serde_json::Value, Option<u32>, usize) {
        let plan: &CallPlan = &request.plan;
        let refused = plan.refused.as_ref();
        let around = estimate_tokens(&system_prompt(&request.tags_in_use))
            + refused.map_or(0, |r| {
                estimate_tokens(&r.answer) + estimate_tokens(&follow_up(r))
            });
        let (body, read_chars) = fit_note(&request.body, num_ctx, around, plan.output_tokens);
        let mut options = sampling_options(refused.is_some(), plan.attempt, plan.output_tokens);
        options["num_ctx"] = num_ctx.into();
        let chat = json!({
            "model": self.model,
            "stream": false,
            "keep_alive": self.keep_alive,
            "messages": chat_messages(body, &request.tags_in_use, refused),
            "format": format_schema(),
            "options": options,
        });
        (chat, read_chars, around + estimate_tokens(body))
    }

    /// The context every call uses: `ollama.num_ctx`, never above the model's own
    /// (`POST /api/show`, read once and again at each load). One value for every call:
    /// Ollama reloads the model whenever it changes.
    async fn context_size(&self) -> u32 {
        if let Some(known) = self.num_ctx.get() {
            return known;
        }
        let url = format!("{}/api/show", self.base_url);
        let request = json!({ "model": self.model });
        let shown = self
            .exchange(|| self.http.post(&url).send_json(&request))
            .await;
        match shown {
            Ok((200, bytes)) => {
                let model = serde_json::from_slice::<serde_json::Value>(&bytes)
                    .ok()
                    .and_then(|show| context_length(&show));
                let size = model.map_or(self.num_ctx_wanted, |m| m.min(self.num_ctx_wanted));
                if model.is_some_and(|m| m < self.num_ctx_wanted) {
                    tracing::info!(
                        model_context = model,
                        wanted = self.num_ctx_wanted,
                        "the model's context is smaller than ollama.num_ctx; using the model's"
                    );
                }
                self.num_ctx.set(Some(size));
                size
            }
            // Not known yet (Ollama down, the model missing): the configured one, and
            // asked again next time.
            _ => self.num_ctx_wanted,
        }
    }

    async fn chat(self, request: EnrichRequest) -> Result<Enrichment, ProviderError> {
        let num_ctx = self.context_size().await;
        let output_tokens = request.plan.output_tokens;
        let body = request.body.clone();
        let (request, read_chars, estimated) = self.chat_request(&request, num_ctx);
        let url = format!("{}/api/chat", self.base_url);
        let (status, bytes) = self
            .exchange(|| self.http.post(&url).send_json(&request))
            .await?;
        if !(200..300).contains(&status) {
            return Err(ProviderError::Status {
                code: status,
                message: error_message(&bytes),
            });
        }
        let answer: ChatResponse = serde_json::from_slice(&bytes)
            .map_err(|e| ProviderError::Invalid(format!("the answer is not Ollama's JSON: {e}")))?;
        let measured = ModelSpeed::measured(
            figure(&answer.prompt_eval_count).unwrap_or(0),
            figure(&answer.prompt_eval_duration).unwrap_or(0),
            figure(&answer.eval_count).unwrap_or(0),
            figure(&answer.eval_duration).unwrap_or(0),
        );
        if let Some(measured) = measured {
            self.speed
                .set(Some(ModelSpeed::updated(self.speed.get(), measured)));
        }
        if let Some(evaluated) = figure(&answer.prompt_eval_count) {
            tracing::debug!(evaluated, estimated, num_ctx, "prompt tokens");
            if evaluated + u64::from(output_tokens) >= u64::from(num_ctx) {
                tracing::warn!(
                    evaluated,
                    estimated,
                    num_ctx,
                    "the prompt filled the model's context: Ollama may have cut its front"
                );
            }
        }
        let mut enrichment = check_chat_answer(answer, &body)?;
        enrichment.read_chars = read_chars;
        Ok(enrichment)
    }

    /// `POST /api/generate` with the model and no prompt: Ollama loads the model (and
    /// keeps it for `keep_alive`) and answers `done_reason: "load"`.
    /// The load asks for the context the calls will use, or the first call would load
    /// the model again.
    async fn load(self) -> Result<(), ProviderError> {
        self.num_ctx.set(None);
        let num_ctx = self.context_size().await;
        let request = json!({
            "model": self.model, "keep_alive": self.keep_alive, "stream": false,
            "options": { "num_ctx": num_ctx },
        });
        let url = format!("{}/api/generate", self.base_url);
        let (status, bytes) = self
            .exchange(|| self.http.post(&url).send_json(&request))
            .await?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ProviderError::Status {
                code: status,
                message: error_message(&bytes),
            })
        }
    }

    /// Sends, then reads the whole body. Returns the status code and the body.
    ///
    /// awc keeps connections for reuse. A server that closed one meanwhile (Ollama was
    /// restarted; an HTTP/1.0 server that closes after each answer) makes the next
    /// request on it fail with no answer at all: `ConnectError::Disconnected`, or a reset
    /// while sending or before the response head. That says nothing about the provider,
    /// so the request goes out once more on a fresh connection; only a second failure
    /// counts (as "unreachable"). Without this, every Ollama restart would park the
    /// worker for 30 s while the health check says all is well.
    async fn exchange<S, F, Fut>(
        &self,
        send: F,
    ) -> Result<(u16, actix_web::web::Bytes), ProviderError>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<
            Output = Result<awc::ClientResponse<S>, awc::error::SendRequestError>,
        >,
        S: futures_util::Stream<Item = Result<actix_web::web::Bytes, awc::error::PayloadError>>
            + Unpin,
    {
        let mut sent = send().await;
        if let Err(error) = &sent {
            if died_on_a_kept_connection(error) {
                tracing::debug!(%error, "a kept connection was closed by the server; sending on a fresh one");
                sent = send().await;
            }
        }
        let mut response = sent.map_err(|e| ProviderError::from_send_error(&e))?;
        let bytes = response
            .body()
            .limit(MAX_ANSWER_BYTES)
            .await
            .map_err(|e| ProviderError::from_payload_error(&e))?;
        Ok((response.status().as_u16(), bytes))
    }

    async fn check_health(self) -> ProviderHealth {
        let url = format!("{}/api/tags", self.base_url);
        let exchange = self.exchange(|| self.http.get(&url).send());
        let (status, bytes) = match actix_rt::time::timeout(HEALTH_TIMEOUT, exchange).await {
            Err(_) => {
                return ProviderHealth::NotRunning {
                    detail: format!("no answer from {} within {HEALTH_TIMEOUT:?}", self.base_url),
                }
            }
            Ok(Err(e)) => {
                return ProviderHealth::NotRunning {
                    detail: format!("no answer from Ollama at {}: {e}", self.base_url),
                }
            }
            Ok(Ok(answer)) => answer,
        };
        let tags: Option<TagsResponse> = (status == 200)
            .then(|| serde_json::from_slice(&bytes).ok())
            .flatten();
        match tags {
            None => ProviderHealth::NotRunning {
                detail: format!(
                    "{} answered HTTP {status}, not like Ollama; check ollama.url",
                    self.base_url
                ),
            },
            Some(tags)
                if tags.models.iter().any(|m| {
                    same_model(&m.name, &self.model) || same_model(&m.model, &self.model)
                }) =>
            {
                ProviderHealth::Ready
            }
            Some(_) => ProviderHealth::ModelMissing {
                model: self.model.clone(),
            },
        }
    }
}

impl EnrichmentProvider for OllamaClient {
    fn enrich(
        &self,
        request: EnrichRequest,
    ) -> LocalBoxFuture<'static, Result<Enrichment, ProviderError>> {
        let expected = self.expected_time(&request);
        let deadline = note_deadline(request.plan.deadline, self.max_request_timeout, expected);
        if deadline > request.plan.deadline {
            tracing::info!(
                deadline_ms = deadline.as_millis() as u64,
                "a long note at this model's speed: a longer deadline from the start"
            );
        }
        within(deadline, "no complete answer", self.clone().chat(request))
    }

    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        self.clone().check_health().boxed_local()
    }

    fn load_model(&self) -> LocalBoxFuture<'static, Result<(), ProviderError>> {
        within(
            self.load_timeout,
            "the model did not load",
            self.clone().load(),
        )
    }

    fn pull_model(&self) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>> {
        self.clone().pull().boxed_local()
    }
}

/// A pull with no line for this long has stalled (a download sends one a second or so).
const PULL_STALL: Duration = Duration::from_secs(120);

/// Where a streamed pull is.
enum PullStep<B> {
    Start(OllamaClient),
    Reading { body: B, buffer: Vec<u8> },
    Over,
}

impl OllamaClient {
    /// `POST /api/pull`, streamed: each NDJSON line as a [`PullProgress`]; an `error`
    /// line, a refused request or a stall ends the stream with the error.
    fn pull(self) -> impl futures_util::Stream<Item = Result<PullProgress, ProviderError>> {
        use futures_util::StreamExt;
        futures_util::stream::unfold(PullStep::Start(self), |step| async move {
            let (mut body, mut buffer) = match step {
                PullStep::Over => return None,
                PullStep::Start(client) => {
                    let url = format!("{}/api/pull", client.base_url);
                    let request = json!({ "model": client.model, "stream": true });
                    let sent = client.http.post(&url).send_json(&request).await;
                    let mut response = match sent {
                        Ok(response) => response,
                        Err(e) => {
                            return Some((Err(ProviderError::from_send_error(&e)), PullStep::Over))
                        }
                    };
                    if !response.status().is_success() {
                        let code = response.status().as_u16();
                        let bytes = response
                            .body()
                            .limit(MAX_ANSWER_BYTES)
                            .await
                            .unwrap_or_default();
                        let error = ProviderError::Status {
                            code,
                            message: error_message(&bytes),
                        };
                        return Some((Err(error), PullStep::Over));
                    }
                    (response, Vec::new())
                }
                PullStep::Reading { body, buffer } => (body, buffer),
            };
            loop {
                if let Some(end) = buffer.iter().position(|b| *b == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    match pull_line(&line) {
                        None => continue,
                        Some(Err(e)) => return Some((Err(e), PullStep::Over)),
                        Some(Ok(progress)) => {
                            let next = if progress.status == "success" {
                                PullStep::Over
                            } else {
                                PullStep::Reading { body, buffer }
                            };
                            return Some((Ok(progress), next));
                        }
                    }
                }
                match actix_rt::time::timeout(PULL_STALL, body.next()).await {
                    Err(_) => {
                        let stalled = ProviderError::TimedOut(format!(
                            "the download sent nothing for {} s",
                            PULL_STALL.as_secs()
                        ));
                        return Some((Err(stalled), PullStep::Over));
                    }
                    Ok(Some(Ok(chunk))) => buffer.extend_from_slice(&chunk),
                    Ok(Some(Err(e))) => {
                        return Some((Err(ProviderError::from_payload_error(&e)), PullStep::Over))
                    }
                    Ok(None) => {
                        let rest = std::mem::take(&mut buffer);
                        return match pull_line(&rest) {
                            Some(Ok(progress)) if progress.status == "success" => {
                                Some((Ok(progress), PullStep::Over))
                            }
                            Some(Err(e)) => Some((Err(e), PullStep::Over)),
                            _ => {
                                let ended = ProviderError::Unexpected(
                                    "the download ended before Ollama said \"success\"".into(),
                                );
                                Some((Err(ended), PullStep::Over))
                            }
                        };
                    }
                }
            }
        })
    }
}

/// One line of `/api/pull`: a progress step, an error, or nothing (blank).
fn pull_line(line: &[u8]) -> Option<Result<PullProgress, ProviderError>> {
    let text = std::str::from_utf8(line).ok()?.trim();
    if text.is_empty() {
        return None;
    }
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            return Some(Err(ProviderError::Invalid(format!(
                "a download line that is not Ollama's JSON: {e}"
            ))))
        }
    };
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        return Some(Err(ProviderError::Status {
            code: 500,
            message: error.to_string(),
        }));
    }
    Some(
        serde_json::from_value::<PullProgress>(value)
            .map_err(|e| ProviderError::Invalid(format!("a download line: {e}"))),
    )
}

/// `call` under one overall deadline; past it, a `TimedOut` saying what did not happen.
fn within<T: 'static>(
    deadline: Duration,
    what: &'static str,
    call: impl std::future::Future<Output = Result<T, ProviderError>> + 'static,
) -> LocalBoxFuture<'static, Result<T, ProviderError>> {
    async move {
        actix_rt::time::timeout(deadline, call)
            .await
            .unwrap_or_else(|_| {
                Err(ProviderError::TimedOut(format!(
                    "{what} within {} ms",
                    deadline.as_millis()
                )))
            })
    }
    .boxed_local()
}

/// A request that got no answer because the connection under it died (as opposed to a
/// new connection that could not be made: refused, unresolvable).
fn died_on_a_kept_connection(error: &awc::error::SendRequestError) -> bool {
    use awc::error::{ConnectError, SendRequestError};
    use std::io::ErrorKind;
    let dropped = |e: &std::io::Error| {
        matches!(
            e.kind(),
            ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::UnexpectedEof
        )
    };
    match error {
        SendRequestError::Connect(ConnectError::Disconnected) => true,
        SendRequestError::Send(e) => dropped(e),
        SendRequestError::Response(actix_web::error::ParseError::Incomplete) => true,
        SendRequestError::Response(actix_web::error::ParseError::Io(e)) => dropped(e),
        _ => false,
    }
}

/// Checks an answer's envelope before its content (contract §6.2, "schema").
fn check_chat_answer(answer: ChatResponse, body: &str) -> Result<Enrichment, ProviderError> {
    if let Some(error) = answer.error {
        // An error line with a 200 status (a runner failure mid-answer).
        return Err(ProviderError::Status {
            code: 500,
            message: error,
        });
    }
    if answer.done != Some(true) {
        return Err(ProviderError::Invalid(
            "the answer is incomplete (no \"done\": true)".into(),
        ));
    }
    if matches!(answer.done_reason.as_deref(), Some("load") | Some("unload")) {
        return Err(ProviderError::Invalid(
            "the model only loaded and generated nothing".into(),
        ));
    }
    let content = answer.message.map(|m| m.content).unwrap_or_default();
    if answer.done_reason.as_deref() == Some("length") {
        // What came before the limit may still hold a complete object; if not, the
        // retry gets more room.
        return parse_enrichment(&content, body).map_err(|_| {
            ProviderError::Unusable(RefusedAnswer::new(
                "the answer was cut off at the token limit",
                &content,
                true,
            ))
        });
    }
    parse_enrichment(&content, body)
        .map_err(|problem| ProviderError::Unusable(RefusedAnswer::new(problem, &content, false)))
}

/// The `error` of an Ollama JSON error body, else the raw text.
fn error_message(bytes: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(String::from))
        .unwrap_or_else(|| String::from_utf8_lossy(bytes).trim().to_string())
}

/// Ollama lists names with a tag (`llama3.2:latest`) and matches case-insensitively.
fn same_model(listed: &str, wanted: &str) -> bool {
    fn normalise(name: &str) -> String {
        let name = name.to_lowercase();
        if name.contains(':') {
            name
        } else {
            format!("{name}:latest")
        }
    }
    !listed.is_empty() && normalise(listed) == normalise(wanted)
}

#[cfg(test)]
#[path = "ollama_tests.rs"]
mod tests;
