//! The per-install API token: `<data_dir>/api-token`, 64 hex characters, mode 0600.
//!
//! Every `/api` call carries it as `Authorization: Bearer <token>`. It is created on
//! the first start, with its mode set at creation (never a world-readable moment), and
//! read by the CLI. A token file others can read is refused: anyone who can read it can
//! drive the API. The page's sessions (`src/sessions.rs`) are kept with the same code.
//!
//! A secret is written whole or not at all: into a temporary file beside it, flushed to
//! disk, then renamed over the final name (and the directory flushed), so a start on a
//! full disk cannot leave a 0-byte `api-token` that every later start would refuse; an
//! empty file found is replaced.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context};

/// Reads the token, creating it first if there is none (or only an empty file).
pub fn load_or_create(path: &Path) -> anyhow::Result<String> {
    match fs::metadata(path) {
        Ok(meta) if meta.len() > 0 => return read(path),
        Ok(_) => {
            tracing::warn!(path = %path.display(), "the secret file is empty; making a new one")
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot read the API token {}", path.display()))
        }
    }
    let token = new_secret()?;
    write_atomically(path, token.as_bytes())
        .with_context(|| format!("cannot write the API token {}", path.display()))?;
    tracing::info!(path = %path.display(), "created a new secret");
    Ok(token)
}

/// Writes `contents` to `path` whole or not at all, mode 0600 from the start.
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.{}.new", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode_0600()
            .open(&temporary)?;
        file.write_all(contents)?;
        file.sync_all()?;
        fs::rename(&temporary, path)?;
        // The rename itself is durable once the directory is.
        if let Some(dir) = path.parent() {
            fs::File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written
}

/// Reads an existing token; refuses one that others can read or that is malformed.
pub fn read(path: &Path) -> anyhow::Result<String> {
    check_private(path, "the API token")?;
    let token = fs::read_to_string(path)
        .with_context(|| format!("cannot read the API token {}", path.display()))?;
    let token = token.trim().to_string();
    if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_alphanumeric()) {
        bail!(
            "the API token {} is malformed; delete it and restart the service to make a new one",
            path.display()
        );
    }
    Ok(token)
}

/// 32 random bytes as 64 hex characters: the token, and the page's sessions.
pub fn new_secret() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a secret: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

trait OpenOptionsExt0600 {
    fn mode_0600(&mut self) -> &mut Self;
}

impl OpenOptionsExt0600 for fs::OpenOptions {
    #[cfg(unix)]
    fn mode_0600(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
    #[cfg(not(unix))]
    fn mode_0600(&mut self) -> &mut Self {
        self
    }
}

#[cfg(unix)]
/// Refuses a secret file (`what` names it) that other users can read.
pub fn check_private(path: &Path, what: &str) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(path)
        .with_context(|| format!("cannot read {what} {}", path.display()))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        bail!(
            "{what} {} is readable by others (mode {:o}); run `chmod 600 {}`",
            path.display(),
            mode & 0o777,
            path.display()
        );
    }
    Ok(())
}

#[cfg(not(unix))]
pub fn check_private(_: &Path, _: &str) -> anyhow::Result<()> {
    Ok(())
}

/// Compares in time independent of where the first difference is.
pub fn matches(expected: &str, given: &str) -> bool {
    expected.len() == given.len()
        && expected
            .bytes()
            .zip(given.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests;
