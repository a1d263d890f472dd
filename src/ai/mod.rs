//! Everything about asking the LLM, none of it an actor:
//!
//! - [`enrichment`]: the prompt, the JSON schema sent as `format`, and the strict
//!   validation of the answer;
//! - [`classify`]: `ProviderError` (what went wrong, as data) and `classify_reason`
//!   (docs/DESIGN.md, "Failure reasons");
//! - [`speed`]: the model's measured speed, and the deadline a long note gets from it;
//! - [`ollama`]: the awc client for Ollama's HTTP API, behind the [`EnrichmentProvider`]
//!   trait the actors use.

pub mod classify;
pub mod enrichment;
pub mod model_time;
pub mod ollama;
pub mod speed;

use futures_util::future::LocalBoxFuture;
use futures_util::stream::LocalBoxStream;

pub use crate::api::provider::ProviderHealth;
pub use classify::{classify_reason, FailureReason, ProviderError, RefusedAnswer};

use crate::domain::Enrichment;

/// One line of a model download's progress (Ollama's `/api/pull` stream).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PullProgress {
    /// Ollama's words for the step: "pulling manifest", "downloading …", "verifying
    /// sha256 digest", "success".
    pub status: String,
    /// Bytes of the part being downloaded, when the step has a size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

/// How one call is made, as the worker's policy decided it (`core/`): plain data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallPlan {
    /// How long the call may take: `ollama.request_timeout_ms`, longer for a note that
    /// timed out while Ollama was up.
    pub deadline: std::time::Duration,
    /// The model's last answer for this note and why it was refused: the call tells
    /// the model (a retry is a different request, never a replay).
    pub refused: Option<RefusedAnswer>,
    /// Counted attempts before this call: a retry samples with a new seed.
    pub attempt: u32,
    /// The generation cap in tokens: more after an answer cut off at the limit.
    pub output_tokens: u32,
}

/// One note to enrich.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnrichRequest {
    pub body: String,
    /// The user's most used tags, offered for reuse.
    pub tags_in_use: Vec<String>,
    pub plan: CallPlan,
}

impl EnrichRequest {
    /// A note's first call: no refused answer, the first deadline, the first cap.
    pub fn first_try(body: &str, tags_in_use: &[String], deadline: std::time::Duration) -> Self {
        EnrichRequest {
            body: body.to_string(),
            tags_in_use: tags_in_use.to_vec(),
            plan: CallPlan {
                deadline,
                refused: None,
                attempt: 0,
                output_tokens: enrichment::OUTPUT_TOKENS,
            },
        }
    }
}

/// The LLM as the actors see it. `!Send` futures: awc's client lives on one arbiter.
pub trait EnrichmentProvider {
    /// Asks for the title, tags and summary of one note.
    fn enrich(
        &self,
        request: EnrichRequest,
    ) -> LocalBoxFuture<'static, Result<Enrichment, ProviderError>>;
    /// Is the provider up, and is the model installed?
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth>;
    /// Loads the model into memory (and keeps it there for `ollama.keep_alive`), under
    /// its own deadline, so a cold load is not charged to a note's call.
    fn load_model(&self) -> LocalBoxFuture<'static, Result<(), ProviderError>>;
    /// Downloads the model (`ollama pull`), its progress as it comes; the stream ends
    /// after "success", or with the error that stopped it.
    fn pull_model(&self) -> LocalBoxStream<'static, Result<PullProgress, ProviderError>>;
}
