//! The newest time the database holds: a clock reading far past it at start is not
//! trusted to purge until it has held (`crate::clock::confirmed`).

use chrono::{DateTime, Utc};

use super::{Store, StoreResult};

/// The newest capture (active or in the trash) and the newest move to the trash, each
/// read from its own index's end (`notes_active_by_created`, `notes_trashed_by_created`,
/// `notes_trashed_by_deleted`): three index look-ups, whatever the number of notes.
const NEWEST_TIME_SQL: &str = "SELECT MAX(t) FROM (
    SELECT MAX(created_at) AS t FROM notes WHERE deleted_at IS NULL
    UNION ALL SELECT MAX(created_at) FROM notes WHERE deleted_at IS NOT NULL
    UNION ALL SELECT MAX(deleted_at) FROM notes WHERE deleted_at IS NOT NULL)";

impl Store {
    /// The newest time a note was captured or trashed; `None` for an empty database.
    pub fn newest_time(&self) -> StoreResult<Option<DateTime<Utc>>> {
        let newest: Option<String> = self
            .conn
            .prepare_cached(NEWEST_TIME_SQL)?
            .query_row([], |row| row.get(0))?;
        Ok(newest
            .and_then(|at| DateTime::parse_from_rfc3339(&at).ok())
            .map(|at| at.with_timezone(&Utc)))
    }
}
