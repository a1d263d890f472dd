//! Why a repository operation failed, in words a person can act on (a full disk, a
//! read-only file system, a file replaced under the service).

use super::super::migrations::MigrationError;

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
    /// The check at start found the database damaged (the words say what, and how to
    /// recover): it is never written.
    #[error("{0}")]
    Damaged(String),
    /// The note is not where the operation needs it (active for a delete for good).
    #[error("{0}")]
    Conflict(String),
    /// An answer of the AI for a body the note no longer has (edited meanwhile):
    /// not saved, and the note's new job stands.
    #[error("note {0} was edited while the AI read it; its answer is not saved")]
    Stale(String),
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),
    /// A voice note's recording could not be written or read (`full`: no space left).
    /// Nothing was stored.
    #[error("{message}")]
    Recording { full: bool, message: String },
}

impl StoreError {
    /// A recording's file operation that failed, in words, with what it was doing.
    pub fn recording(doing: &str, error: &std::io::Error) -> Self {
        let full = error.raw_os_error() == Some(libc::ENOSPC);
        let message = if full {
            format!("the disk is full: {doing} failed; free some disk space ({error})")
        } else {
            format!("{doing} failed ({error})")
        };
        StoreError::Recording { full, message }
    }
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
    /// The disk, not the data, is the trouble: full, read-only, failing or damaged.
    /// Every write would fail the same way until it is fixed.
    pub fn is_disk_trouble(&self) -> bool {
        matches!(
            self,
            StoreError::Full(_)
                | StoreError::ReadOnly(_)
                | StoreError::DiskIo(_)
                | StoreError::Gone(_)
                | StoreError::Damaged(_)
                | StoreError::Recording { .. }
        )
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

/// `Ok` when a write changed a row, else "no note with this id".
pub(super) fn found(changed: usize, note_id: &str) -> StoreResult<()> {
    if changed == 0 {
        Err(StoreError::NotFound(note_id.to_string()))
    } else {
        Ok(())
    }
}
