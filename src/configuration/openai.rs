//! The `[openai]` section: where an OpenAI-compatible server is (llama.cpp's `llama-server`, LM Studio, vLLM, Jan,
//! LocalAI, Ollama's `/v1`), which model it serves, where its key comes from, and how
//! long a call may take.
//!
//! The key itself is never in a file: `api_key_env` names the environment variable that
//! holds it, read once at start-up ([`ApiKey`], never printed).

use std::time::Duration;

use serde::Deserialize;

use super::ai::MIN_EMBEDDING_CONTEXT;
use super::ollama::MIN_NUM_CTX;
use super::strict;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenAiSettings {
    /// The API's base, ending in `/v1` (`http://127.0.0.1:8080/v1`).
    #[serde(deserialize_with = "strict::text")]
    pub url: String,
    /// The model's name as the server lists it (`GET /v1/models`).
    #[serde(deserialize_with = "strict::text")]
    pub model: String,
    /// The name of the environment variable holding the API key; empty: no key.
    #[serde(deserialize_with = "strict::text")]
    pub api_key_env: String,
    #[serde(deserialize_with = "strict::whole")]
    pub request_timeout_ms: u64,
    /// The longest deadline a note that keeps timing out while the server is up gets.
    #[serde(deserialize_with = "strict::whole")]
    pub max_request_timeout_ms: u64,
    #[serde(deserialize_with = "strict::whole")]
    pub health_interval_ms: u64,
    /// The most context a call may use, in tokens; 0: as much as the server says it
    /// has (llama.cpp, vLLM and LM Studio say; others get [`UNSAID_CONTEXT_TOKENS`]).
    #[serde(deserialize_with = "strict::whole")]
    pub context_tokens: u32,
    /// The base of the server that makes the notes' vectors, ending in `/v1`; empty:
    /// `url` (one llama-server started with `--embeddings --pooling mean` makes both; a
    /// second server, e.g. for a dedicated embedding model, is named here).
    #[serde(deserialize_with = "strict::text")]
    pub embedding_url: String,
    /// The embedding model's name; empty: no vectors.
    #[serde(deserialize_with = "strict::text")]
    pub embedding_model: String,
    /// The embedding model's context in tokens (llama.cpp: its physical batch, `-ub`,
    /// 512 unless started otherwise): a longer note is cut to it.
    #[serde(deserialize_with = "strict::whole")]
    pub embedding_context_tokens: u32,
}

/// The context assumed of a server that does not say its own, when none is configured:
/// small enough for any model worth running, so a long note is cut rather than refused.
pub const UNSAID_CONTEXT_TOKENS: u32 = 4096;

impl OpenAiSettings {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_millis(self.request_timeout_ms)
    }

    pub fn max_request_timeout(&self) -> Duration {
        Duration::from_millis(self.max_request_timeout_ms)
    }

    pub fn health_interval(&self) -> Duration {
        Duration::from_millis(self.health_interval_ms)
    }

    /// The configured context cap; `None`: the server's own.
    pub fn context_cap(&self) -> Option<u32> {
        (self.context_tokens > 0).then_some(self.context_tokens)
    }

    /// Where embeddings are asked for: `embedding_url`, else `url`.
    pub fn embedding_base(&self) -> &str {
        let url = if self.embedding_url.trim().is_empty() {
            &self.url
        } else {
            &self.embedding_url
        };
        url.trim().trim_end_matches('/')
    }

    /// The server's root, without `/v1` (llama.cpp's `/health` and `/props` live there).
    pub fn server_root(&self) -> &str {
        let url = self.url.trim_end_matches('/');
        url.strip_suffix("/v1").unwrap_or(url)
    }
}

/// The API key, read from the variable `openai.api_key_env` names. Its `Debug` never
/// shows it: settings are logged.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(Option<String>);

impl ApiKey {
    /// The key from `env`: none when no variable is named; an error naming the variable
    /// when it is named but unset or empty.
    pub fn from_env(
        variable: &str,
        env: &std::collections::HashMap<String, String>,
    ) -> Result<Self, String> {
        Self::from_env_for("openai.api_key_env", variable, env)
    }

    /// The same for the setting `setting` (`transcription.api_key_env`): the words of an
    /// error name it.
    pub fn from_env_for(
        setting: &str,
        variable: &str,
        env: &std::collections::HashMap<String, String>,
    ) -> Result<Self, String> {
        let variable = variable.trim();
        if variable.is_empty() {
            return Ok(ApiKey(None));
        }
        match env.get(variable).map(|key| key.trim()) {
            Some(key) if !key.is_empty() => Ok(ApiKey(Some(key.to_string()))),
            Some(_) => Err(format!(
                "the environment variable {variable} is set but empty: put the server's API \
                 key in it, or set {setting} = \"\" for a server without a key"
            )),
            None => Err(format!(
                "the environment variable {variable} is not set: export it with the server's \
                 API key, or set {setting} = \"\" for a server without a key"
            )),
        }
    }

    /// The key, to send as `Authorization: Bearer …`.
    pub fn secret(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(_) => f.write_str("ApiKey(set)"),
            None => f.write_str("ApiKey(none)"),
        }
    }
}

impl OpenAiSettings {
    /// `[openai]`, checked when it is the provider: the key at fault and why.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let bad = |key: &'static str, reason: String| Err((key, reason));
        if let Err(reason) = strict::http_url(&self.url) {
            return bad("openai.url", reason);
        }
        if !self.url.trim_end_matches('/').ends_with("/v1") {
            return bad(
                "openai.url",
                format!(
                    "\"{}\" does not end in /v1: write the API's base, as in \
                     http://127.0.0.1:8080/v1",
                    self.url
                ),
            );
        }
        if self.model.trim().is_empty() {
            return bad(
                "openai.model",
                "must name the model the server serves (as GET /v1/models lists it)".into(),
            );
        }
        if self.request_timeout_ms == 0 {
            return bad("openai.request_timeout_ms", "must be at least 1".into());
        }
        if self.max_request_timeout_ms < self.request_timeout_ms {
            return bad(
                "openai.max_request_timeout_ms",
                "must be at least openai.request_timeout_ms".into(),
            );
        }
        if self.health_interval_ms == 0 {
            return bad("openai.health_interval_ms", "must be at least 1".into());
        }
        if !self.embedding_url.trim().is_empty() {
            if let Err(reason) = strict::http_url(&self.embedding_url) {
                return bad("openai.embedding_url", reason);
            }
            if !self.embedding_url.trim_end_matches('/').ends_with("/v1") {
                return bad(
                    "openai.embedding_url",
                    format!(
                        "\"{}\" does not end in /v1: write the API's base, as in \
                         http://127.0.0.1:8081/v1",
                        self.embedding_url
                    ),
                );
            }
        }
        if self.embedding_context_tokens < MIN_EMBEDDING_CONTEXT {
            return bad(
                "openai.embedding_context_tokens",
                format!("must be at least {MIN_EMBEDDING_CONTEXT}"),
            );
        }
        if self.context_tokens != 0 && self.context_tokens < MIN_NUM_CTX {
            return bad(
                "openai.context_tokens",
                format!(
                    "must be 0 (the server's own) or at least {MIN_NUM_CTX} (the prompt and the \
                     answer need room)"
                ),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
