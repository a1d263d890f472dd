//! `Store`: every repository operation as plain, synchronous rusqlite code.
//!
//! The `RepositoryActor` owns the one `Store` (the only writing connection) and only
//! wires messages to these methods; keeping the SQL here makes it testable without an
//! actor system. Every method takes `now` from the caller, so time is injectable.
//!
//! Invariants kept here (docs/DESIGN.md, "Data"):
//! - a `pending` note has exactly one `pending_jobs` row; `done`/`failed` notes have none
//!   (every status change and its job row change share one transaction);
//! - trashed notes are never due, counted, listed as active or retried. A trashed
//!   pending note keeps its job row, so restoring it resumes the work.

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, Connection, OptionalExtension, Row, TransactionBehavior};

use super::migrations::{self, MigrationError, MIGRATIONS};
use super::search::{self, SearchQuery, SnippetPart};
use crate::domain::{
    timestamp, AiStatus, Enrichment, ListFilter, Note, NoteBody, NoteEdit, WaitReason,
};
use crate::tags::Vocabulary;

/// Why a repository operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no note with id {0}")]
    NotFound(String),
    #[error("no note has the tag \"{0}\"")]
    NoSuchTag(String),
    /// `SQLITE_FULL`: the disk (or `max_page_count`) is full. Nothing was written.
    #[error("the database is full; free some disk space ({0})")]
    Full(rusqlite::Error),
    /// `SQLITE_READONLY`: the database cannot be written (a read-only file system, or
    /// permissions). Nothing was written.
    #[error(
        "the database is read-only; check the data directory's file system and permissions ({0})"
    )]
    ReadOnly(rusqlite::Error),
    /// `SQLITE_IOERR`: the disk failed a read or a write. Nothing was written.
    #[error("the disk failed a read or write; nothing was saved ({0})")]
    DiskIo(rusqlite::Error),
    #[error(transparent)]
    Migration(#[from] MigrationError),
    #[error("the database cannot be opened: {0}")]
    Unavailable(String),
    /// The database file was deleted or replaced under the running service (its data
    /// dir removed, say): a write would go to a file nobody will ever open again.
    #[error(
        "the database file {0} was deleted or replaced while inkling was running; nothing was saved. Restart inkling"
    )]
    Gone(String),
    /// The note is not where the operation needs it (active for a delete for good).
    #[error("{0}")]
    Conflict(String),
    /// An answer of the AI for a body the note no longer has (edited meanwhile):
    /// not saved, and the note's new job stands.
    #[error("note {0} was edited while the AI read it; its answer is not saved")]
    Stale(String),
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DiskFull) => StoreError::Full(e),
            Some(rusqlite::ErrorCode::ReadOnly) => StoreError::ReadOnly(e),
            Some(rusqlite::ErrorCode::SystemIoFailure) => StoreError::DiskIo(e),
            _ => StoreError::Sqlite(e),
        }
    }
}

impl StoreError {
    /// The disk, not the data, is the trouble: full, read-only or failing. Every write
    /// would fail the same way until it is fixed.
    pub fn is_disk_trouble(&self) -> bool {
        matches!(
            self,
            StoreError::Full(_)
                | StoreError::ReadOnly(_)
                | StoreError::DiskIo(_)
                | StoreError::Gone(_)
        )
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A row of the durable AI queue, for an active (not trashed) pending note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub note_id: String,
    pub attempts: u32,
    pub next_run_at: DateTime<Utc>,
    pub wait_reason: Option<WaitReason>,
    /// Calls that ran out of time while Ollama was up.
    pub slow_timeouts: u32,
}

/// A note after an operation that may have found nothing to do (trashing a note
/// already in the trash): `changed` says whether anything was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub note: Note,
    pub changed: bool,
}

/// A note after an edit, with what it was before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub note: Note,
    /// Its AI status before the edit.
    pub was: AiStatus,
    /// The body changed: the note is pending again with a fresh job.
    pub body_changed: bool,
    /// Anything was written.
    pub changed: bool,
}

/// What an import stored (`Store::import`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imported {
    /// The notes stored, with their ids.
    pub notes: Vec<Note>,
    /// Notes not stored because a note with their id exists.
    pub skipped: u64,
}

/// A tag and how many active notes have it (`GET /api/tags`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagCount {
    pub tag: String,
    pub count: u64,
}

/// What a tag rename did (`POST /api/tags/{tag}/rename`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagRenamed {
    /// The tag's name now.
    pub tag: String,
    /// How many notes changed.
    pub notes: u64,
    /// The new name was in use already: the two tags are one now.
    pub merged: bool,
}

/// The counts the status route and the inbox banners show.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NoteCounts {
    pub pending: u64,
    pub failed: u64,
    pub expired: u64,
}

/// Ids of failed, active notes, most recently updated first.
pub const FIND_FAILED_IDS_SQL: &str = "SELECT id FROM notes
     WHERE ai_status = 'failed' AND deleted_at IS NULL ORDER BY updated_at DESC";
/// `retry_all_failed`, first statement: every failed active note back to pending,
/// stamped with ?1; returns their ids.
pub const REQUEUE_FAILED_SQL: &str =
    "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?1
     WHERE ai_status = 'failed' AND deleted_at IS NULL RETURNING id";
/// `requeue_model_missing_failures`, first statement: as [`REQUEUE_FAILED_SQL`], only
/// for notes that failed because the model was missing (an error an older release
/// counted as the note's: "other: HTTP 404: model 'llama3.2' not found").
pub const REQUEUE_MODEL_MISSING_SQL: &str =
    "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?1
     WHERE ai_status = 'failed' AND deleted_at IS NULL
       AND ai_error LIKE 'other: HTTP 404: model %not found%' RETURNING id";
/// `retry_all_failed`, second statement: a fresh job row for each note the first one
/// stamped with ?1 (found through `notes_active_by_status`).
pub const INSERT_REQUEUED_JOBS_SQL: &str =
    "INSERT OR IGNORE INTO pending_jobs (note_id, attempts, next_run_at)
     SELECT id, 0, ?1 FROM notes
     WHERE ai_status = 'pending' AND deleted_at IS NULL AND updated_at = ?1";
/// Active notes with a status (?1).
pub const COUNT_WITH_STATUS_SQL: &str =
    "SELECT COUNT(*) FROM notes WHERE ai_status = ?1 AND deleted_at IS NULL";
/// Active notes created before ?1 and never kept.
pub const COUNT_EXPIRED_SQL: &str = "SELECT COUNT(*) FROM notes
     WHERE deleted_at IS NULL AND created_at < ?1 AND kept_at IS NULL";
/// Jobs of active notes due at ?1, earliest first.
pub const DUE_JOBS_SQL: &str =
    "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
     FROM pending_jobs j JOIN notes n ON n.id = j.note_id
     WHERE j.next_run_at <= ?1 AND n.deleted_at IS NULL
     ORDER BY j.next_run_at, j.note_id";
/// Every job of an active note, earliest first.
pub const ALL_JOBS_SQL: &str =
    "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
     FROM pending_jobs j JOIN notes n ON n.id = j.note_id
     WHERE n.deleted_at IS NULL
     ORDER BY j.next_run_at, j.note_id";

/// How many columns [`NOTE_COLUMNS`] has (a query may add its own after them).
const NOTE_COLUMN_COUNT: usize = 14;
const NOTE_COLUMNS: &str = "n.id, n.body, n.title, n.summary, n.tags, n.ai_status, n.ai_error, \
     n.created_at, n.updated_at, n.deleted_at, n.kept_at, n.title_set_by_user, n.tags_set_by_user, \
     n.ai_read_chars";

/// Matches ranked in the search index per result wanted (`Store::search`).
pub const SEARCH_CANDIDATES: u32 = 4;

/// One note found by a search, with the piece of its body that matched.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub note: Note,
    pub snippet: Vec<SnippetPart>,
}

/// The one connection that writes.
pub struct Store {
    conn: Connection,
    /// A note older than this that was never kept counts as expired.
    expiry: Duration,
    /// The database file and its identity (device, inode) when it was opened; `None`
    /// in memory. Checked before each write (see [`Store::check_file`]).
    file: Option<(std::path::PathBuf, FileIdentity)>,
}

/// Which file a path named when it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileIdentity {
    device: u64,
    inode: u64,
}

impl FileIdentity {
    fn of(path: &Path) -> std::io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Ok(FileIdentity {
                device: meta.dev(),
                inode: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            Ok(FileIdentity {
                device: 0,
                inode: 0,
            })
        }
    }
}

impl Store {
    /// Opens (creating if needed) the database at `path` and migrates it.
    pub fn open(path: &Path, expiry_days: u32) -> StoreResult<Self> {
        let conn = Connection::open(path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        let mut store = Self::with_connection(conn, expiry_days)?;
        let identity = FileIdentity::of(path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        store.file = Some((path.to_path_buf(), identity));
        Ok(store)
    }

    /// `PRAGMA quick_check` of the database at `path`, on a read-only connection of its
    /// own (nothing is written, not even a migration): `None` when it is sound, else
    /// what SQLite found (its first lines).
    pub fn damage(path: &Path) -> StoreResult<Option<String>> {
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        let mut stmt = conn.prepare("PRAGMA quick_check(5)")?;
        let found = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>());
        Ok(match found {
            Ok(lines) if lines == ["ok"] => None,
            Ok(lines) => Some(lines.join("; ")),
            // A file so damaged that SQLite cannot even read it.
            Err(e) => Some(e.to_string()),
        })
    }

    /// Refuses a write when the database file is no longer the one opened: SQLite
    /// would go on writing into the unlinked file, and every note "saved" there would
    /// be lost at the next start. One `stat` per write, a few microseconds.
    fn check_file(&self) -> StoreResult<()> {
        let Some((path, opened)) = &self.file else {
            return Ok(());
        };
        match FileIdentity::of(path) {
            Ok(now) if now == *opened => Ok(()),
            _ => Err(StoreError::Gone(path.display().to_string())),
        }
    }

    /// An in-memory database (tests, benchmarks).
    pub fn open_in_memory(expiry_days: u32) -> StoreResult<Self> {
        Self::with_connection(Connection::open_in_memory()?, expiry_days)
    }

    fn with_connection(mut conn: Connection, expiry_days: u32) -> StoreResult<Self> {
        // WAL: readers never block the writer, and a commit appends to the log instead
        // of rewriting pages. synchronous=FULL: with WAL, every commit fsyncs the log, so a
        // capture that returned 201 survives a power cut as well as kill -9; NORMAL would
        // only survive a process crash. The cost is one fsync per commit (see
        // docs/PERFORMANCE.md), affordable for a person typing notes.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", true)?;
        // What is deleted or rewritten is overwritten with zeros, freed pages included:
        // a note deleted for good must not survive in the free space of a page that an
        // earlier edit, trash or enrichment left behind (`Store::delete_forever`). The
        // pages it touches are written anyway; a freed page costs one more write.
        conn.pragma_update(None, "secure_delete", true)?;
        // Another process (a backup tool, the sqlite3 shell) may hold a lock briefly.
        conn.busy_timeout(Duration::from_secs(5))?;
        migrations::migrate(&mut conn, MIGRATIONS)?;
        Ok(Store {
            conn,
            expiry: Duration::from_secs(u64::from(expiry_days) * 24 * 60 * 60),
            file: None,
        })
    }

    /// Direct access for tests and diagnostics (`EXPLAIN QUERY PLAN`).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    fn expired_before(&self, now: DateTime<Utc>) -> String {
        let expiry = chrono::Duration::from_std(self.expiry).unwrap_or(chrono::Duration::MAX);
        timestamp(
            now.checked_sub_signed(expiry)
                .unwrap_or(DateTime::<Utc>::MIN_UTC),
        )
    }

    // ----- capture and reads -------------------------------------------------------

    /// Stores a new pending note and its job row in one transaction. Durable on return.
    pub fn capture(&mut self, body: &NoteBody, now: DateTime<Utc>) -> StoreResult<Note> {
        self.check_file()?;
        let id = uuid::Uuid::now_v7().to_string();
        let at = timestamp(now);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO notes (id, body, ai_status, created_at, updated_at)
             VALUES (?1, ?2, 'pending', ?3, ?3)",
            params![id, body.as_str(), at],
        )?;
        tx.execute(
            "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)",
            params![id, at],
        )?;
        tx.commit()?;
        Ok(Note {
            id,
            body: body.as_str().to_string(),
            title: None,
            summary: None,
            tags: Vec::new(),
            ai_status: AiStatus::Pending,
            ai_error: None,
            created_at: at.clone(),
            updated_at: at,
            deleted_at: None,
            kept_at: None,
            title_set_by_user: false,
            tags_set_by_user: false,
            ai_read_chars: None,
        })
    }

    /// One note, trashed or not.
    pub fn get(&self, id: &str) -> StoreResult<Note> {
        self.conn
            .query_row(
                &format!("SELECT {NOTE_COLUMNS} FROM notes n WHERE n.id = ?1"),
                [id],
                note_from_row,
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(id.to_string()))
    }

    /// Notes matching `filter`, newest first, one page.
    pub fn list(&self, filter: &ListFilter, now: DateTime<Utc>) -> StoreResult<Vec<Note>> {
        let (sql, args) = self.list_query(filter, now)?;
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let notes = stmt
            .query_map(params_from_iter(args), note_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(notes)
    }

    /// The SQL and arguments of [`Store::list`] (public for `EXPLAIN QUERY PLAN` tests).
    pub fn list_query(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<(String, Vec<Value>)> {
        let mut sql = format!("SELECT {NOTE_COLUMNS} FROM notes n");
        let mut args: Vec<Value> = Vec::new();
        self.push_filter(filter, now, &mut sql, &mut args);
        if let Some(before) = &filter.before {
            let cursor = self.get(before)?;
            sql.push_str(" AND (n.created_at, n.id) < (?, ?)");
            args.push(Value::Text(cursor.created_at));
            args.push(Value::Text(cursor.id));
        }
        sql.push_str(" ORDER BY n.created_at DESC, n.id DESC LIMIT ?");
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        Ok((sql, args))
    }

    /// Notes matching `query` (and `filter`'s status, tag, trash and expired; its
    /// cursor is not used: a search is one ranked page), best first, each with a
    /// snippet of its body (`storage/search.rs`).
    ///
    /// Ranking is the cost: BM25 is computed for every match, and joining every match
    /// to its note before sorting cost three times the bare FTS5 query
    /// (docs/PERFORMANCE.md). So the best [`SEARCH_CANDIDATES`] per page are ranked in
    /// the index alone, and only they are joined and filtered; should fewer than a page
    /// pass the filters (a search of the trash, of one status), the search is run again
    /// over every match, which gives the exact answer.
    pub fn search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<SearchHit>> {
        let limit = filter.effective_limit();
        let cap = limit.saturating_mul(SEARCH_CANDIDATES);
        let (mut notes, candidates) = self.run_search(query, filter, now, Some(cap))?;
        // Short of a page: exact already unless the cap cut matches off (with no hit
        // at all, the number of candidates is unknown; such a search is cheap again).
        let cut = candidates.is_none_or(|candidates| candidates >= u64::from(cap));
        if notes.len() < limit as usize && cut && query.index_expression().is_some() {
            notes = self.run_search(query, filter, now, None)?.0;
        }
        Ok(notes
            .into_iter()
            .map(|note| SearchHit {
                snippet: search::snippet(&note.body, &query.words),
                note,
            })
            .collect())
    }

    fn run_search(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> StoreResult<(Vec<Note>, Option<u64>)> {
        let (sql, args) = self.search_query(query, filter, now, candidates);
        let mut stmt = self.conn.prepare_cached(&sql)?;
        let rows = stmt
            .query_map(params_from_iter(args), |r| {
                Ok((note_from_row(r)?, r.get::<_, i64>(NOTE_COLUMN_COUNT)?))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let candidates = rows.first().map(|(_, n)| u64::try_from(*n).unwrap_or(0));
        Ok((rows.into_iter().map(|(note, _)| note).collect(), candidates))
    }

    /// The SQL and arguments of a search: the best `candidates` matches (all of them
    /// with `None`) ranked in the index, then joined to their notes and filtered
    /// (public for the benchmark and the query-plan test).
    pub fn search_query(
        &self,
        query: &SearchQuery,
        filter: &ListFilter,
        now: DateTime<Utc>,
        candidates: Option<u32>,
    ) -> (String, Vec<Value>) {
        let mut args: Vec<Value> = Vec::new();
        let indexed = query.index_expression();
        // The matches, from the index alone: BM25 with a title match weighing 10, a tag
        // 5, the body 1 (short words, with no trigram, are matched by LIKE and give no
        // rank: newest first).
        let mut hits = String::from(
            "SELECT rowid AS key, bm25(notes_search, 10.0, 5.0, 1.0) AS score FROM notes_search WHERE 1",
        );
        if let Some(expression) = &indexed {
            hits.push_str(" AND notes_search MATCH ?");
            args.push(Value::Text(expression.clone()));
        }
        for pattern in query.short_word_patterns() {
            hits.push_str(" AND (title LIKE ? ESCAPE '\\' OR tags LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\')");
            for _ in 0..3 {
                args.push(Value::Text(pattern.clone()));
            }
        }
        if let (Some(_), Some(candidates)) = (&indexed, candidates) {
            hits.push_str(" ORDER BY score, rowid DESC LIMIT ?");
            args.push(Value::Integer(i64::from(candidates)));
        }
        let mut sql = format!(
            "WITH hit AS MATERIALIZED ({hits}) \
             SELECT {NOTE_COLUMNS}, (SELECT COUNT(*) FROM hit) FROM hit \
             JOIN note_search_keys k ON k.key = hit.key JOIN notes n ON n.id = k.note_id"
        );
        self.push_filter(filter, now, &mut sql, &mut args);
        // Ties newest first.
        sql.push_str(if indexed.is_some() {
            " ORDER BY hit.score, n.created_at DESC, n.id DESC LIMIT ?"
        } else {
            " ORDER BY n.created_at DESC, n.id DESC LIMIT ?"
        });
        args.push(Value::Integer(i64::from(filter.effective_limit())));
        (sql, args)
    }

    /// Appends what a list and a search share to a query over `notes n`: the tag's
    /// join, then the trash, status and expiry conditions (the `WHERE` begins here).
    fn push_filter(
        &self,
        filter: &ListFilter,
        now: DateTime<Utc>,
        sql: &mut String,
        args: &mut Vec<Value>,
    ) {
        if let Some(tag) = &filter.tag {
            sql.push_str(" JOIN note_tags t ON t.note_id = n.id AND t.tag = ?");
            args.push(Value::Text(tag.clone()));
        }
        sql.push_str(if filter.trash {
            " WHERE n.deleted_at IS NOT NULL"
        } else {
            " WHERE n.deleted_at IS NULL"
        });
        if let Some(status) = filter.status {
            sql.push_str(" AND n.ai_status = ?");
            args.push(Value::Text(status.as_str().into()));
        }
        if filter.expired {
            sql.push_str(" AND n.created_at < ? AND n.kept_at IS NULL");
            args.push(Value::Text(self.expired_before(now)));
        }
    }

    /// `EXPLAIN QUERY PLAN` of a statement, one line per step (tests, diagnostics).
    pub fn query_plan(&self, sql: &str, args: &[Value]) -> StoreResult<Vec<String>> {
        let mut stmt = self.conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
        let steps = stmt
            .query_map(params_from_iter(args.iter()), |r| r.get::<_, String>(3))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(steps)
    }

    /// Ids of failed, active notes, most recently updated first.
    pub fn find_failed_ids(&self) -> StoreResult<Vec<String>> {
        let mut stmt = self.conn.prepare_cached(FIND_FAILED_IDS_SQL)?;
        let ids = stmt
            .query_map([], |r| r.get(0))?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }

    pub fn count_failed(&self) -> StoreResult<u64> {
        self.count_with_status(AiStatus::Failed)
    }

    pub fn count_pending(&self) -> StoreResult<u64> {
        self.count_with_status(AiStatus::Pending)
    }

    fn count_with_status(&self, status: AiStatus) -> StoreResult<u64> {
        let count: i64 = self
            .conn
            .prepare_cached(COUNT_WITH_STATUS_SQL)?
            .query_row([status.as_str()], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// Active notes older than `expiry.days` that were never kept.
    pub fn count_expired(&self, now: DateTime<Utc>) -> StoreResult<u64> {
        let count: i64 = self
            .conn
            .prepare_cached(COUNT_EXPIRED_SQL)?
            .query_row([self.expired_before(now)], |r| r.get(0))?;
        Ok(count as u64)
    }

    /// Pending, failed and expired counts in one call (one actor round trip).
    pub fn counts(&self, now: DateTime<Utc>) -> StoreResult<NoteCounts> {
        Ok(NoteCounts {
            pending: self.count_pending()?,
            failed: self.count_failed()?,
            expired: self.count_expired(now)?,
        })
    }

    // ----- the AI queue ------------------------------------------------------------

    /// Jobs of active notes whose `next_run_at` is at or before `now`, earliest first.
    pub fn due_jobs(&self, now: DateTime<Utc>) -> StoreResult<Vec<Job>> {
        let mut stmt = self.conn.prepare_cached(DUE_JOBS_SQL)?;
        let jobs = stmt
            .query_map([timestamp(now)], job_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(jobs)
    }

    /// Every job of an active note (the worker's view after a restart), earliest first.
    pub fn all_jobs(&self) -> StoreResult<Vec<Job>> {
        let mut stmt = self.conn.prepare_cached(ALL_JOBS_SQL)?;
        let jobs = stmt
            .query_map([], job_from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(jobs)
    }

    /// Every failed active note back to pending with a fresh job row, in ONE
    /// transaction. Returns their ids (in no particular order); empty writes nothing.
    ///
    /// Two passes over the failed notes, not three: the status update returns the ids
    /// (`RETURNING`), and the job rows are made from the notes it just stamped with
    /// `now`. The job insert is `INSERT OR IGNORE`: should a failed note somehow still
    /// have a row, it is kept as it is rather than failing the whole retry (a race
    /// guard); a pending note that already had `updated_at = now` has its row already.
    pub fn retry_all_failed(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.requeue_failed(REQUEUE_FAILED_SQL, now)
    }

    /// Notes that failed only because the model was missing back to pending, as
    /// [`Store::retry_all_failed`] does for all: a missing model is the provider's state
    /// now, and such a note was never at fault. Run when the model is there.
    pub fn requeue_model_missing_failures(
        &mut self,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<String>> {
        self.requeue_failed(REQUEUE_MODEL_MISSING_SQL, now)
    }

    /// Requeues the failed notes `select` stamps with `now` (and returns).
    fn requeue_failed(&mut self, select: &str, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.check_file()?;
        let at = timestamp(now);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let ids = {
            let mut stmt = tx.prepare_cached(select)?;
            let ids = stmt
                .query_map([&at], |r| r.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            ids
        };
        if ids.is_empty() {
            return Ok(ids); // nothing matched: nothing was written
        }
        tx.execute(INSERT_REQUEUED_JOBS_SQL, [&at])?;
        tx.commit()?;
        Ok(ids)
    }

    /// Parks a job after an unreachable/timeout failure: sets `next_run_at`,
    /// `last_error` (and marks it as waiting on the provider); never touches `attempts`.
    pub fn set_next_run_at(
        &mut self,
        note_id: &str,
        at: DateTime<Utc>,
        last_error: &str,
    ) -> StoreResult<()> {
        self.check_file()?;
        let changed = self.conn.prepare_cached(
            "UPDATE pending_jobs SET next_run_at = ?2, last_error = ?3, wait_reason = 'provider'
             WHERE note_id = ?1",
        )?
        .execute(params![note_id, timestamp(at), last_error])?;
        found(changed, note_id)
    }

    /// Records a slow note's timeout (its call ran out of time while Ollama was up): the
    /// count of such timeouts, when it runs next (waiting out its own delay), the
    /// error. Never touches `attempts`.
    pub fn record_slow_timeout(
        &mut self,
        note_id: &str,
        next_run_at: DateTime<Utc>,
        slow_timeouts: u32,
        last_error: &str,
    ) -> StoreResult<()> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE pending_jobs SET slow_timeouts = ?2, next_run_at = ?3, last_error = ?4,
                     wait_reason = 'retry'
                 WHERE note_id = ?1",
            )?
            .execute(params![
                note_id,
                slow_timeouts,
                timestamp(next_run_at),
                last_error
            ])?;
        found(changed, note_id)
    }

    /// Counts a schema/other failure and schedules the next attempt. Returns the new
    /// attempt count.
    pub fn increment_job_attempt(
        &mut self,
        note_id: &str,
        next_run_at: DateTime<Utc>,
        last_error: &str,
    ) -> StoreResult<u32> {
        self.check_file()?;
        self.conn
            .prepare_cached(
                "UPDATE pending_jobs
                 SET attempts = attempts + 1, next_run_at = ?2, last_error = ?3,
                     wait_reason = ?4
                 WHERE note_id = ?1 RETURNING attempts",
            )?
            .query_row(
                params![
                    note_id,
                    timestamp(next_run_at),
                    last_error,
                    WaitReason::Retry.as_str()
                ],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::NotFound(note_id.to_string()))
    }

    /// Gives up on a note: status `failed` with its error, job row deleted, one
    /// transaction. Returns the note as it is now.
    pub fn mark_ai_failed(
        &mut self,
        note_id: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        self.check_file()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let changed = tx.execute(
            "UPDATE notes SET ai_status = 'failed', ai_error = ?2, updated_at = ?3
             WHERE id = ?1 AND ai_status = 'pending'",
            params![note_id, error, timestamp(now)],
        )?;
        tx.execute("DELETE FROM pending_jobs WHERE note_id = ?1", [note_id])?;
        tx.commit()?;
        found(changed, note_id)?;
        self.get(note_id)
    }

    /// Saves the AI's answer for `body_read`, the body it was asked about: status
    /// `done`, job row deleted, one transaction. A title or tags the user set stay (the
    /// answer's are dropped); the answer's tags are stored under the spellings already
    /// in use ([`Vocabulary::tidy`]). A note edited since the AI read it is not
    /// touched ([`StoreError::Stale`]): its new job stands. Returns the note as it is now.
    pub fn save_enrichment(
        &mut self,
        note_id: &str,
        body_read: &str,
        enrichment: &Enrichment,
        now: DateTime<Utc>,
    ) -> StoreResult<Note> {
        self.check_file()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let tags = tags_in_use(&tx)?.tidy(enrichment.tags.clone());
        let tags_json = to_json(&tags)?;
        let tags_set_by_user: Option<bool> = tx
            .query_row(
                "UPDATE notes SET
                     title = CASE WHEN title_set_by_user THEN title ELSE ?2 END,
                     summary = ?3,
                     tags = CASE WHEN tags_set_by_user THEN tags ELSE ?4 END,
                     ai_status = 'done', ai_error = NULL, updated_at = ?5, ai_read_chars = ?7
                 WHERE id = ?1 AND ai_status = 'pending' AND body = ?6
                 RETURNING tags_set_by_user",
                params![
                    note_id,
                    enrichment.title,
                    enrichment.summary,
                    tags_json,
                    timestamp(now),
                    body_read,
                    enrichment.read_chars
                ],
                |r| r.get(0),
            )
            .optional()?;
        match tags_set_by_user {
            None => {
                let still_pending: Option<String> = tx
                    .query_row(
                        "SELECT id FROM notes WHERE id = ?1 AND ai_status = 'pending'",
                        [note_id],
                        |r| r.get(0),
                    )
                    .optional()?;
                return Err(match still_pending {
                    Some(_) => StoreError::Stale(note_id.to_string()),
                    None => StoreError::NotFound(note_id.to_string()),
                });
            }
            Some(false) => set_note_tags(&tx, note_id, &tags)?,
            Some(true) => {}
        }
        tx.execute("DELETE FROM pending_jobs WHERE note_id = ?1", [note_id])?;
        tx.commit()?;
        self.get(note_id)
    }

    /// Edits a note (docs/DESIGN.md, "Editing"): any of its body, title and tags, in
    /// one transaction. A title or tags given become the user's, kept from the AI from
    /// now on; tags are stored under the spellings already in use. A changed body makes
    /// the AI's output stale: the note goes back to pending with a fresh job (attempts
    /// 0, due now), as a capture does; its old title, tags and summary stay until new
    /// ones replace them. A note in the trash is a conflict. Writes nothing when
    /// nothing differs.
    pub fn edit(
        &mut self,
        note_id: &str,
        edit: &NoteEdit,
        now: DateTime<Utc>,
    ) -> StoreResult<Edited> {
        self.check_file()?;
        let before = self.get(note_id)?;
        if before.deleted_at.is_some() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is in the trash; restore it first"
            )));
        }
        let body = edit
            .body
            .as_ref()
            .map(NoteBody::as_str)
            .filter(|body| *body != before.body);
        let title = edit
            .title
            .as_deref()
            .filter(|title| !before.title_set_by_user || before.title.as_deref() != Some(title));
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let tags = match &edit.tags {
            Some(tags) => Some(tags_in_use(&tx)?.tidy(tags.clone())),
            None => None,
        }
        .filter(|tags| !before.tags_set_by_user || *tags != before.tags);
        if body.is_none() && title.is_none() && tags.is_none() {
            return Ok(Edited {
                note: before.clone(),
                was: before.ai_status,
                body_changed: false,
                changed: false,
            });
        }
        let at = timestamp(now);
        tx.execute(
            "UPDATE notes SET updated_at = ?2 WHERE id = ?1",
            params![note_id, at],
        )?;
        if let Some(body) = body {
            tx.execute(
                "UPDATE notes SET body = ?2, ai_status = 'pending', ai_error = NULL WHERE id = ?1",
                params![note_id, body],
            )?;
            tx.execute(
                "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)
                 ON CONFLICT (note_id) DO UPDATE SET attempts = 0, slow_timeouts = 0,
                     next_run_at = excluded.next_run_at, wait_reason = NULL, last_error = NULL",
                params![note_id, at],
            )?;
        }
        if let Some(title) = title {
            tx.execute(
                "UPDATE notes SET title = ?2, title_set_by_user = 1 WHERE id = ?1",
                params![note_id, title],
            )?;
        }
        if let Some(tags) = &tags {
            tx.execute(
                "UPDATE notes SET tags = ?2, tags_set_by_user = 1 WHERE id = ?1",
                params![note_id, to_json(tags)?],
            )?;
            set_note_tags(&tx, note_id, tags)?;
        }
        tx.commit()?;
        Ok(Edited {
            note: self.get(note_id)?,
            was: before.ai_status,
            body_changed: body.is_some(),
            changed: true,
        })
    }

    /// Brings notes in (`crate::export`), each as it is, in one transaction: a note
    /// with an id that exists is skipped, one without an id gets a new one; a pending
    /// note gets its job (due now), as a capture does. Replies with the notes stored
    /// and how many were skipped.
    pub fn import(&mut self, notes: &[Note], now: DateTime<Utc>) -> StoreResult<Imported> {
        self.check_file()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut imported = Imported::default();
        for note in notes {
            let id = if note.id.is_empty() {
                uuid::Uuid::now_v7().to_string()
            } else {
                note.id.clone()
            };
            let stored = tx.execute(
                "INSERT OR IGNORE INTO notes (id, body, title, summary, tags, ai_status, ai_error,
                     created_at, updated_at, deleted_at, kept_at, title_set_by_user,
                     tags_set_by_user, ai_read_chars)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                params![
                    id,
                    note.body,
                    note.title,
                    note.summary,
                    to_json(&note.tags)?,
                    note.ai_status.as_str(),
                    note.ai_error,
                    note.created_at,
                    note.updated_at,
                    note.deleted_at,
                    note.kept_at,
                    note.title_set_by_user,
                    note.tags_set_by_user,
                    note.ai_read_chars,
                ],
            )?;
            if stored == 0 {
                imported.skipped += 1;
                continue;
            }
            set_note_tags(&tx, &id, &note.tags)?;
            if note.ai_status == AiStatus::Pending {
                tx.execute(
                    "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)",
                    params![id, timestamp(now)],
                )?;
            }
            imported.notes.push(Note { id, ..note.clone() });
        }
        tx.commit()?;
        Ok(imported)
    }

    // ----- tags ----------------------------------------------------------------------

    /// Every tag of an active note with how many active notes have it, most used first
    /// (ties by name). `limit` keeps only the first ones. Read from the counts the
    /// triggers of migration 0004 keep (`tag_uses`), not counted.
    pub fn tags(&self, limit: Option<usize>) -> StoreResult<Vec<TagCount>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT tag, active_uses FROM tag_uses WHERE active_uses > 0
             ORDER BY active_uses DESC, tag LIMIT ?1",
        )?;
        let limit = limit.map_or(-1, |limit| i64::try_from(limit).unwrap_or(i64::MAX));
        let tags = stmt
            .query_map([limit], |r| {
                Ok(TagCount {
                    tag: r.get(0)?,
                    count: u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(tags)
    }

    /// Renames the tag `from` to `to` on every note that has it (in the trash too, so
    /// a restored note is as tidy), in one transaction; where a note has both, they
    /// merge into one. `to` may already exist: the two merge. Replies with how many
    /// notes changed and whether `to` existed.
    pub fn rename_tag(
        &mut self,
        from: &str,
        to: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<TagRenamed> {
        self.check_file()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let has = |tag: &str| -> StoreResult<bool> {
            Ok(tx
                .query_row(
                    "SELECT 1 FROM note_tags WHERE tag = ?1 LIMIT 1",
                    [tag],
                    |_| Ok(()),
                )
                .optional()?
                .is_some())
        };
        if !has(from)? {
            return Err(StoreError::NoSuchTag(from.to_string()));
        }
        let merged = has(to)?;
        let notes: Vec<(String, String)> = {
            let mut stmt = tx.prepare(
                "SELECT n.id, n.tags FROM note_tags t JOIN notes n ON n.id = t.note_id
                 WHERE t.tag = ?1",
            )?;
            let rows = stmt
                .query_map([from], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            rows
        };
        let at = timestamp(now);
        for (note_id, tags_json) in &notes {
            let tags: Vec<String> = serde_json::from_str(tags_json)
                .map_err(|e| StoreError::Unavailable(format!("tags of {note_id}: {e}")))?;
            let mut renamed: Vec<String> = Vec::new();
            for tag in tags {
                let tag = if tag == from { to.to_string() } else { tag };
                if !renamed.contains(&tag) {
                    renamed.push(tag);
                }
            }
            tx.execute(
                "UPDATE notes SET tags = ?2, updated_at = ?3 WHERE id = ?1",
                params![note_id, to_json(&renamed)?, at],
            )?;
            set_note_tags(&tx, note_id, &renamed)?;
        }
        tx.commit()?;
        Ok(TagRenamed {
            tag: to.to_string(),
            notes: notes.len() as u64,
            merged,
        })
    }

    /// Folds the WAL into the database file (shutdown). The data is already durable;
    /// this only keeps the `-wal` file from growing across runs.
    pub fn checkpoint(&mut self) -> StoreResult<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }

    /// Every breach of the invariants (docs/DESIGN.md, "Data"), described; empty when all hold. Tests and
    /// fault-injection runs call it after the fact.
    pub fn invariant_violations(&self) -> StoreResult<Vec<String>> {
        let checks = [
            (
                "pending notes without exactly one job row",
                "SELECT COUNT(*) FROM notes n WHERE n.ai_status = 'pending'
                   AND (SELECT COUNT(*) FROM pending_jobs j WHERE j.note_id = n.id) <> 1",
            ),
            (
                "done or failed notes with a job row",
                "SELECT COUNT(*) FROM pending_jobs j JOIN notes n ON n.id = j.note_id
                 WHERE n.ai_status <> 'pending'",
            ),
            (
                "job rows without a note",
                "SELECT COUNT(*) FROM pending_jobs j
                 WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = j.note_id)",
            ),
            (
                "failed notes without an error",
                "SELECT COUNT(*) FROM notes WHERE ai_status = 'failed' AND ai_error IS NULL",
            ),
            (
                "notes whose search entry is missing or stale",
                "SELECT COUNT(*) FROM notes n
                 LEFT JOIN note_search_keys k ON k.note_id = n.id
                 LEFT JOIN notes_search s ON s.rowid = k.key
                 WHERE s.rowid IS NULL OR s.body IS NOT n.body
                    OR s.title IS NOT coalesce(n.title, '')",
            ),
            (
                "tag rows whose active flag disagrees with their note",
                "SELECT COUNT(*) FROM note_tags t JOIN notes n ON n.id = t.note_id
                 WHERE t.active IS NOT (n.deleted_at IS NULL)",
            ),
            (
                "tag counts that disagree with the notes' tags",
                "SELECT COUNT(*) FROM (
                     SELECT tag, COUNT(*) AS uses, SUM(active) AS active_uses
                     FROM note_tags GROUP BY tag) counted
                 FULL OUTER JOIN tag_uses kept USING (tag)
                 WHERE counted.uses IS NOT kept.uses
                    OR counted.active_uses IS NOT kept.active_uses",
            ),
            (
                "search entries without a note",
                "SELECT (SELECT COUNT(*) FROM notes_search) + (SELECT COUNT(*) FROM note_search_keys)
                        - 2 * (SELECT COUNT(*) FROM notes)",
            ),
        ];
        let mut violations = Vec::new();
        for (what, sql) in checks {
            let count: i64 = self.conn.query_row(sql, [], |r| r.get(0))?;
            if count > 0 {
                violations.push(format!("{count} {what}"));
            }
        }
        Ok(violations)
    }

    // ----- trash and expiry --------------------------------------------------------

    /// Moves a note to the trash. Trashing a trashed note changes nothing.
    pub fn trash(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE notes SET deleted_at = ?2, updated_at = ?2
                 WHERE id = ?1 AND deleted_at IS NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        Ok(Changed {
            note: self.get(note_id)?,
            changed: changed > 0,
        })
    }

    /// Takes a note out of the trash; a pending one resumes with its job row.
    pub fn restore(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Changed> {
        self.check_file()?;
        let changed = self
            .conn
            .prepare_cached(
                "UPDATE notes SET deleted_at = NULL, updated_at = ?2
                 WHERE id = ?1 AND deleted_at IS NOT NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        Ok(Changed {
            note: self.get(note_id)?,
            changed: changed > 0,
        })
    }

    /// The bodies of those of `ids` that are still pending and active (the worker's
    /// prefetch: one query for the next jobs instead of one per job).
    pub fn pending_bodies(&self, ids: &[String]) -> StoreResult<Vec<(String, String)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let placeholders = vec!["?"; ids.len()].join(", ");
        let mut stmt = self.conn.prepare(&format!(
            "SELECT id, body FROM notes
             WHERE id IN ({placeholders}) AND ai_status = 'pending' AND deleted_at IS NULL"
        ))?;
        let bodies = stmt
            .query_map(params_from_iter(ids.iter()), |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(bodies)
    }

    /// The job row of one active note, if it has one.
    pub fn job(&self, note_id: &str) -> StoreResult<Option<Job>> {
        Ok(self
            .conn
            .prepare_cached(
                "SELECT j.note_id, j.attempts, j.next_run_at, j.wait_reason, j.slow_timeouts
                 FROM pending_jobs j JOIN notes n ON n.id = j.note_id
                 WHERE j.note_id = ?1 AND n.deleted_at IS NULL",
            )?
            .query_row([note_id], job_from_row)
            .optional()?)
    }

    /// Moves every expired note (active, older than `expiry.days`, never kept) to the
    /// trash in one statement. Returns their ids.
    pub fn trash_expired(&mut self, now: DateTime<Utc>) -> StoreResult<Vec<String>> {
        self.check_file()?;
        let mut stmt = self.conn.prepare_cached(
            "UPDATE notes SET deleted_at = ?2, updated_at = ?2
             WHERE deleted_at IS NULL AND created_at < ?1 AND kept_at IS NULL
             RETURNING id",
        )?;
        let ids = stmt
            .query_map(params![self.expired_before(now), timestamp(now)], |r| {
                r.get(0)
            })?
            .collect::<Result<Vec<String>, _>>()?;
        Ok(ids)
    }

    /// Keeps a note past expiry. Keeping a kept note changes nothing.
    pub fn keep(&mut self, note_id: &str, now: DateTime<Utc>) -> StoreResult<Note> {
        self.check_file()?;
        self.conn
            .prepare_cached(
                "UPDATE notes SET kept_at = ?2, updated_at = ?2 WHERE id = ?1 AND kept_at IS NULL",
            )?
            .execute(params![note_id, timestamp(now)])?;
        self.get(note_id)
    }

    /// Asks for a note's AI again, by hand: a done or failed note goes back to pending
    /// with a fresh job (attempts 0), as a capture does; a pending one keeps its job
    /// with attempts 0. Either way the job goes to the front of the queue (due before
    /// every other). Its title, tags and summary stay until new ones replace them. A
    /// note in the trash is a conflict: restore it first. Replies with the note and
    /// what it was.
    pub fn request_enrichment(
        &mut self,
        note_id: &str,
        now: DateTime<Utc>,
    ) -> StoreResult<(Note, AiStatus)> {
        self.check_file()?;
        let before = self.get(note_id)?;
        if before.deleted_at.is_some() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is in the trash; restore it first"
            )));
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let earliest: Option<String> = tx.query_row(
            "SELECT MIN(next_run_at) FROM pending_jobs WHERE note_id <> ?1",
            [note_id],
            |r| r.get(0),
        )?;
        let earliest = earliest
            .and_then(|at| DateTime::parse_from_rfc3339(&at).ok())
            .map(|at| at.with_timezone(&Utc) - chrono::Duration::milliseconds(1));
        let front = timestamp(earliest.map_or(now, |at| at.min(now)));
        if before.ai_status == AiStatus::Pending {
            tx.execute(
                "UPDATE pending_jobs SET attempts = 0, next_run_at = ?2, wait_reason = NULL,
                     last_error = NULL
                 WHERE note_id = ?1",
                params![note_id, front],
            )?;
        } else {
            tx.execute(
                "UPDATE notes SET ai_status = 'pending', ai_error = NULL, updated_at = ?2
                 WHERE id = ?1",
                params![note_id, timestamp(now)],
            )?;
            tx.execute(
                "INSERT INTO pending_jobs (note_id, attempts, next_run_at) VALUES (?1, 0, ?2)",
                params![note_id, front],
            )?;
        }
        tx.commit()?;
        Ok((self.get(note_id)?, before.ai_status))
    }

    /// Deletes a note in the trash for good, its text gone from the database files:
    /// every row is overwritten as it is deleted or rewritten (`secure_delete`, on for
    /// the connection, and FTS5's own `secure-delete` for the search index, set by
    /// migration 0003), and the WAL, which still holds the pages as they were, is
    /// folded back and emptied. An active note is a conflict: it must be trashed first.
    pub fn delete_forever(&mut self, note_id: &str) -> StoreResult<()> {
        self.check_file()?;
        let note = self.get(note_id)?;
        if note.deleted_at.is_none() {
            return Err(StoreError::Conflict(format!(
                "note {note_id} is not in the trash; move it to the trash first"
            )));
        }
        self.erase(
            "DELETE FROM notes WHERE id = ?1 AND deleted_at IS NOT NULL",
            &[note_id],
        )?;
        Ok(())
    }

    /// Deletes every note in the trash for good, as [`Store::delete_forever`] does;
    /// replies with how many.
    pub fn empty_trash(&mut self) -> StoreResult<u64> {
        self.check_file()?;
        self.erase("DELETE FROM notes WHERE deleted_at IS NOT NULL", &[])
    }

    /// Runs a delete (its content overwritten), then empties the WAL.
    fn erase(&mut self, sql: &str, args: &[&str]) -> StoreResult<u64> {
        let deleted = self.conn.execute(sql, params_from_iter(args.iter()))?;
        if deleted > 0 {
            // The WAL holds the pages as they were before: fold it back and truncate it.
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(deleted as u64)
    }

    /// Deletes for good the notes trashed before `older_than` (their job and tag rows
    /// go with them). Returns how many.
    pub fn purge_trash(&mut self, older_than: DateTime<Utc>) -> StoreResult<u64> {
        self.check_file()?;
        let purged = self
            .conn
            .prepare_cached("DELETE FROM notes WHERE deleted_at IS NOT NULL AND deleted_at < ?1")?
            .execute([timestamp(older_than)])?;
        Ok(purged as u64)
    }
}

/// The tags in use (on any note), most used first: what new tags are tidied against.
fn tags_in_use(conn: &Connection) -> StoreResult<Vocabulary> {
    let mut stmt = conn.prepare_cached("SELECT tag FROM tag_uses ORDER BY uses DESC, tag")?;
    let tags = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(Vocabulary::new(tags))
}

/// A note's `note_tags` rows made to be `tags` (the index of its `tags` column).
fn set_note_tags(conn: &Connection, note_id: &str, tags: &[String]) -> StoreResult<()> {
    conn.execute("DELETE FROM note_tags WHERE note_id = ?1", [note_id])?;
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO note_tags (tag, note_id, active)
         VALUES (?1, ?2, (SELECT deleted_at IS NULL FROM notes WHERE id = ?2))",
    )?;
    for tag in tags {
        insert.execute(params![tag, note_id])?;
    }
    Ok(())
}

fn to_json(tags: &[String]) -> StoreResult<String> {
    serde_json::to_string(tags).map_err(|e| StoreError::Unavailable(format!("tags: {e}")))
}

fn found(changed: usize, note_id: &str) -> StoreResult<()> {
    if changed == 0 {
        Err(StoreError::NotFound(note_id.to_string()))
    } else {
        Ok(())
    }
}

fn parse_timestamp(text: &str, column: usize) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e.into())
        })
}

fn job_from_row(r: &Row) -> rusqlite::Result<Job> {
    let at: String = r.get(2)?;
    let wait: Option<String> = r.get(3)?;
    Ok(Job {
        note_id: r.get(0)?,
        attempts: r.get(1)?,
        next_run_at: parse_timestamp(&at, 2)?,
        wait_reason: wait.as_deref().and_then(WaitReason::parse),
        slow_timeouts: r.get(4)?,
    })
}

fn note_from_row(r: &Row) -> rusqlite::Result<Note> {
    let tags: String = r.get(4)?;
    let status: String = r.get(5)?;
    let conversion = |column, e: Box<dyn std::error::Error + Send + Sync>| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, e)
    };
    Ok(Note {
        id: r.get(0)?,
        body: r.get(1)?,
        title: r.get(2)?,
        summary: r.get(3)?,
        tags: serde_json::from_str(&tags).map_err(|e| conversion(4, e.into()))?,
        ai_status: AiStatus::parse(&status)
            .ok_or_else(|| conversion(5, format!("unknown ai_status {status}").into()))?,
        ai_error: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
        deleted_at: r.get(9)?,
        kept_at: r.get(10)?,
        title_set_by_user: r.get(11)?,
        tags_set_by_user: r.get(12)?,
        ai_read_chars: r.get(13)?,
    })
}
