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
//!   [`transcribe`]: speech to text, declared for the server a later issue adds;
//! - [`ollama`]: the awc client for Ollama's HTTP API, and [`openai`]'s for any
//!   OpenAI-compatible server, each implementing the four;
//!   [`provider_for`] picks the one the settings name.
//! - [`listener`] and [`listener_guard`]: whose program on this machine may receive the
//!   notes, checked before every request to a loopback model server.

pub mod ask;
pub mod capabilities;
pub mod classify;
pub mod embedding;
pub mod enrichment;
pub mod listener;
pub mod listener_guard;
pub mod model_time;
pub mod ollama;
pub mod openai;
pub mod speed;
pub mod streaming;
pub mod transcribe;
pub mod transport;

pub use crate::api::provider::{ModelServer, ProviderHealth};
pub use classify::{classify_reason, FailureReason, ProviderError, RefusedAnswer};

use crate::configuration::{ProviderKind, Settings};
use crate::domain::Enrichment;
pub use ask::ChatPlan;
pub use capabilities::{Capabilities, Chat, Embed, Health, Pull, PullProgress};
pub use embedding::EmbedPlan;
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

/// The kind of model server the settings name, as the API and the tray tell it.
pub fn model_server_of(settings: &Settings) -> ModelServer {
    match settings.ai.provider {
        ProviderKind::Ollama => ModelServer::Ollama,
        ProviderKind::OpenAi => ModelServer::OpenAiCompatible,
    }
}

/// Who says a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    /// The role's name in a chat request (Ollama's and the OpenAI API's alike).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// One message of a chat request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

/// The prompt of one call, built once by [`enrichment::prompt`]: the messages as sent,
/// the note as the model reads it (cut to fit the context) and how much of it that is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub messages: Vec<ChatMessage>,
    /// The note's text in the prompt: the whole body, or its beginning when it did not
    /// fit (an empty title falls back to its first line).
    pub note: String,
    /// How many characters of the note the model read; `None`: all of it.
    pub read_chars: Option<u32>,
    /// The prompt's size in tokens, estimated high ([`enrichment::estimate_tokens`]).
    pub estimated_tokens: usize,
}

/// How the model samples its answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// Temperature 0: the first call of a note.
    Greedy,
    /// After a refused answer: a little randomness and a new seed, so the retry is a
    /// different request.
    Reseeded { temperature: f64, seed: u32 },
}

/// How one call is made, as the worker's policy decided it (`core/`): plain data that
/// any provider carries out as it is.
#[derive(Debug, Clone, PartialEq)]
pub struct CallPlan {
    /// How long the call may take, all of it (connect, queue, read, write).
    pub deadline: std::time::Duration,
    pub prompt: Prompt,
    pub sampling: Sampling,
    /// The generation cap in tokens: more after an answer cut off at the limit.
    pub output_tokens: u32,
    /// The context the call runs in, in tokens (Ollama's `num_ctx`; the server's own
    /// for the others, which the prompt was cut to fit).
    pub context_tokens: u32,
}

impl CallPlan {
    /// The plan of a note's first call before any speed is known, as the core makes it:
    /// for what calls a provider without the worker (benchmarks, the provider's tests).
    pub fn first_try(
        body: &str,
        tags_in_use: &[String],
        deadline: std::time::Duration,
        context_tokens: u32,
    ) -> Self {
        CallPlan {
            deadline,
            prompt: enrichment::prompt(
                body,
                &enrichment::PromptTags {
                    in_use: tags_in_use.to_vec(),
                    neighbours: Vec::new(),
                },
                None,
                context_tokens,
                enrichment::OUTPUT_TOKENS,
            ),
            sampling: Sampling::Greedy,
            output_tokens: enrichment::OUTPUT_TOKENS,
            context_tokens,
        }
    }
}

/// How the model is loaded before the first call (Ollama): its deadline, and the
/// context the calls will use (Ollama loads the model again whenever it changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadPlan {
    pub deadline: std::time::Duration,
    pub context_tokens: u32,
}

/// What a call cost, as the server reported it: the input to the speed estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Tokens of the prompt the model read, and the nanoseconds reading them (0: not
    /// said).
    pub prompt_tokens: u64,
    pub prompt_ns: u64,
    /// Tokens written, and the nanoseconds writing them (0: not said).
    pub output_tokens: u64,
    pub output_ns: u64,
}

/// A provider's answer to one call: the enrichment or what went wrong, and what the
/// call cost when the server said (also for an answer that could not be used).
#[derive(Debug, Clone, PartialEq)]
pub struct CallReply {
    pub result: Result<Enrichment, ProviderError>,
    pub usage: Option<Usage>,
}

impl CallReply {
    pub fn failed(error: ProviderError) -> Self {
        CallReply {
            result: Err(error),
            usage: None,
        }
    }
}
