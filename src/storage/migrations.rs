//! Schema migrations: `migrations/NNNN_name.sql`, embedded in the binary, applied in
//! order at start-up.
//!
//! The applied version is `PRAGMA user_version` (the number of migrations applied).
//! All pending migrations and the version bump run in ONE transaction: SQLite DDL is
//! transactional, so a crash or an error mid-way leaves the database at its old
//! version with its data untouched, and the next start tries again.

use rusqlite::Connection;

/// One migration: its file name (for messages) and its SQL.
pub struct Migration {
    pub name: &'static str,
    pub sql: &'static str,
}

/// Every migration, in order. Never edit one that has shipped: add a new file.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        name: "0001_init.sql",
        sql: include_str!("../../migrations/0001_init.sql"),
    },
    Migration {
        name: "0002_pending_jobs_wait_reason.sql",
        sql: include_str!("../../migrations/0002_pending_jobs_wait_reason.sql"),
    },
    Migration {
        name: "0003_search.sql",
        sql: include_str!("../../migrations/0003_search.sql"),
    },
    Migration {
        name: "0004_user_fields.sql",
        sql: include_str!("../../migrations/0004_user_fields.sql"),
    },
    Migration {
        name: "0005_model_work.sql",
        sql: include_str!("../../migrations/0005_model_work.sql"),
    },
    Migration {
        name: "0006_search_split.sql",
        sql: include_str!("../../migrations/0006_search_split.sql"),
    },
    Migration {
        name: "0007_edited_at.sql",
        sql: include_str!("../../migrations/0007_edited_at.sql"),
    },
    Migration {
        name: "0008_note_vectors.sql",
        sql: include_str!("../../migrations/0008_note_vectors.sql"),
    },
    Migration {
        name: "0009_note_changes.sql",
        sql: include_str!("../../migrations/0009_note_changes.sql"),
    },
    Migration {
        name: "0010_reminders.sql",
        sql: include_str!("../../migrations/0010_reminders.sql"),
    },
    Migration {
        name: "0011_answers.sql",
        sql: include_str!("../../migrations/0011_answers.sql"),
    },
    Migration {
        name: "0012_expiry_opt_in.sql",
        sql: include_str!("../../migrations/0012_expiry_opt_in.sql"),
    },
    Migration {
        name: "0013_voice.sql",
        sql: include_str!("../../migrations/0013_voice.sql"),
    },
    Migration {
        name: "0014_reminder_suggestions.sql",
        sql: include_str!("../../migrations/0014_reminder_suggestions.sql"),
    },
    Migration {
        name: "0015_search_behind.sql",
        sql: include_str!("../../migrations/0015_search_behind.sql"),
    },
    Migration {
        name: "0016_change_log_compacted.sql",
        sql: include_str!("../../migrations/0016_change_log_compacted.sql"),
    },
];

#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error(
        "the database is at schema version {found}, newer than this build of inkling knows ({known}); \
         run a newer inkling"
    )]
    TooNew { found: usize, known: usize },
    #[error("migration {name} failed: {reason}")]
    Failed {
        name: &'static str,
        reason: rusqlite::Error,
    },
    #[error("cannot read the schema version: {0}")]
    Version(rusqlite::Error),
}

/// The schema version of an open database.
pub fn current_version(conn: &Connection) -> Result<usize, MigrationError> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(MigrationError::Version)?;
    Ok(usize::try_from(version).unwrap_or(0))
}

/// Brings the database up to `migrations.len()`. Returns how many were applied.
pub fn migrate(conn: &mut Connection, migrations: &[Migration]) -> Result<usize, MigrationError> {
    let found = current_version(conn)?;
    if found > migrations.len() {
        return Err(MigrationError::TooNew {
            found,
            known: migrations.len(),
        });
    }
    let pending = &migrations[found..];
    if pending.is_empty() {
        return Ok(0);
    }
    let failed = |name| move |reason| MigrationError::Failed { name, reason };
    let tx = conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
        .map_err(failed("(begin)"))?;
    for migration in pending {
        tx.execute_batch(migration.sql)
            .map_err(failed(migration.name))?;
    }
    tx.pragma_update(None, "user_version", migrations.len() as i64)
        .map_err(failed("(version)"))?;
    tx.commit().map_err(failed("(commit)"))?;
    tracing::info!(
        from = found,
        to = migrations.len(),
        "database schema migrated"
    );
    Ok(pending.len())
}

#[cfg(test)]
mod tests;
