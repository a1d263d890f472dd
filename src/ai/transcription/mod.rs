//! `TranscriptionClient`: the awc client of a speech-to-text server with the
//! OpenAI-compatible `POST {url}/audio/transcriptions` (whisper.cpp's `whisper-server`
//! started with `--inference-path /v1/audio/transcriptions`, Speaches, LocalAI, vLLM).
//! It implements [`super::Transcribe`] and [`super::Health`] and nothing else: a
//! stateless transport that carries out the voice notes' worker's plan. What it reads
//! and writes on the wire is [`contract`]'s.
//!
//! - `transcribe`: the recording as a multipart form, under the plan's one deadline;
//! - `health`: `GET {root}/health` (whisper.cpp: 503 while loading its model), then
//!   `GET {url}/models` (the model listed, missing, the key refused; a server without
//!   `/models`, as whisper.cpp's, is ready once it answers).

pub mod contract;

use std::time::Duration;

use futures_util::future::LocalBoxFuture;

use self::contract::{health_from_health, health_from_models, read_transcript, transcription_form};
use super::transcribe::{TranscribePlan, Transcript};
use super::transport::{exchange, health_within, provider_http_client, within};
use super::{Health, ProviderError, ProviderHealth, Transcribe};
use crate::configuration::{ApiKey, TranscriptionSettings};

/// The health check's two GETs are cheap local requests.
const QUICK_TIMEOUT: Duration = Duration::from_secs(3);

/// A client for one speech-to-text server and model.
#[derive(Clone)]
pub struct TranscriptionClient {
    http: awc::Client,
    /// The API's base, ending in `/v1`.
    url: String,
    /// The server's root, where its `/health` is.
    root: String,
    model: String,
    key: ApiKey,
}

impl TranscriptionClient {
    pub fn new(settings: &TranscriptionSettings, key: ApiKey) -> Self {
        TranscriptionClient {
            http: provider_http_client(),
            url: settings.base().to_string(),
            root: settings.server_root().to_string(),
            model: settings.model.trim().to_string(),
            key,
        }
    }

    fn authorised(&self, request: awc::ClientRequest) -> awc::ClientRequest {
        match self.key.secret() {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    async fn send(self, plan: TranscribePlan) -> Result<Transcript, ProviderError> {
        let mut random = [0u8; 16];
        getrandom::fill(&mut random).map_err(|e| {
            ProviderError::Unexpected(format!("no random boundary for the upload: {e}"))
        })?;
        let form = transcription_form(&plan, &self.model, random);
        let url = format!("{}/audio/transcriptions", self.url);
        let body = actix_web::web::Bytes::from(form.body);
        let (status, bytes) = exchange(|| {
            self.authorised(self.http.post(&url))
                .insert_header(("Content-Type", form.content_type.as_str()))
                .send_body(body.clone())
        })
        .await?;
        read_transcript(status, &bytes, &self.url, plan.format)
    }

    async fn check_health(self) -> ProviderHealth {
        let not_running = |error: ProviderError| ProviderHealth::NotRunning {
            detail: match error {
                ProviderError::Misconfigured(words) => format!("{}: {words}", self.url),
                error => format!(
                    "no answer from the speech-to-text server at {}: {error}",
                    self.url
                ),
            },
        };
        let health = format!("{}/health", self.root);
        match exchange(|| self.authorised(self.http.get(&health)).send()).await {
            Err(error) => return not_running(error),
            Ok((status, bytes)) => {
                if let Some(health) = health_from_health(status, &bytes, &self.root) {
                    return health;
                }
            }
        }
        let models = format!("{}/models", self.url);
        match exchange(|| self.authorised(self.http.get(&models)).send()).await {
            Err(error) => not_running(error),
            Ok((status, bytes)) => health_from_models(status, &bytes, &self.url, &self.model),
        }
    }
}

impl Transcribe for TranscriptionClient {
    fn transcribe(
        &self,
        plan: TranscribePlan,
    ) -> LocalBoxFuture<'static, Result<Transcript, ProviderError>> {
        within(plan.deadline, "no transcript", self.clone().send(plan))
    }
}

impl Health for TranscriptionClient {
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth> {
        health_within(
            QUICK_TIMEOUT,
            self.root.clone(),
            self.clone().check_health(),
        )
    }
}
