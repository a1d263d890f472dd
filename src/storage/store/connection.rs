//! `Store`, the one connection that writes: opening the database (its pragmas and
//! migrations), the file's identity and soundness checked before each write, and the
//! WAL checkpoint. Its operations are the `impl Store` blocks of the files beside this
//! one, one per feature (`mod.rs` lists them).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::super::migrations::{self, MIGRATIONS};
use super::super::vector_index::VectorIndex;
use super::integrity::{Integrity, Verdict};
use super::nearest;
use super::{StoreError, StoreResult};
use crate::domain::timestamp;

/// How many compiled statements the connection keeps: room for every one the store
/// runs and the lists' and searches' usual shapes.
const STATEMENT_CACHE: usize = 128;

/// The one connection that writes.
pub struct Store {
    pub(super) conn: Connection,
    /// A note older than this that was never kept counts as expired.
    expiry: Duration,
    /// The database file and its identity (device, inode) when it was opened; `None`
    /// in memory. Checked before each write (see [`Store::check_file`]).
    file: Option<(std::path::PathBuf, FileIdentity)>,
    /// The check at start: no write before it has found the file sound.
    integrity: Arc<Integrity>,
    /// The binary codes of the vectors of the notes out of the trash (`nearest.rs`),
    /// kept in step by every write that moves one; built after opening, in slices.
    pub(super) index: VectorIndex,
    pub(super) index_build: nearest::IndexBuild,
    /// The newest change of the log (`changes.rs`) the vector index has followed.
    pub(super) applied: i64,
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
    /// Opens (creating if needed) the database at `path` and migrates it, taking it for
    /// sound (tests, benchmarks, a database known to be new).
    pub fn open(path: &Path, expiry_days: u32) -> StoreResult<Self> {
        Self::open_checked(path, expiry_days, Integrity::sound())
    }

    /// Opens the database at `path`, whose soundness `integrity` is deciding: reads go
    /// ahead at once, each write (a migration included) waits for the verdict and is
    /// refused on a damaged file.
    pub fn open_checked(
        path: &Path,
        expiry_days: u32,
        integrity: Arc<Integrity>,
    ) -> StoreResult<Self> {
        let conn = Connection::open(path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display())))?;
        let mut store = Self::with_connection(conn, expiry_days, integrity)?;
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

    /// Before each write: waits for the check at start, and refuses the write on a
    /// damaged file (it is never written); then refuses it when the database file is no
    /// longer the one opened: SQLite would go on writing into the unlinked file, and
    /// every note "saved" there would be lost at the next start. Once the check has
    /// decided, one lock and one `stat` per write, a few microseconds.
    pub(super) fn check_file(&self) -> StoreResult<()> {
        self.integrity.wait_for_verdict().allows_writes()?;
        let Some((path, opened)) = &self.file else {
            return Ok(());
        };
        match FileIdentity::of(path) {
            Ok(now) if now == *opened => Ok(()),
            _ => Err(StoreError::Gone(path.display().to_string())),
        }
    }

    /// The database file, `None` in memory.
    pub(super) fn database_path(&self) -> Option<&Path> {
        self.file.as_ref().map(|(path, _)| path.as_path())
    }

    /// An in-memory database (tests, benchmarks).
    pub fn open_in_memory(expiry_days: u32) -> StoreResult<Self> {
        Self::with_connection(
            Connection::open_in_memory()?,
            expiry_days,
            Integrity::sound(),
        )
    }

    fn with_connection(
        mut conn: Connection,
        expiry_days: u32,
        integrity: Arc<Integrity>,
    ) -> StoreResult<Self> {
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
        // Each statement the store runs is compiled once (`prepare_cached`). There are
        // ~40 of them besides the lists' and searches' shapes, and rusqlite keeps 16 by
        // default, so a capture's statements were compiled again after the worker, a
        // list or a search had pushed them out (compiling the insert with its triggers
        // cost ~0.1 ms, docs/PERFORMANCE.md).
        conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
        // A migration writes: on an older file it waits for the check (start-up waits
        // then, once per upgrade); an up-to-date file needs no write to open.
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if usize::try_from(version).is_ok_and(|v| v < MIGRATIONS.len()) {
            integrity.wait_for_verdict().allows_writes()?;
        }
        migrations::migrate(&mut conn, MIGRATIONS)?;
        // The index is built from the database as it is now: the log so far is in it.
        let applied = super::changes::latest_seq(&conn)?;
        Ok(Store {
            conn,
            expiry: Duration::from_secs(u64::from(expiry_days) * 24 * 60 * 60),
            file: None,
            integrity,
            index: VectorIndex::default(),
            index_build: nearest::IndexBuild::Reading { after: None },
            applied,
        })
    }

    /// Direct access for tests and diagnostics (`EXPLAIN QUERY PLAN`).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    pub(super) fn expired_before(&self, now: DateTime<Utc>) -> String {
        let expiry = chrono::Duration::from_std(self.expiry).unwrap_or(chrono::Duration::MAX);
        timestamp(
            now.checked_sub_signed(expiry)
                .unwrap_or(DateTime::<Utc>::MIN_UTC),
        )
    }

    /// The check at start this store's writes wait for.
    pub fn integrity(&self) -> Arc<Integrity> {
        self.integrity.clone()
    }

    /// Folds the WAL into the database file (shutdown). The data is already durable;
    /// this only keeps the `-wal` file from growing across runs. Nothing is folded
    /// into a file not (yet) found sound: it must not be written, and no write of
    /// this run reached its log.
    pub fn checkpoint(&mut self) -> StoreResult<()> {
        if self.integrity.now() != Verdict::Sound {
            return Ok(());
        }
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        Ok(())
    }
}

impl Drop for Store {
    /// SQLite folds the write-ahead log into the file when its last connection closes;
    /// a file not found sound must not be written (after an unclean stop its log still
    /// holds the last writes, kept for the next start).
    fn drop(&mut self) {
        if self.integrity.now() != Verdict::Sound {
            let no_checkpoint = rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE;
            if let Err(e) = self.conn.set_db_config(no_checkpoint, true) {
                tracing::warn!(error = %e, "cannot keep SQLite from folding its log into the file on close");
            }
        }
    }
}
