//! The database's integrity check at every start, and the gate every write passes.
//!
//! A database damaged while inkling was stopped (a bad copy, a sync tool, the disk) must
//! be refused, and never written: a write into a damaged file can spread the damage
//! and bury what `.recover` could still save. `PRAGMA quick_check` reads the whole file
//! (its cost at 100,000 notes is in docs/PERFORMANCE.md), so it runs on a thread of its
//! own, on a read-only connection of its own, while the service starts and answers;
//! until it has said the file is sound, every write waits for its verdict
//! ([`Integrity::wait_for_verdict`], called by `Store::check_file` before each write).
//! A capture made meanwhile is answered once it is on disk, a moment later, as always;
//! on a damaged file it is refused, and the service stops with the recovery steps.
//! docs/DESIGN.md ("The check at start") says why a write waits rather than queues.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use super::{Store, StoreError, StoreResult};

/// What to do with a damaged database, in plain words: keep the original, recover into
/// a new file.
pub const RECOVER_HINT: &str = "the database may be damaged. Nothing was written to it. \
     Copy it somewhere safe first, then recover the notes into a new file with \
     `sqlite3 inkling.db .recover | sqlite3 recovered.db` and put recovered.db in its place";

/// What the check has found so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Still reading the file: writes wait.
    Checking,
    /// `quick_check` found nothing wrong (or the database is new): writes go through.
    Sound,
    /// What was wrong, in words a person can act on (with [`RECOVER_HINT`]): every
    /// write is refused with it.
    Damaged(String),
}

impl Verdict {
    /// The verdict on `path` from what `Store::damage` answered: SQLite's findings,
    /// or the error that kept it from checking at all (a file it cannot read is no
    /// better than a damaged one).
    pub fn of_check(path: &Path, checked: StoreResult<Option<String>>) -> Verdict {
        match checked {
            Ok(None) => Verdict::Sound,
            Ok(Some(found)) => Verdict::Damaged(format!(
                "the database {} is damaged (SQLite's check found: {found}); {RECOVER_HINT}",
                path.display()
            )),
            Err(e) => Verdict::Damaged(format!(
                "cannot check the database {} ({e}); {RECOVER_HINT}",
                path.display()
            )),
        }
    }

    /// Whether a write may go ahead under this verdict (`Checking` is waited out
    /// before this is asked).
    pub fn allows_writes(&self) -> StoreResult<()> {
        match self {
            Verdict::Sound => Ok(()),
            Verdict::Checking => Err(StoreError::Damaged(
                "the database has not been checked yet".into(),
            )),
            Verdict::Damaged(why) => Err(StoreError::Damaged(why.clone())),
        }
    }
}

/// The verdict, shared by the checking thread, the store's writes and the service's
/// shutdown.
#[derive(Debug)]
pub struct Integrity {
    verdict: Mutex<Verdict>,
    /// Wakes the writes waiting for the verdict.
    decided: Condvar,
    /// The same verdict for async code (the service stops on a damaged one).
    watch: tokio::sync::watch::Sender<Verdict>,
}

impl Integrity {
    fn with(verdict: Verdict) -> Arc<Self> {
        Arc::new(Integrity {
            verdict: Mutex::new(verdict.clone()),
            decided: Condvar::new(),
            watch: tokio::sync::watch::Sender::new(verdict),
        })
    }

    /// Nothing to check: a database just created, in memory, or checked already.
    pub fn sound() -> Arc<Self> {
        Self::with(Verdict::Sound)
    }

    /// Not decided yet: writes wait until [`Integrity::decide`] is called (tests decide
    /// by hand; [`Integrity::check_in_background`] decides from `quick_check`).
    pub fn undecided() -> Arc<Self> {
        Self::with(Verdict::Checking)
    }

    /// Starts `quick_check` of the database at `path` on a thread of its own, and
    /// returns at once.
    pub fn check_in_background(path: &Path) -> std::io::Result<Arc<Self>> {
        let integrity = Self::undecided();
        let checking = integrity.clone();
        let path: PathBuf = path.to_path_buf();
        std::thread::Builder::new()
            .name("integrity-check".into())
            .spawn(move || {
                let started = std::time::Instant::now();
                // A check that panics must still decide, or every write would wait
                // for ever: the file's soundness is then unknown, and it is not written.
                let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    Verdict::of_check(&path, Store::damage(&path))
                }))
                .unwrap_or_else(|_| {
                    Verdict::Damaged(
                        "the check of the database stopped unexpectedly, so whether the file \
                         is sound is not known; start inkling again to check it again"
                            .into(),
                    )
                });
                match &verdict {
                    Verdict::Damaged(why) => tracing::error!(error = %why, "database refused"),
                    _ => tracing::info!(
                        took_ms = started.elapsed().as_millis() as u64,
                        "database checked: sound"
                    ),
                }
                checking.decide(verdict);
            })?;
        Ok(integrity)
    }

    /// Records the verdict and wakes every write waiting for it.
    pub fn decide(&self, verdict: Verdict) {
        *self.verdict.lock().unwrap_or_else(|p| p.into_inner()) = verdict.clone();
        self.decided.notify_all();
        self.watch.send_replace(verdict);
    }

    /// The verdict as it stands, without waiting.
    pub fn now(&self) -> Verdict {
        self.verdict
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Blocks until the check has decided, then gives its verdict. The repository's
    /// thread waits here before a write; nothing else runs on that thread.
    pub fn wait_for_verdict(&self) -> Verdict {
        let verdict = self.verdict.lock().unwrap_or_else(|p| p.into_inner());
        let verdict = self
            .decided
            .wait_while(verdict, |v| *v == Verdict::Checking)
            .unwrap_or_else(|p| p.into_inner());
        verdict.clone()
    }

    /// Resolves once the check has decided, with its verdict (for async code).
    pub async fn decided(&self) -> Verdict {
        let mut watch = self.watch.subscribe();
        let verdict = watch
            .wait_for(|v| *v != Verdict::Checking)
            .await
            .map(|v| v.clone());
        // The sender lives in `self`, so the channel cannot close while we borrow it.
        verdict.unwrap_or_else(|_| self.now())
    }
}

#[cfg(test)]
mod tests;
