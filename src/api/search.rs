//! `GET /api/search`: the hybrid search's answer. Its hits (each saying whether its
//! words, its meaning or both found it), and, when the meaning could not be used, why,
//! as one quiet line a person reads (docs/DESIGN.md, "Hybrid search").

use serde::{Deserialize, Serialize};

use super::notes::SearchHitView;

/// What found a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// Its words (the keyword search) alone.
    Words,
    /// Its meaning alone: it has not every word; its snippet is the body's start.
    Meaning,
    /// Both.
    Both,
}

/// One hit of a hybrid search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HybridHitView {
    #[serde(flatten)]
    pub hit: SearchHitView,
    pub found_by: FoundBy,
}

/// Why a search found by words only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum KeywordOnly {
    /// No embedding model is configured.
    Off,
    /// The model server is not answering (or not ready: loading, refusing the key,
    /// its port held by another user).
    ProviderDown,
    /// The embedding model is not installed.
    ModelMissing { model: String },
    /// The server makes no embeddings.
    NotServed,
    /// Notes are still without their vectors (after an upgrade, a change of model, an
    /// embedding call that failed and waits).
    Indexing,
    /// The query's embedding did not come back in time (a busy or hung server).
    TimedOut,
    /// The query's embedding call failed.
    Failed,
    /// A search of the trash: vectors are kept for notes out of it only.
    Trash,
}

impl KeywordOnly {
    /// The quiet line under the search, in plain words with what to do.
    pub fn line(&self) -> String {
        let why = match self {
            KeywordOnly::Off => "no embedding model is configured".to_string(),
            KeywordOnly::ProviderDown => {
                "the model server is not answering; meaning comes back with it".to_string()
            }
            KeywordOnly::ModelMissing { model } => format!(
                "the embedding model {model} is not installed (`inkling status` says how to get it)"
            ),
            KeywordOnly::NotServed => {
                "this model server makes no embeddings (start llama-server with --embeddings)"
                    .to_string()
            }
            KeywordOnly::Indexing => {
                "notes are still being read for their meaning; try again in a while".to_string()
            }
            KeywordOnly::TimedOut => {
                "the model server took too long (it may be busy with a note); try again".to_string()
            }
            KeywordOnly::Failed => {
                "the model server could not read the search; try again".to_string()
            }
            KeywordOnly::Trash => "the trash is searched by its words".to_string(),
        };
        format!("Found by words only: {why}.")
    }
}

/// The quiet line and its reason, as the answer carries them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeywordOnlyLine {
    #[serde(flatten)]
    pub why: KeywordOnly,
    pub line: String,
}

impl From<KeywordOnly> for KeywordOnlyLine {
    fn from(why: KeywordOnly) -> Self {
        KeywordOnlyLine {
            line: why.line(),
            why,
        }
    }
}

/// `GET /api/search`: the hits, best first, and `keyword_only` when the meaning could
/// not be used (absent when it was).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchAnswer {
    pub hits: Vec<HybridHitView>,
    #[serde(default)]
    pub keyword_only: Option<KeywordOnlyLine>,
}

#[cfg(test)]
mod tests;
