//! The provider's health as the API, the live feed and the tray see it.

/// What the provider's health check found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ProviderHealth {
    /// Answering, and the configured model is installed.
    Ready,
    /// Answering, but the configured model is not there: `ollama pull MODEL`, or
    /// loaded in the model server by hand (it has no download).
    ModelMissing {
        model: String,
        #[serde(default)]
        server: ModelServer,
    },
    /// Not answering (not running, wrong URL, or not the kind of server configured).
    NotRunning { detail: String },
    /// Answering, and loading the model (llama.cpp's server answers 503 "Loading
    /// model" until it is ready): no call until it is done, no note charged.
    Loading { detail: String },
    /// Answering, but refusing inkling's API key, or wanting one and given none (found
    /// on `/models`, or on llama.cpp's `/props` where `/models` is open to anyone): no
    /// call until it takes the key, no note charged.
    KeyRefused { detail: String },
}

impl ProviderHealth {
    pub fn is_ready(&self) -> bool {
        matches!(self, ProviderHealth::Ready)
    }

    /// The server answers but cannot take a call yet (the model missing or loading,
    /// the key refused): the worker makes no call until the monitor says ready.
    pub fn holds_calls(&self) -> bool {
        matches!(
            self,
            ProviderHealth::ModelMissing { .. }
                | ProviderHealth::Loading { .. }
                | ProviderHealth::KeyRefused { .. }
        )
    }
}

/// The kind of model server inkling speaks to (`ai.provider`): it decides the fix a
/// person is told for a missing model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelServer {
    /// Ollama: inkling can download the model (`ollama pull`).
    #[default]
    Ollama,
    /// An OpenAI-compatible server (llama.cpp, LM Studio, vLLM, Jan): the model is
    /// loaded there, by its own means.
    #[serde(rename = "openai")]
    OpenAiCompatible,
}
