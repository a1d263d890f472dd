//! One call to the model as plain data, as the worker's policy decides it and any
//! provider carries it out: the prompt's messages ([`Prompt`], [`ChatMessage`],
//! [`Role`]), how the model samples ([`Sampling`]), the call's deadline and caps
//! ([`CallPlan`], [`LoadPlan`]), and what came back ([`CallReply`], [`Usage`]).

use super::classify::ProviderError;
use super::enrichment;
use crate::domain::Enrichment;

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

impl Prompt {
    /// What the model was told besides the note: the system message (its instructions
    /// and the tags it offers) and, in a retry, the follow-up; not the note, nor the
    /// model's own refused answer. What a tag copied from the prompt is read against
    /// (`crate::tags::guards`).
    pub fn instructions(&self) -> String {
        let mut users = 0;
        let mut told = Vec::new();
        for message in &self.messages {
            match message.role {
                Role::System => told.push(message.content.as_str()),
                Role::User => {
                    users += 1;
                    if users > 1 {
                        told.push(message.content.as_str());
                    }
                }
                Role::Assistant => {}
            }
        }
        told.join("\n")
    }
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
