//! The repository's messages: one a store operation, each answering what the store
//! answers (`StoreResult`). What each does, and the SQL, is the store's
//! (`crate::storage::Store`).

use actix::Message;
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;

use crate::api::changes::NoteChange;
use crate::domain::{AiStatus, Enrichment, ListFilter, Note, NoteBody, NoteEdit};
use crate::reminders::due::Pending;
use crate::reminders::ReminderChange;
use crate::storage::{
    Changed, Compacted, Edited, EmbeddingBacklog, Imported, Job, NoteCounts, NoteVector, Related,
    ReviewFacts, SearchHit, SearchQuery, StoreResult, TagCount, TagRename, TagRenamed,
};

/// Stores a new pending note with its job row. Durable when the reply arrives.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct CaptureNote {
    pub body: NoteBody,
    pub now: DateTime<Utc>,
}

/// One note by id, trashed or not.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct GetNote {
    pub id: String,
}

/// The ids that begin with `prefix`, in order, at most `most` (the CLI's short ids).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct FindIdsByPrefix {
    pub prefix: String,
    pub most: usize,
}

/// Each id cut to the shortest prefix that names it alone today.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct ShortenIds {
    pub ids: Vec<String>,
}

/// A page of notes matching a filter, newest first.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Note>>")]
pub struct ListNotes {
    pub filter: ListFilter,
    pub now: DateTime<Utc>,
}

/// Notes matching a search (and a filter's status, tag, trash, expired), best first.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<SearchHit>>")]
pub struct SearchNotes {
    pub query: SearchQuery,
    pub filter: ListFilter,
    pub now: DateTime<Utc>,
}

/// The semantic half of a hybrid search: the notes nearest to a query's vector that
/// pass the filter, best first (`Store::search_by_meaning`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<(Note, f32)>>")]
pub struct SearchByMeaning {
    pub model: String,
    pub vector: Vec<f32>,
    pub filter: ListFilter,
    pub now: DateTime<Utc>,
    pub k: usize,
    pub floor: f32,
}

/// Each of a question's words searched alone (and each held to the filter), in one
/// read of the store: each word's hits, best first, in the words' order
/// (`Store::search_each`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Vec<SearchHit>>>")]
pub struct SearchEachWord {
    pub queries: Vec<SearchQuery>,
    pub filter: ListFilter,
    pub now: DateTime<Utc>,
}

/// How many active notes failed.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct CountFailed;

/// Pending, failed and expired counts together.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<NoteCounts>")]
pub struct GetCounts {
    pub now: DateTime<Utc>,
}

/// The person's answer to whether notes expire (`Store::choose_expiry`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct ChooseExpiry {
    pub on: bool,
    pub now: DateTime<Utc>,
}

/// Whether the page should ask now whether notes expire (`crate::expiry::should_ask`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<bool>")]
pub struct AskAboutExpiry {
    pub now: DateTime<Utc>,
}

/// Every failed active note back to pending with a fresh job row, in one transaction
/// (docs/DESIGN.md, "Retry-all"). Replies with their ids. The write at the heart of
/// the retry-all use case (`crate::inbox`), which the tray and the page trigger.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct RetryAllFailed {
    pub now: DateTime<Utc>,
}

/// The model is there: notes that failed only because it was missing go back to
/// pending; replies with their ids.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct RequeueModelMissingFailures {
    pub now: DateTime<Utc>,
}

/// A slow note's timeout (Ollama up): its count and next run; `attempts` left alone.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct RecordSlowTimeout {
    pub note_id: String,
    pub next_run_at: DateTime<Utc>,
    pub slow_timeouts: u32,
    pub last_error: String,
}

/// Parks a job after an unreachable/timeout failure; `attempts` is left alone.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct SetNextRunAt {
    pub note_id: String,
    pub at: DateTime<Utc>,
    pub last_error: String,
}

/// Counts a schema/other failure and schedules the next attempt; replies with the count.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u32>")]
pub struct IncrementJobAttempt {
    pub note_id: String,
    pub next_run_at: DateTime<Utc>,
    pub last_error: String,
}

/// Marks a note failed and deletes its job row, in one transaction; replies with the
/// note.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct MarkAiFailed {
    pub note_id: String,
    pub error: String,
    pub now: DateTime<Utc>,
}

/// Saves the AI's output, marks the note done and deletes its job row; replies with
/// the note.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct SaveEnrichment {
    pub note_id: String,
    /// The body the AI was asked about: a note edited since is not touched.
    pub body_read: String,
    pub enrichment: Enrichment,
    pub now: DateTime<Utc>,
}

/// Edits a note's body, title or tags (`Store::edit`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Edited>")]
pub struct EditNote {
    pub id: String,
    pub edit: NoteEdit,
    pub now: DateTime<Utc>,
}

/// The tags of active notes with their counts, most used first (`limit` of them).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<TagCount>>")]
pub struct ListTags {
    pub limit: Option<usize>,
}

/// Renames a tag on every note, merging it into `to` when that exists. Replies once the
/// rename is checked and recorded (`NoSuchTag`, `Conflict` otherwise, nothing changed);
/// `done` then hears how it ended.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct RenameTag {
    pub from: String,
    pub to: String,
    pub now: DateTime<Utc>,
    pub done: oneshot::Sender<StoreResult<TagRenamed>>,
}

/// The next slice of a rename under way (the actor sends it to itself).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct ContinueTagRename {
    pub(super) rename: TagRename,
    pub(super) now: DateTime<Utc>,
    /// Who waits for the end; `None` for a rename resumed after a restart.
    pub(super) done: Option<oneshot::Sender<StoreResult<TagRenamed>>>,
}

/// The next slice of the vector index's build at start (the actor sends it to itself:
/// whatever arrived meanwhile goes between two slices).
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct IndexVectors {
    /// When the build began, for the log line that says it is done.
    pub(super) began: std::time::Instant,
}

/// Brings checked notes in (`Store::import`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Imported>")]
pub struct ImportNotes {
    pub notes: Vec<Note>,
    pub now: DateTime<Utc>,
}

/// The bodies of those notes that are still pending and active.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<(String, String)>>")]
pub struct GetPendingBodies {
    pub ids: Vec<String>,
}

/// The job row of one active note, if it has one.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Option<Job>>")]
pub struct GetJob {
    pub note_id: String,
}

/// Moves a note to the trash.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Changed>")]
pub struct TrashNote {
    pub id: String,
    pub now: DateTime<Utc>,
}

/// Takes a note out of the trash.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Changed>")]
pub struct RestoreNote {
    pub id: String,
    pub now: DateTime<Utc>,
}

/// Moves every expired note to the trash; replies with their ids.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct TrashExpiredNotes {
    pub now: DateTime<Utc>,
}

/// Keeps every expired note; replies with their ids.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<String>>")]
pub struct KeepExpiredNotes {
    pub now: DateTime<Utc>,
}

/// Keeps a note past expiry.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct KeepNote {
    pub id: String,
    pub now: DateTime<Utc>,
}

/// Deletes for good the notes trashed before `older_than`; replies with how many.
/// `now` dates the counts announced after it.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct PurgeTrash {
    pub older_than: DateTime<Utc>,
    pub now: DateTime<Utc>,
}

/// Asks for a note's AI again (`Store::request_enrichment`); replies with the note,
/// now pending, and what it was.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<(Note, AiStatus)>")]
pub struct RequestEnrichment {
    pub id: String,
    pub now: DateTime<Utc>,
}

/// Deletes a note in the trash for good (its text overwritten, the WAL emptied).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct DeleteForever {
    pub id: String,
    pub now: DateTime<Utc>,
}

/// Deletes every note in the trash for good; replies with how many.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct EmptyTrash {
    pub now: DateTime<Utc>,
}

/// Folds the WAL back into the database file. Sent last at shutdown: the mailbox is
/// FIFO, so its reply also means every message sent before it was handled.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct Checkpoint;

/// Notes still to embed with `model`, newest first (the worker's next batch).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<EmbeddingBacklog>")]
pub struct GetEmbeddingBacklog {
    pub model: String,
    pub limit: usize,
    /// Notes whose vectors were refused this run.
    pub skip: Vec<String>,
    /// Among these notes alone (those changed since a read of every note).
    pub only: Option<Vec<String>>,
    /// Else one slice of the walk over every note, from below this id (`None`: from
    /// the newest).
    pub before: Option<String>,
}

/// Stores the vectors of notes that still have the body each was made from.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<usize>")]
pub struct SaveVectors {
    pub model: String,
    pub vectors: Vec<NoteVector>,
    pub now: DateTime<Utc>,
}

/// A note's nearest notes (`crate::storage::vectors`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Related>")]
pub struct GetRelated {
    pub id: String,
    pub limit: usize,
    /// The least similarity of a related note, for the model of the note's vector
    /// (`crate::search::floors::related_floor`: cosines are not comparable between
    /// models).
    pub floor: fn(&str) -> f32,
}

/// Up to `limit` changes of the log after `since`, oldest first (`GET /api/changes`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<NoteChange>>")]
pub struct GetChanges {
    pub since: i64,
    pub limit: usize,
}

/// One step of the change log's compaction (`Store::compact_changes_step`): the older
/// changes of the notes named by the next `step` numbers of the log, of those written
/// before `before`, go. One step a message, so the captures that come meanwhile are
/// handled between two steps.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Compacted>")]
pub struct CompactChanges {
    pub step: i64,
    pub before: DateTime<Utc>,
}

/// Whether the vectors of the embedding model in use tell notes apart
/// (`crate::storage::spread`; `None` when no note has a vector).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Option<crate::api::status::VectorSpread>>")]
pub struct GetVectorSpread;

/// Changes a note's reminder (`Store::set_reminder`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct SetReminder {
    pub id: String,
    pub change: ReminderChange,
    pub now: DateTime<Utc>,
}

/// The first `limit` reminders not done up to a time, earliest first
/// (`Store::reminders_until`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Note>>")]
pub struct ListReminders {
    pub until: DateTime<Utc>,
    pub limit: u32,
}

/// Writes the search entries of the notes waiting for them (`Store::index_pending`):
/// sent by the `SearchIndexer` once captures pause; replies how many there were.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct IndexPending;

/// How many reminders not done there are up to a time (`Store::due_count`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<u64>")]
pub struct CountDue {
    pub until: DateTime<Utc>,
}

/// The reminders not yet shown for their time, and the next to come
/// (`Store::pending_reminders`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Pending>>")]
pub struct GetPendingReminders {
    pub now: DateTime<Utc>,
}

/// Keeps which time each reminder was shown for (`Store::mark_reminders_shown`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct MarkRemindersShown {
    pub shown: Vec<(String, DateTime<Utc>)>,
}

/// The daily review's facts (`Store::review_facts`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<ReviewFacts>")]
pub struct GetReviewFacts {
    pub due_until: DateTime<Utc>,
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// Keeps the day the daily review was shown (`Store::mark_review_shown`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<()>")]
pub struct MarkReviewShown {
    pub day: String,
}

/// Stores a recording as a new pending voice note (its file fsynced first). Durable
/// when the reply arrives.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct CaptureVoice {
    pub audio: Vec<u8>,
    pub format: crate::api::voice::AudioFormat,
    pub now: DateTime<Utc>,
}

/// Every voice note waiting for its words, earliest first (the voice notes' worker's
/// queue at start).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Job>>")]
pub struct GetVoiceJobs;

/// The recording of a voice note still waiting for its words; `None` when it no
/// longer waits.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Option<crate::storage::Recording>>")]
pub struct GetRecording {
    pub note_id: String,
}

/// A voice note's words saved as its body; its job becomes an enrichment job, due now.
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct SaveTranscript {
    pub note_id: String,
    pub text: String,
    /// `transcription.keep_audio`: false removes the recording once the words are in.
    pub keep_audio: bool,
    pub now: DateTime<Utc>,
}

/// The notes captured in a span (yesterday) that nobody opened
/// (`Store::unopened_between`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Vec<Note>>")]
pub struct ListUnopened {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// Keeps that a person opened a note (`Store::mark_opened`).
#[derive(Debug, Message)]
#[rtype(result = "StoreResult<Note>")]
pub struct MarkOpened {
    pub id: String,
    pub now: DateTime<Utc>,
}
