//! Everything about asking the LLM, none of it an actor:
//!
//! - [`enrichment`]: the prompt, the JSON schema sent as `format`, and the strict
//!   validation of the answer;
//! - [`classify`]: `ProviderError` (what went wrong, as data) and `classify_reason`
//!   (docs/DESIGN.md, "Failure reasons");
//! - [`ollama`]: the awc client for Ollama's HTTP API, behind the [`EnrichmentProvider`]
//!   trait the actors use.

pub mod classify;
pub mod enrichment;
pub mod ollama;

use futures_util::future::LocalBoxFuture;

pub use classify::{classify_reason, FailureReason, ProviderError};

use crate::domain::Enrichment;

/// What the provider's health check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ProviderHealth {
    /// Answering, and the configured model is installed.
    Ready,
    /// Answering, but the configured model is not installed: `ollama pull MODEL`.
    ModelMissing { model: String },
    /// Not answering (not running, wrong URL, or not Ollama).
    NotRunning { detail: String },
}

impl ProviderHealth {
    pub fn is_ready(&self) -> bool {
        matches!(self, ProviderHealth::Ready)
    }
}

/// The LLM as the actors see it. `!Send` futures: awc's client lives on one arbiter.
pub trait EnrichmentProvider {
    /// Asks for the title, tags and summary of one note; `tags_in_use`, the user's most
    /// used tags, are offered for reuse.
    fn enrich(
        &self,
        body: &str,
        tags_in_use: &[String],
    ) -> LocalBoxFuture<'static, Result<Enrichment, ProviderError>>;
    /// Is the provider up, and is the model installed?
    fn health(&self) -> LocalBoxFuture<'static, ProviderHealth>;
}
