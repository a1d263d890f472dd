//! `OpenAiClient`: the awc client for any server with the OpenAI API (llama.cpp's
//! `llama-server`, LM Studio, vLLM, Jan, LocalAI, Ollama's `/v1`), with the same
//! capabilities as Ollama's ([`super::capabilities`]: chat, embed, health, pull). A
//! stateless transport like it: it carries out the worker's plans and decides nothing about a call. What it reads and writes on the
//! wire is [`contract`]'s.
//!
//! - `enrich`: `POST {url}/chat/completions`, `"stream": true` (so that a call past
//!   its deadline is hung up and the server stops), the plan's messages, sampling and
//!   token cap, the enrichment schema as `response_format`; one overall deadline; the
//!   streamed chunks put together into one completion ([`contract::StreamedCompletion`])
//!   and read as an unstreamed answer. A server that refuses the format is asked again at once with the next
//!   one (`json_schema` → `json_object` → none), and the format it took is remembered
//!   until restart: knowledge of this server, not a decision about the call.
//! - `chat_stream`: `POST {url}/chat/completions`, `"stream": true`, no format: an
//!   answer to a question, read as server-sent events as it comes
//!   ([`contract::stream_line`]);
//! - `model_context`: the model's context from `GET {url}/models` (llama.cpp's
//!   `meta.n_ctx`, vLLM's `max_model_len`), else llama.cpp's `GET /props`.
//! - `health`: llama.cpp's `GET /health` first (503 "Loading model" is its own state),
//!   then `GET {url}/models`: the model listed, missing, the key refused, or no such
//!   server there; with the model listed, `GET /props` with the key: a server whose
//!   `/models` is open to anyone shows a refused key there, before any note is sent,
//!   not as a server that looks ready and refuses every note.
//! - `embed`: `POST {embedding_url}/embeddings` (`encoding_format: "float"`), the texts
//!   as one batch; llama.cpp makes them only in a server started with `--embeddings`.
//! - `load_model`: nothing to do; these servers load their model themselves.
//! - `pull_model`: these servers have no download: one error saying to load the model
//!   in the server.

pub mod contract;

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;
use futures_util::{FutureExt, StreamExt};
use serde_json::Value;

use self::contract::{
    chat_request, context_exceeded, context_in_models, context_in_props, is_loading, key_refused,
    models_health, read_answer, refuses_format, stream_line, stream_request, usage_of,
    OutputFormat, StreamedCompletion,
};
use super::embedding::{read_embeddings, EmbedPlan};
use super::streaming::{streamed_answer, streamed_chat};
use super::transport::{
    call_within, error_message, exchange, health_within, provider_http_client, within,
};
use super::{
    CallPlan, CallReply, Chat, ChatPlan, Embed, Health, LoadPlan, ProviderError, ProviderHealth,
    Pull, PullProgress,
};
use crate::configuration::{ApiKey, OpenAiSettings};

/// The health check and the context's read are cheap local GETs.
const QUICK_TIMEOUT: Duration = Duration::from_secs(3);

/// A client for one OpenAI-compatible server and model.
#[derive(Clone)]
pub struct OpenAiClient {
    http: awc::Client,
    /// The API's base, ending in `/v1`.
    url: String,
    /// The server's root, where llama.cpp's `/health` and `/props` are.
    root: String,
    model: String,
    key: ApiKey,
    /// Where vectors are made (`openai.embedding_url`, else `url`), and by which model.
    embedding_url: String,
    embedding_model: String,
    /// The most constrained output format this server has not refused (shared by the
    /// clones; reset by a restart).
    format: Rc<Cell<OutputFormat>>,
}

impl OpenAiClient {
    pub fn new(settings: &OpenAiSettings, key: ApiKey) -> Self {
        OpenAiClient {
            http: provider_http_client(),
            url: settings.url.trim_end_matches('/').to_string(),
            root: settings.server_root().to_string(),
            model: settings.model.trim().to_string(),
            key,
            embedding_url: settings.embedding_base().to_string(),
            embedding_model: settings.embedding_model.trim().to_string(),
            format: Rc::new(Cell::new(OutputFormat::JsonSchema)),
        }
    }

    fn get(&self, url: &str) -> awc::ClientRequest {
        self.authorised(self.http.get(url))
    }

    fn authorised(&self, request: awc::ClientRequest) -> awc::ClientRequest {
        match self.key.secret() {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// `POST {embedding_url}/embeddings` with the texts as a batch `input`, asking for
    /// plain floats (`encoding_format: "float"`: a server's base64 default once read as
    /// a quarter of the dimensions, Karakeep #2991).
    async fn embed_texts(self, plan: EmbedPlan) -> Result<Vec<Vec<f32>>, ProviderError> {
        let url = format!("{}/embeddings", self.embedding_url);
        let request = serde_json::json!({
            "model": self.embedding_model,
            "input": plan.texts,
            "encoding_format": "float",
        });
        let (status, bytes) =
            exchange(|| self.authorised(self.http.post(&url)).send_json(&request)).await?;
        read_embeddings(status, &bytes, error_message)
    }

    async fn chat(self, plan: CallPlan) -> CallReply {
        let url = format!("{}/chat/completions", self.url);
        loop {
            let format = self.format.get();
            let request = chat_request(&self.model, &plan, format);
            // The call's one deadline is around all of it (`call_within`), so no
            // shorter wait for a piece: a slow prompt is the core's to plan for.
            let sent = streamed_answer(
                || self.authorised(self.http.post(&url)).send_json(&request),
                plan.deadline,
                plan.deadline,
                StreamedCompletion::default(),
            )
            .await;
            let (status, bytes) = match sent {
                Ok(answer) => answer,
                Err(error) => return CallReply::failed(error),
            };
            if refuses_format(status, &bytes) {
                if let Some(next) = format.fallback() {
                    tracing::warn!(refused = ?format, next = ?next, message = %error_message(&bytes),
                        "the model server does not take this output format; asking with the next");
                    self.format.set(next);
                    continue;
                }
            }
            return self.reply(status, &bytes, &plan);
        }
    }

    /// A chat answer, whatever its status, as the worker's core reads it.
    fn reply(&self, status: u16, bytes: &[u8], plan: &CallPlan) -> CallReply {
        if let Some(exceeded) = context_exceeded(status, bytes) {
            return CallReply::failed(exceeded);
        }
        let message = error_message(bytes);
        match status {
            200..=299 => {}
            401 | 403 => {
                return CallReply::failed(ProviderError::Misconfigured(format!(
                    "{} refused inkling's API key (HTTP {status}): check openai.api_key_env",
                    self.url
                )))
            }
            404 if !message.to_lowercase().contains("model") => {
                return CallReply::failed(ProviderError::Misconfigured(format!(
                    "{}/chat/completions answered HTTP 404: not an OpenAI-compatible server; \
                     check openai.url",
                    self.url
                )))
            }
            _ => {
                return CallReply::failed(ProviderError::Status {
                    code: status,
                    message,
                })
            }
        }
        let answer: Value = match serde_json::from_slice(bytes) {
            Ok(answer) => answer,
            Err(e) => {
                return CallReply::failed(ProviderError::Invalid(format!(
                    "the answer is not a chat completion's JSON: {e}"
                )))
            }
        };
        CallReply {
            result: read_answer(&answer, plan),
            usage: usage_of(&answer),
        }
    }

    async fn read_context(self) -> Result<Option<u32>, ProviderError> {
        let url = format!("{}/models", self.url);
        let (status, bytes) = exchange(|| self.get(&url).send()).await?;
        if status == 200 {
            if let Some(context) = context_in_models(&bytes, &self.model) {
                return Ok(Some(context));
            }
        }
        let props = format!("{}/props", self.root);
        match exchange(|| self.get(&props).send()).await {
            Ok((200, bytes)) => Ok(context_in_props(&bytes)),
            // A server without `/props` does not say.
            Ok(_) => Ok(None),
            Err(error) => Err(error),
        }
    }

    async fn check_health(self) -> ProviderHealth {
        let url = self.url.clone();
        let not_running = move |error: ProviderError| ProviderHealth::NotRunning {
            detail: match error {
                // A redirect refused: it answered, and the words say where it pointed.
                ProviderError::Misconfigured(words) => format!("{url}: {words}"),
                error => format!("no answer from the model server at {url}: {error}"),
            },
        };
        // llama.cpp's own health, open without a key; other servers answer it 404 or
        // 200, or not at all.
        let health = format!("{}/health", self.root);
        match exchange(|| self.get(&health).send()).await {
            Err(error) => return not_running(error),
            Ok((status, bytes)) if is_loading(status, &bytes) => {
                return ProviderHealth::Loading {
                    detail: format!("{} is loading its model", self.root),
                }
            }
            Ok(_) => {}
        }
        let models = format!("{}/models", self.url);
        match exchange(|| self.get(&models).send()).await {
            Err(error) => not_running(error),
            Ok((status, bytes)) if is_loading(status, &bytes) => ProviderHealth::Loading {
                detail: format!("{} is loading its model", self.root),
            },
            Ok((status, bytes)) => match models_health(status, &bytes, &self.url, &self.model) {
                ProviderHealth::Ready => match self.key_health().await {
                    Ok(health) => health,
                    Err(error) => not_running(error),
                },
                health => health,
            },
        }
    }

    /// Whether the server takes inkling's key, asked of llama.cpp's `GET /props` (a
    /// route its `--api-key` guards): ready unless it answers 401 or 403. A server
    /// without `/props` answers otherwise and stays ready.
    async fn key_health(&self) -> Result<ProviderHealth, ProviderError> {
        let props = format!("{}/props", self.root);
        let (status, _) = exchange(|| self.get(&props).send()).await?;
        Ok(key_refused(status, &self.url).unwrap_or(ProviderHealth::Ready))
    }
}

impl Chat for OpenAiClient {
    fn enrich(&self, plan: CallPlan) -> LocalBoxFuture<'static, CallReply> {
        call_within(plan.deadline, self.clone().chat(plan))
    }

    fn chat_stream(
        &self,
        plan: ChatPlan,
    ) -> LocalBoxStream<'static, Result<String, ProviderError>> {
        let request = stream_request(&self.model, &plan);
        let url = format!("{}/chat/completions", self.url);
        let client = self.clone();
        streamed_chat(
            move || {
                client
                    .authorised(client.http.post(&url))
                    .send_json(&request)
            },
            plan.first_piece,
            plan.stall,
            stream_line,
        )
    }

    fn model_context(&self) -> LocalBoxFuture<'static, Result<Option<u32>, ProviderError>> {
        within(
            QUICK_TIMEOUT,
            "no model details",
            self.clone().read_context(),
        )
    }

    fn load_model(&self, _plan: LoadPlan) -> LocalBoxFuture<'static, Result<(), ProviderError>> {
        // The server loads its model itself; while it does, its health says so.
        async { Ok(()) }.boxed_local()
    }
}

impl Embed for OpenAiClient {
    fn embed(
        &self,
        plan: EmbedPlan,
    ) -> LocalBoxFuture<'static, Result<Vec<Vec<f32>>, ProviderError>> {
        within(plan.deadline, "no vectors", self.clone().embed_texts(plan))
    }
}

impl Health for OpenAiClient {
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        health_within(
            QUICK_TIMEOUT,
            self.root.clone(),
            self.clone().check_health(),
        )
    }
}

impl Pull for OpenAiClient {
    fn pull_model(
        &self,
        model: &str,
    ) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>> {
        let refusal = ProviderError::Misconfigured(format!(
            "the model server at {} has no download: load {model} there (in LM Studio, load \
             it; for llama.cpp, start llama-server with it and --alias {model})",
            self.url
        ));
        futures_util::stream::once(async move { Err(refusal) }).boxed_local()
    }
}
