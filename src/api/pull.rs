//! A model download's progress: the NDJSON lines of `POST /api/provider/pull` and the
//! live `model_pull` event. The model-pull actor makes them; the hub carries them as a
//! notification (`crate::events` makes this type a message).

use serde::{Deserialize, Serialize};

/// How a model download (`inkling pull-model`, the page's Download button) is going.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelPullProgress {
    pub model: String,
    #[serde(flatten)]
    pub state: PullState,
}

/// A model download's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum PullState {
    /// Under way: Ollama's words for the step, and bytes of its part when it has a size.
    Running {
        status: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        completed: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
    },
    /// Installed: the work starts.
    Done,
    /// Stopped: what went wrong.
    Failed { error: String },
}

impl PullState {
    pub fn is_over(&self) -> bool {
        !matches!(self, PullState::Running { .. })
    }
}
