//! One service per data dir: `<data_dir>/inkling.lock`.
//!
//! The file is locked with the OS's advisory lock (`File::try_lock`, `flock` on Linux)
//! for the life of the process. The kernel drops the lock when the process ends, however
//! it ends, so a lock left by a process killed with `kill -9` is no lock at all: the
//! next start takes it over. The file's text says who holds it (`{"pid", "url"}`), so a
//! second start can say "already running (pid N, http://127.0.0.1:PORT)".

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Who holds the lock, as written in the file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    /// Empty until the server is listening.
    pub url: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("already running (pid {}, {})", .0.pid, if .0.url.is_empty() { "starting" } else { .0.url.as_str() })]
    AlreadyRunning(Holder),
    #[error("cannot use the lock file {path}: {reason}")]
    Io {
        path: PathBuf,
        reason: std::io::Error,
    },
}

/// The held lock; dropping it (or exiting) releases it.
#[derive(Debug)]
pub struct InstanceLock {
    file: File,
    path: PathBuf,
}

impl InstanceLock {
    /// Takes the data dir's lock, or says who has it.
    pub fn acquire(data_dir: &Path) -> Result<Self, LockError> {
        let path = data_dir.join("inkling.lock");
        let io = |reason| LockError::Io {
            path: path.clone(),
            reason,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = serde_json::from_str(&text).unwrap_or_default();
                return Err(LockError::AlreadyRunning(holder));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let mut lock = InstanceLock { file, path };
        lock.record(&Holder {
            pid: std::process::id(),
            url: String::new(),
        })?;
        Ok(lock)
    }

    /// Writes who holds the lock (again once the URL is known).
    pub fn record(&mut self, holder: &Holder) -> Result<(), LockError> {
        let io = |reason| LockError::Io {
            path: self.path.clone(),
            reason,
        };
        let text = serde_json::to_string(holder).unwrap_or_default();
        self.file.set_len(0).map_err(io)?;
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.file.write_all(text.as_bytes()).map_err(io)?;
        self.file.sync_all().map_err(io)
    }
}

#[cfg(test)]
mod tests;
