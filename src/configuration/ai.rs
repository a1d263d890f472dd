//! The `[ai]` section and what is true of any model server: which kind inkling speaks
//! to (`ai.provider`), whose programs may receive the notes on its loopback port
//! (`ai.trusted_listeners`), and the call and embedding settings the worker, the
//! monitor and the embedder are configured with, read from whichever provider's
//! section (`[ollama]`, `[openai]`) the settings name.

use std::time::Duration;

use serde::Deserialize;

use super::strict;

/// `ai.provider`: the kind of model server inkling speaks to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProviderKind {
    /// Ollama's own API (`[ollama]`): context size, keep-alive, downloads.
    #[default]
    Ollama,
    /// Any server with the OpenAI API (`[openai]`).
    OpenAi,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AiSettings {
    #[serde(deserialize_with = "provider_kind")]
    pub provider: ProviderKind,
    /// Users, by name or uid, whose program may receive the notes on the model
    /// server's loopback port, beyond this user, root and `ollama`
    /// (`crate::ai::listener`).
    #[serde(deserialize_with = "strict::text_list")]
    pub trusted_listeners: Vec<String>,
    /// The built-in embedder (issue #37): the notes' vectors made in the process,
    /// with no model server, when no server's embedding model is named
    /// (`ollama.embedding_model`, `openai.embedding_model`), which wins when set.
    #[serde(deserialize_with = "strict::boolean")]
    pub builtin_embedder: bool,
    /// Where its model is (`inkling pull-model --embedder` puts it there); empty: the
    /// data dir's `models/` folder for it.
    #[serde(deserialize_with = "strict::text")]
    pub builtin_embedder_dir: String,
}

impl AiSettings {
    /// `trusted_listeners` as uids: a name as the user database has it, or digits as
    /// a uid. An error names the first user this machine does not have.
    pub fn trusted_listener_uids(&self) -> Result<Vec<u32>, String> {
        self.trusted_listeners
            .iter()
            .map(|entry| {
                let entry = entry.trim();
                if !entry.is_empty() && entry.bytes().all(|b| b.is_ascii_digit()) {
                    return entry
                        .parse()
                        .map_err(|_| format!("\"{entry}\" is not a uid"));
                }
                crate::socket_owner::uid_of(entry).ok_or_else(|| {
                    format!(
                        "this machine has no user \"{entry}\": write a user name as \
                         `getent passwd` lists it, or a uid"
                    )
                })
            })
            .collect()
    }
}

/// `ai.provider`, with a message that says what to write instead.
fn provider_kind<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<ProviderKind, D::Error> {
    let text = strict::text(deserializer)?;
    match text.trim() {
        "ollama" => Ok(ProviderKind::Ollama),
        "openai" => Ok(ProviderKind::OpenAi),
        other => Err(serde::de::Error::custom(format!(
            "\"{other}\" is not a provider: write \"ollama\" for Ollama, or \"openai\" for \
             any OpenAI-compatible server (llama.cpp, LM Studio, vLLM, Jan)"
        ))),
    }
}

/// The smallest embedding context: the model's own tokens and a few words of the note.
pub const MIN_EMBEDDING_CONTEXT: u32 = 128;

/// How the notes' vectors are made, whichever the provider: the embedding model and
/// its context (a longer note is cut to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingCalls {
    pub model: String,
    pub context_tokens: u32,
    /// Made in the process by the built-in embedder, not by the model server.
    pub in_process: bool,
}

/// The built-in embedder's context: multilingual-e5-small reads 512 tokens a window.
/// A longer note is cut to it, as for a server's model (its beginning is its vector).
pub const BUILTIN_EMBEDDER_CONTEXT: u32 = 512;

/// How calls are made, whichever the provider: what the worker's core and the health
/// monitor are configured with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderCalls {
    pub request_timeout: Duration,
    pub max_request_timeout: Duration,
    /// How long the model stays loaded after a call; `None`: for ever (a server that
    /// keeps its model).
    pub keep_alive: Option<Duration>,
    pub load_timeout: Duration,
    /// The most context a call uses; `None`: the server's own.
    pub context_cap: Option<u32>,
    pub health_interval: Duration,
    /// The model's name, as configured.
    pub model: String,
}
