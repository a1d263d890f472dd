//! What `GET /api/status` answers, as one type. The route builds it and the CLI reads
//! it, so a renamed field or state fails to compile instead of printing "idle".
//!
//! `WorkerStatus` is the worker's to produce; its type is in [`super::worker`], beside
//! this one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::notes::NoteCounts;
pub use super::provider::{ModelServer, ProviderHealth};
/// Named here too, so that readers of the status (the CLI) import only `crate::api`.
pub use super::worker::{SlowNote, WorkerState, WorkerStatus};
use crate::words::Locale;

/// One actor's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorCounters {
    pub received: u64,
    pub handled: u64,
    /// Received and not yet handled, the message in hand included.
    pub waiting: u64,
    pub busy_us: u64,
    pub slowest_us: u64,
}

/// The sizes the service holds requests to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Largest note body, in bytes (`http.max_body_bytes`).
    pub body_bytes: usize,
    /// Largest request body, in bytes: room for a note of `body_bytes` with JSON's
    /// escaping (`crate::api::requests::body_limit`).
    pub request_bytes: usize,
    /// Longest tag, in characters.
    pub tag_chars: usize,
    /// Most tags a person may set on one note.
    pub tags_per_note: usize,
}

/// Whether the embedding model's vectors tell the notes apart, judged from the cosine
/// similarities between the newest notes' vectors (a sample: `crate::storage::spread`).
/// A model whose vectors are all about as similar as each other makes every note
/// "near" every other: then no neighbour's tags go into a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum VectorSpread {
    /// Fewer notes with vectors than a judgement needs (`notes` of them): no
    /// neighbours' tags yet.
    TooFewNotes { notes: u32 },
    /// The similarities spread: a really near note stands out from the `median`.
    /// `spread` is the distance between their 10th and 90th percentiles.
    TellsNotesApart {
        notes: u32,
        median: f32,
        spread: f32,
    },
    /// The similarities hardly spread (`spread` below the least that tells notes apart):
    /// the model's vectors say nothing about which notes are alike.
    Degenerate {
        notes: u32,
        median: f32,
        spread: f32,
    },
}

// The figures are finite (`crate::storage::spread::judge` makes none that is not), so
// equality is total.
impl Eq for VectorSpread {}

impl VectorSpread {
    /// One line for a person (`inkling status`).
    pub fn words(&self) -> String {
        match self {
            VectorSpread::TooFewNotes { notes } => format!(
                "too few notes with vectors to judge the embedding model ({notes}); \
                 no neighbours' tags are offered yet"
            ),
            VectorSpread::TellsNotesApart {
                notes,
                median,
                spread,
            } => format!(
                "the embedding model tells notes apart (similarities spread {spread:.2} \
                 around {median:.2}, over {notes} notes)"
            ),
            VectorSpread::Degenerate {
                notes,
                median,
                spread,
            } => format!(
                "the embedding model does not tell notes apart: every note is about as \
                 similar to every other (spread {spread:.3} around {median:.2}, over {notes} \
                 notes), so no neighbours' tags are offered and its related notes mean \
                 little; use a model made for embeddings"
            ),
        }
    }
}

/// Whether notes expire (docs/DESIGN.md, "Expiry").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpiryStatus {
    /// `ask` (not answered yet: off), `on` or `off`.
    pub choice: crate::expiry::ExpiryChoice,
    /// Ask the person now: not answered yet, and a month of use behind them.
    pub ask: bool,
}

/// The service as a whole, right now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceStatus {
    /// The running binary's version.
    pub version: String,
    /// The language the service writes in.
    pub locale: Locale,
    /// A note older than this many days that was never kept is expired (when expiry is on).
    pub expiry_days: u32,
    /// Whether notes expire, and whether the page should ask now.
    #[serde(default)]
    pub expiry: ExpiryStatus,
    /// `worker.max_attempts`: a failed note used this many tries.
    #[serde(default)]
    pub max_attempts: u32,
    /// What the service refuses past, so a client can say so before it sends.
    #[serde(default)]
    pub limits: Limits,
    /// Active notes pending, failed and expired.
    pub counts: NoteCounts,
    /// The provider's health; `None` until the first check has answered.
    pub provider: Option<ProviderHealth>,
    /// The kind of model server configured (`ai.provider`), and the model: what a
    /// banner names, and the fix it gives.
    #[serde(default)]
    pub model_server: ModelServer,
    #[serde(default)]
    pub model: String,
    /// The model that makes the notes' vectors: a server's embedding model, or
    /// [`crate::api::worker::BUILTIN_EMBEDDER`]; `None`: no vectors at all.
    #[serde(default)]
    pub embedding_model: Option<String>,
    /// What the AI worker is doing.
    pub worker: WorkerStatus,
    /// Whether the notes' vectors tell them apart; `None` when no note has a vector.
    #[serde(default)]
    pub vectors: Option<VectorSpread>,
    /// Per actor: messages received, handled and waiting, time in handlers.
    pub actors: BTreeMap<String, ActorCounters>,
}

impl ServiceStatus {
    /// What the person gets from the AI right now, in plain words (`inkling status`'s
    /// "AI:" line): from the chat model, titles, tags, summaries and answers; from the
    /// embedding model (a server's, or the built-in embedder with no server at all),
    /// related notes and search by meaning; and what waits, with its fix.
    pub fn what_you_get(&self) -> String {
        use crate::api::worker::{EmbeddingsState, BUILTIN_EMBEDDER};
        let chat_ready = matches!(self.provider, Some(ProviderHealth::Ready));
        let builtin = self.embedding_model.as_deref() == Some(BUILTIN_EMBEDDER);
        let meaning = match (&self.embedding_model, &self.worker.embeddings) {
            (None, _) => None,
            (Some(_), EmbeddingsState::ModelMissing { .. }) if builtin => {
                return format!(
                    "{}; related notes and search by meaning once the built-in embedder's \
                     model is downloaded: `inkling pull-model --embedder`",
                    chat_words(chat_ready)
                )
            }
            (Some(_), EmbeddingsState::ModelMissing { .. } | EmbeddingsState::NotServed { .. }) => {
                None
            }
            (Some(_), _) if builtin => Some(
                "related notes and search by meaning from the built-in embedder (no model \
                 server needed)"
                    .to_string(),
            ),
            (Some(model), _) => Some(format!(
                "related notes and search by meaning from {model}, while the model server runs"
            )),
        };
        match meaning {
            Some(meaning) => format!("{meaning}; {}", chat_words(chat_ready)),
            None => format!(
                "{}; no related notes or search by meaning (set an embedding model, or turn on \
                 ai.builtin_embedder)",
                chat_words(chat_ready)
            ),
        }
    }
}

fn chat_words(ready: bool) -> &'static str {
    if ready {
        "titles, tags, summaries and answers from the chat model"
    } else {
        "titles, tags, summaries and answers wait for the chat model (see the line above)"
    }
}

#[cfg(test)]
mod tests;
