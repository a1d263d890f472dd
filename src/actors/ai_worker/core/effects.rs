//! What the core asks the actor to do ([`Effect`]), and the outcomes of the
//! repository writes that come back to it (a save, a mark), as plain data.

use chrono::{DateTime, Utc};

use super::SlowNote;
use crate::ai::ask::AskEnd;
use crate::ai::{CallPlan, ChatPlan, EmbedPlan, FailureReason, LoadPlan};
use crate::api::worker::ModelUse;
use crate::domain::{Enrichment, Note};
use crate::storage::NoteVector;

/// What the actor does for the core. Each one that needs an answer names the method
/// the answer goes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Replace the one wake-up timer: cancel the pending one, and set a new one for
    /// `Some(at)` (answer: [`WorkerCore::woke`]).
    Wake(Option<DateTime<Utc>>),
    /// Read the bodies of `ids`, still pending and active; `note_id`, the first, is
    /// the job about to run (answer: [`WorkerCore::bodies_read`]).
    ReadBodies { note_id: String, ids: Vec<String> },
    /// Read what the prompt needs besides the note: the user's most used tags; with
    /// `neighbours`, the note's nearest neighbours (their tags); with `read_context`,
    /// the model's own context from the provider (answer: [`WorkerCore::prepared`]).
    PrepareCall {
        note_id: String,
        read_context: bool,
        neighbours: bool,
    },
    /// Ask the provider for the vector of the note about to be enriched, whose
    /// neighbours its prompt needs (answer: [`WorkerCore::embedded_for_prompt`]).
    EmbedForPrompt { note_id: String, plan: EmbedPlan },
    /// Ask the provider about one note, as planned (answer: [`WorkerCore::replied`]).
    CallProvider { note_id: String, plan: CallPlan },
    /// Ask the provider for the model's own context (answer:
    /// [`WorkerCore::context_read`]).
    ReadModelContext,
    /// Load the model, as planned (answer: [`WorkerCore::model_loaded`]).
    LoadModel(LoadPlan),
    /// A call ran out of time: ask the health monitor now whether Ollama is up (answer:
    /// [`WorkerCore::timeout_checked`]).
    CheckHealth { note_id: String, error: String },
    /// Store a slow note's timeout: its count, when it runs next, the error; its
    /// attempts stay (answer: [`WorkerCore::write_done`]).
    StoreSlowTimeout {
        note_id: String,
        next_run_at: DateTime<Utc>,
        slow_timeouts: u32,
        last_error: String,
    },
    /// A stretch of the model's time ended: what it went into (the usage log).
    CountModelTime { usage: ModelUse, ms: u64 },
    /// The model is there: notes that failed only because it was missing (data from
    /// before that was the provider's state) go back to pending (answer:
    /// [`WorkerCore::enqueued`]).
    RequeueModelMissingFailures,
    /// Save an answer: the note becomes done and its job row goes (answer:
    /// [`WorkerCore::saved`]).
    Save {
        save: PendingSave,
        enrichment: Enrichment,
    },
    /// Store when a job parked on an outage runs next; its attempts stay (answer:
    /// [`WorkerCore::write_done`]).
    StoreNextRun {
        note_id: String,
        at: DateTime<Utc>,
        last_error: String,
        ends_call: bool,
    },
    /// Count a failed attempt and store when the job runs next (answer:
    /// [`WorkerCore::write_done`]).
    StoreAttempt {
        note_id: String,
        next_run_at: DateTime<Utc>,
        last_error: String,
        ends_call: bool,
    },
    /// Mark the note failed; its job row goes (answer: [`WorkerCore::marked_failed`]).
    MarkFailed { failure: Failure, ends_call: bool },
    /// Tell the health monitor the provider looks down.
    SuspectDown,
    /// A call found no server: ask the health monitor now, since it may be back
    /// already (answer: [`WorkerCore::looked`]).
    LookNow,
    /// A note was enriched and its answer kept: say so (the usage log). The repository
    /// announces the note as saved, and the counts, from the write itself.
    AnnounceEnriched { latency_ms: u64 },
    /// A note was marked failed: say so (`JobFailed`, with its reason). The repository
    /// announces the note and the new counts itself.
    AnnounceFailed { failure: Failure },
    /// Read the next notes to embed with `model`, newest first, leaving out `skip`;
    /// with `only`, among those notes alone; else the next slice of the walk over
    /// every note, from below `before` (answer: [`WorkerCore::embedding_backlog_read`]).
    ReadEmbeddingBacklog {
        model: String,
        limit: usize,
        skip: Vec<String>,
        only: Option<Vec<String>>,
        before: Option<String>,
    },
    /// Ask the provider for the vectors of the plan's texts (answer:
    /// [`WorkerCore::embedded`]).
    Embed(EmbedPlan),
    /// Store vectors, each for the body it was made from; nothing waits for it.
    SaveVectors {
        model: String,
        vectors: Vec<NoteVector>,
    },
    /// Stream the answer to question `id`, as planned, down its channel (answer:
    /// [`WorkerCore::ask_ended`]), after how many of its notes the prompt gives the
    /// model (`given`, the first ones): a citation of any other is taken out.
    StartAsk {
        id: u64,
        plan: ChatPlan,
        given: usize,
    },
    /// Question `id` is over: its stream, if any, is dropped (which stops the model),
    /// and `end` is the last thing sent down its channel.
    EndAsk { id: u64, end: AskEnd },
    /// A note timed out [`SLOW_AFTER_TIMEOUTS`] times or more while Ollama was up: say
    /// so (the live page marks it, with what to do).
    AnnounceSlow(SlowNote),
}

/// A note that ran out of attempts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub note_id: String,
    /// Schema or other: an outage never fails a note.
    pub reason: FailureReason,
    pub attempts: u32,
    /// The note's `ai_error`: "reason: what went wrong".
    pub error: String,
}

/// An answer on its way to the database, and what the core needs when the save is
/// answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSave {
    pub note_id: String,
    /// The body the answer is about: a note edited since keeps its new job instead.
    pub body: String,
    /// The job's attempts when it left the queue, for putting it back.
    pub attempts: u32,
    pub latency_ms: u64,
    /// The model's time the call took (the worker's clock), counted when the save ends.
    pub model_ms: u64,
    /// Saved beside the next call (the usual case) rather than before it.
    pub beside_next_call: bool,
}

/// How a save of an answer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveOutcome {
    /// Saved: the note as it is now.
    Saved(Box<Note>),
    /// The note was deleted meanwhile: nothing to save to, and the disk is fine.
    NoteGone,
    /// The note was edited since the AI read it: the answer is for a body it no longer
    /// has, and its new job (queued by the edit) stands.
    Stale,
    /// The disk is full, read-only or failing: every save would fail the same way.
    DiskTrouble(String),
    /// Refused for another reason (a constraint, a bug): this note's own problem.
    Refused(String),
    /// The repository did not answer (the service is stopping).
    RepositoryGone,
}

/// How marking a note failed ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkOutcome {
    /// Marked: the note as it is now.
    Marked(Box<Note>),
    /// Deleted, trashed or requeued meanwhile: nothing to mark.
    NoteGone,
    /// Not written: the note is still pending in the database.
    Refused(String),
    RepositoryGone,
}
