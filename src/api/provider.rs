//! The provider's health as the API, the live feed and the tray see it.

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
