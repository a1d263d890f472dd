//! `OllamaClient`: the awc client for Ollama's HTTP API (docs/PLATFORM.md, "Ollama").
//!
//! A stateless transport: it carries out the worker's plans ([`CallPlan`], [`LoadPlan`])
//! as they are and decides nothing about a call (its deadline, prompt, cut and context
//! are the core's, `crate::actors::ai_worker::core`).
//!
//! - `enrich`: `POST /api/chat`, `"stream": true` (so that a call past its deadline is
//!   hung up and Ollama stops), its lines put together into one answer
//!   ([`StreamedChat`]), the enrichment schema as `format`,
//!   `keep_alive`, the plan's messages, sampling, token cap and context (`num_ctx`).
//!   One overall deadline covers connect, queueing, generation and reading the body;
//!   awc's own 5 s default would abort every cold start (and an aborted load restarts
//!   from zero). The answer's counts and durations come back as [`Usage`].
//! - `model_context`: `POST /api/show`, the model's own context length.
//! - `load_model`: `POST /api/generate` with no prompt, which only loads the model, in
//!   the context the calls will use (Ollama reloads whenever it changes).
//! - `chat_stream`: `POST /api/chat`, `"stream": true`, no format: an answer to a
//!   question, read as it comes, one NDJSON line a piece ([`chat_line`]);
//! - `embed`: `POST /api/embed`, the texts as one batch, with the embedding model.
//! - `health`: `GET /api/tags`: is Ollama answering, and is the model pulled?
//! - `pull_model`: `POST /api/pull`, its NDJSON progress read line by line as it comes
//!   (a download takes minutes: no overall deadline, but a stalled one ends).

use std::time::Duration;

use awc::Client;
use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;
use futures_util::FutureExt;
use futures_util::StreamExt as _;
use serde::Deserialize;
use serde_json::json;

use super::embedding::{read_embeddings, EmbedPlan};
use super::enrichment::{context_length, format_schema, messages_json, parse_enrichment};
use super::streaming::{streamed_answer, streamed_chat, Assemble, LineSays};
use super::transport::{
    call_within, error_message, exchange, provider_http_client, redirect_refused, within,
};
use super::{
    CallPlan, CallReply, Chat, ChatPlan, Embed, Health, LoadPlan, ModelServer, Prompt,
    ProviderError, ProviderHealth, Pull, PullProgress, RefusedAnswer, Sampling, Usage,
};
use crate::configuration::OllamaSettings;
use crate::domain::Enrichment;

/// The health check is a cheap local GET; it must not hang the monitor.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(3);

/// A client for one Ollama server and model.
#[derive(Clone)]
pub struct OllamaClient {
    http: Client,
    base_url: String,
    model: String,
    /// Sent with every request as it is written (`ollama.keep_alive`: "30m", "-1").
    keep_alive: String,
    /// The model that makes the notes' vectors (`ollama.embedding_model`).
    embedding_model: String,
}

/// The parts of an `/api/chat` answer that matter (as [`StreamedChat`] puts a streamed
/// one together); unknown fields ignored.
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
        OllamaClient {
            http: provider_http_client(),
            base_url: settings.url.trim_end_matches('/').to_string(),
            model: settings.model.clone(),
            keep_alive: settings.keep_alive.clone(),
            embedding_model: settings.embedding_model.trim().to_string(),
        }
    }

    /// `POST /api/embed` with the texts as a batch `input`: one vector each, in order.
    /// No `truncate`: Ollama ignores it since 0.13.5, and the core cuts each text to the
    /// model's context first.
    async fn embed_texts(self, plan: EmbedPlan) -> Result<Vec<Vec<f32>>, ProviderError> {
        let request = json!({
            "model": self.embedding_model,
            "input": plan.texts,
            "keep_alive": self.keep_alive,
        });
        let url = format!("{}/api/embed", self.base_url);
        let (status, bytes) = exchange(|| self.http.post(&url).send_json(&request)).await?;
        read_embeddings(status, &bytes, error_message)
    }

    /// The `/api/chat` request that carries out `plan`.
    fn chat_request(&self, plan: &CallPlan) -> serde_json::Value {
        let mut options = match plan.sampling {
            Sampling::Greedy => json!({ "temperature": 0 }),
            Sampling::Reseeded { temperature, seed } => {
                json!({ "temperature": temperature, "seed": seed })
            }
        };
        options["num_predict"] = plan.output_tokens.into();
        options["num_ctx"] = plan.context_tokens.into();
        json!({
            "model": self.model,
            // Streamed so that a call given up is given up by Ollama too
            // (`super::streaming`).
            "stream": true,
            "keep_alive": self.keep_alive,
            "messages": messages_json(&plan.prompt.messages),
            "format": format_schema(),
            "options": options,
        })
    }

    /// The model's own context (`POST /api/show`): `Ok(None)` when the answer does not
    /// say; an error when Ollama did not answer it (asked again before the next call).
    async fn show_context(self) -> Result<Option<u32>, ProviderError> {
        let url = format!("{}/api/show", self.base_url);
        let request = json!({ "model": self.model });
        let (status, bytes) = exchange(|| self.http.post(&url).send_json(&request)).await?;
        if status != 200 {
            return Err(ProviderError::Status {
                code: status,
                message: error_message(&bytes),
            });
        }
        Ok(serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .and_then(|show| context_length(&show)))
    }

    async fn chat(self, plan: CallPlan) -> CallReply {
        let request = self.chat_request(&plan);
        let url = format!("{}/api/chat", self.base_url);
        // The call's one deadline is around all of it (`call_within`).
        let sent = streamed_answer(
            || self.http.post(&url).send_json(&request),
            plan.deadline,
            plan.deadline,
            StreamedChat::default(),
        )
        .await;
        let (status, bytes) = match sent {
            Ok(answer) => answer,
            Err(error) => return CallReply::failed(error),
        };
        if status == 404 && !is_ollama_error(&bytes) {
            return CallReply::failed(ProviderError::Misconfigured(format!(
                "{} answered HTTP 404 to /api/chat: it is not Ollama; check ollama.url",
                self.base_url
            )));
        }
        if !(200..300).contains(&status) {
            return CallReply::failed(ProviderError::Status {
                code: status,
                message: error_message(&bytes),
            });
        }
        let answer: ChatResponse = match serde_json::from_slice(&bytes) {
            Ok(answer) => answer,
            Err(e) => {
                return CallReply::failed(ProviderError::Invalid(format!(
                    "the answer is not Ollama's JSON: {e}"
                )))
            }
        };
        let usage = Usage {
            prompt_tokens: figure(&answer.prompt_eval_count).unwrap_or(0),
            prompt_ns: figure(&answer.prompt_eval_duration).unwrap_or(0),
            output_tokens: figure(&answer.eval_count).unwrap_or(0),
            output_ns: figure(&answer.eval_duration).unwrap_or(0),
        };
        if usage.prompt_tokens > 0 {
            let (evaluated, estimated) = (usage.prompt_tokens, plan.prompt.estimated_tokens);
            let num_ctx = plan.context_tokens;
            tracing::debug!(evaluated, estimated, num_ctx, "prompt tokens");
            if evaluated + u64::from(plan.output_tokens) >= u64::from(num_ctx) {
                tracing::warn!(
                    evaluated,
                    estimated,
                    num_ctx,
                    "the prompt filled the model's context: Ollama may have cut its front"
                );
            }
        }
        CallReply {
            result: check_chat_answer(answer, &plan.prompt),
            usage: Some(usage),
        }
    }

    /// `POST /api/generate` with the model and no prompt: Ollama loads the model (and
    /// keeps it for `keep_alive`) and answers `done_reason: "load"`.
    /// The load asks for the context the calls will use, or the first call would load
    /// the model again.
    async fn load(self, num_ctx: u32) -> Result<(), ProviderError> {
        let request = json!({
            "model": self.model, "keep_alive": self.keep_alive, "stream": false,
            "options": { "num_ctx": num_ctx },
        });
        let url = format!("{}/api/generate", self.base_url);
        let (status, bytes) = exchange(|| self.http.post(&url).send_json(&request)).await?;
        if (200..300).contains(&status) {
            Ok(())
        } else {
            Err(ProviderError::Status {
                code: status,
                message: error_message(&bytes),
            })
        }
    }

    async fn check_health(self) -> ProviderHealth {
        let url = format!("{}/api/tags", self.base_url);
        let exchange = exchange(|| self.http.get(&url).send());
        let (status, bytes) = match actix_rt::time::timeout(HEALTH_TIMEOUT, exchange).await {
            Err(_) => {
                return ProviderHealth::NotRunning {
                    detail: format!("no answer from {} within {HEALTH_TIMEOUT:?}", self.base_url),
                }
            }
            Ok(Err(ProviderError::Misconfigured(words))) => {
                return ProviderHealth::NotRunning {
                    detail: format!("{}: {words}", self.base_url),
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
                server: ModelServer::Ollama,
            },
        }
    }
}

impl Chat for OllamaClient {
    fn enrich(&self, plan: CallPlan) -> LocalBoxFuture<'static, CallReply> {
        call_within(plan.deadline, self.clone().chat(plan))
    }

    fn chat_stream(
        &self,
        plan: ChatPlan,
    ) -> LocalBoxStream<'static, Result<String, ProviderError>> {
        let request = json!({
            "model": self.model,
            "stream": true,
            "keep_alive": self.keep_alive,
            "messages": messages_json(&plan.messages),
            "options": {
                "temperature": 0,
                "num_predict": plan.output_tokens,
                "num_ctx": plan.context_tokens,
            },
        });
        let url = format!("{}/api/chat", self.base_url);
        let http = self.http.clone();
        streamed_chat(
            move || http.post(&url).send_json(&request),
            plan.first_piece,
            plan.stall,
            chat_line,
        )
    }

    fn model_context(&self) -> LocalBoxFuture<'static, Result<Option<u32>, ProviderError>> {
        within(
            HEALTH_TIMEOUT,
            "no model details",
            self.clone().show_context(),
        )
    }

    fn load_model(&self, plan: LoadPlan) -> LocalBoxFuture<'static, Result<(), ProviderError>> {
        within(
            plan.deadline,
            "the model did not load",
            self.clone().load(plan.context_tokens),
        )
    }
}

impl Embed for OllamaClient {
    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>> {
        within(plan.deadline, "no vectors", self.clone().embed_texts(plan))
    }
}

impl Health for OllamaClient {
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        self.clone().check_health().boxed_local()
    }
}

impl Pull for OllamaClient {
    fn pull_model(
        &self,
        model: &str,
    ) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>> {
        self.clone().pull(model.to_string()).boxed_local()
    }
}

/// One line of a streamed `/api/chat`: `{"message": {"content": "…"}, "done": false}`
/// a piece, `"done": true` the end, `{"error": "…"}` a failure mid-answer.
pub fn chat_line(line: &str) -> LineSays {
    if line.is_empty() {
        return LineSays::Nothing;
    }
    let value: serde_json::Value = match serde_json::from_str(line) {
        Ok(value) => value,
        Err(e) => {
            return LineSays::Failed(ProviderError::Invalid(format!(
                "a line of the answer that is not Ollama's JSON: {e}"
            )))
        }
    };
    if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
        return LineSays::Failed(ProviderError::Status {
            code: 500,
            message: error.to_string(),
        });
    }
    if value.get("done").and_then(serde_json::Value::as_bool) == Some(true) {
        return LineSays::End;
    }
    let text = value["message"]["content"].as_str().unwrap_or_default();
    LineSays::Text(text.to_string())
}

/// An enrichment streamed as NDJSON, put together into the answer the same call
/// unstreamed gets: the pieces of `message.content` in order, and the last line's
/// `done`, `done_reason` and counts; an `{"error": …}` line ends it as a failure.
#[derive(Debug, Default)]
struct StreamedChat {
    content: String,
    last: Option<serde_json::Value>,
}

impl Assemble for StreamedChat {
    fn line(&mut self, line: &str) -> Result<bool, ProviderError> {
        if line.is_empty() {
            return Ok(false);
        }
        let value: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| ProviderError::Invalid(format!("the answer is not Ollama's JSON: {e}")))?;
        if let Some(error) = value.get("error").and_then(|e| e.as_str()) {
            return Err(ProviderError::Status {
                code: 500,
                message: error.to_string(),
            });
        }
        if let Some(piece) = value["message"]["content"].as_str() {
            self.content.push_str(piece);
        }
        let done = value.get("done").and_then(serde_json::Value::as_bool) == Some(true);
        self.last = Some(value);
        Ok(done)
    }

    fn begun(&self) -> bool {
        !self.content.is_empty()
    }

    fn whole(self) -> serde_json::Value {
        let mut answer = self.last.unwrap_or_else(|| json!({}));
        answer["message"] = json!({ "role": "assistant", "content": self.content });
        answer
    }
}

/// A pull with no line for this long has stalled (a download sends one a second or so).
const PULL_STALL: Duration = Duration::from_secs(120);

/// Where a streamed pull is.
enum PullStep<B> {
    /// The client, and the model to pull.
    Start(OllamaClient, String),
    Reading {
        body: B,
        buffer: Vec<u8>,
    },
    Over,
}

impl OllamaClient {
    /// `POST /api/pull`, streamed: each NDJSON line as a [`PullProgress`]; an `error`
    /// line, a refused request or a stall ends the stream with the error.
    fn pull(
        self,
        model: String,
    ) -> impl futures_util::Stream<Item = Result<PullProgress, ProviderError>> {
        use futures_util::StreamExt;
        futures_util::stream::unfold(PullStep::Start(self, model), |step| async move {
            let (mut body, mut buffer) = match step {
                PullStep::Over => return None,
                PullStep::Start(client, model) => {
                    let url = format!("{}/api/pull", client.base_url);
                    let request = json!({ "model": model, "stream": true });
                    let sent = client.http.post(&url).send_json(&request).await;
                    let mut response = match sent {
                        Ok(response) => response,
                        Err(e) => {
                            return Some((Err(ProviderError::from_send_error(&e)), PullStep::Over))
                        }
                    };
                    if let Some(refused) = redirect_refused(&response) {
                        return Some((Err(refused), PullStep::Over));
                    }
                    if !response.status().is_success() {
                        let code = response.status().as_u16();
                        let bytes = response
                            .body()
                            .limit(super::transport::MAX_ANSWER_BYTES)
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

/// Checks an answer's envelope before its content (contract §6.2, "schema").
fn check_chat_answer(answer: ChatResponse, prompt: &Prompt) -> Result<Enrichment, ProviderError> {
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
        return parse_enrichment(&content, prompt).map_err(|_| {
            ProviderError::Unusable(RefusedAnswer::new(
                "the answer was cut off at the token limit",
                &content,
                true,
            ))
        });
    }
    parse_enrichment(&content, prompt)
        .map_err(|problem| ProviderError::Unusable(RefusedAnswer::new(problem, &content, false)))
}

/// An Ollama error body (`{"error": "…"}`), as opposed to another server's page.
fn is_ollama_error(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .is_ok_and(|v| v.get("error").is_some_and(serde_json::Value::is_string))
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
mod tests;
