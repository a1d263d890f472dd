//! Paired devices: credentials that can capture and nothing else (the web clipper, any
//! future device), and the pairing codes they are traded for.
//!
//! Why not hand an extension the API token: the token opens every route (read, search,
//! export, delete), and an extension lives in a browser full of pages. A device's token
//! is scoped to capture (`crate::api::devices::Scope`), named, listed by `inkling
//! sessions` and revoked one at a time, so losing it costs at most some unwanted notes.
//!
//! - `inkling pair` mints a pairing code (`mint_code`): eight letters and digits, good
//!   for [`CODE_VALID_FOR`], one use, and void after [`CODE_TRIES`] wrong guesses (so
//!   guessing it is hopeless: five tries at one in 30⁸). A new code replaces the one
//!   waiting.
//! - The extension trades it (`pair`) for a token, shown once; the service keeps only
//!   its SHA-256 in `<data_dir>/devices` (0600, written whole or not at all, like the
//!   sessions), so the file alone opens nothing.
//!
//! Each decision takes its time as an argument (the monotonic clock for a code's life,
//! the wall clock for the dates shown), so expiry is tested by moving a clock.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api::devices::{DeviceView, Paired, PairingCode, Scope};
use crate::api_token;

/// How long a pairing code can be traded.
pub const CODE_VALID_FOR: Duration = Duration::from_secs(5 * 60);
/// Wrong codes tried before the waiting code is void.
pub const CODE_TRIES: u32 = 5;
/// The longest device name.
pub const NAME_MAX_CHARS: usize = 80;
/// At most this many paired devices (the file stays small; revoke one to add one).
pub const MAX_DEVICES: usize = 32;

/// The code's letters: no 0/O, 1/I/L or U, which read alike.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTVWXYZ23456789";
const CODE_LEN: usize = 8;

/// A use is written to the file at most once a day.
const RECORD_USE_EVERY: chrono::Duration = chrono::Duration::days(1);

/// Why a pairing was refused (nothing was paired).
#[derive(Debug, thiserror::Error)]
pub enum PairError {
    #[error("no pairing code is waiting: run `inkling pair` and enter the code it shows")]
    NoCode,
    #[error("the pairing code has expired: run `inkling pair` again for a new one")]
    Expired,
    #[error("wrong pairing code: check it against what `inkling pair` shows ({left} tries left)")]
    Wrong { left: u32 },
    #[error("too many wrong pairing codes: that code no longer works; run `inkling pair` again")]
    TooManyTries,
    #[error("{0}")]
    BadName(String),
    #[error(
        "{MAX_DEVICES} devices are paired already: revoke one with `inkling sessions revoke ID`"
    )]
    TooManyDevices,
    #[error(transparent)]
    Unexpected(#[from] anyhow::Error),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
struct Device {
    id: String,
    name: String,
    scope: Scope,
    paired_at: DateTime<Utc>,
    last_used: DateTime<Utc>,
}

/// What is written to the file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct DevicesFile {
    /// SHA-256 of each device's token (hex) → the device.
    #[serde(default)]
    devices: HashMap<String, Device>,
}

/// The code waiting to be traded.
#[derive(Debug)]
struct Waiting {
    /// Upper case, without the dash.
    code: String,
    minted: Duration,
    wrong: u32,
}

#[derive(Debug, Default)]
struct Held {
    file: DevicesFile,
    waiting: Option<Waiting>,
}

/// The install's paired devices and its waiting pairing code.
#[derive(Debug)]
pub struct Devices {
    path: PathBuf,
    held: Mutex<Held>,
}

fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A code as typed (`abcd-efgh`, `ABCD EFGH`) in the form it is kept.
fn normalise(code: &str) -> String {
    code.chars()
        .filter(|c| !matches!(c, '-' | ' ' | '\t'))
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// A device's name on one line, or why not.
pub fn checked_name(name: &str) -> Result<String, PairError> {
    let name: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if name.is_empty() {
        return Err(PairError::BadName(
            "a paired device needs a name (for example \"Chromium clipper\")".into(),
        ));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(PairError::BadName(format!(
            "a device's name is at most {NAME_MAX_CHARS} characters"
        )));
    }
    Ok(name)
}

impl Devices {
    /// The devices kept in `path` (none if it does not exist yet). A file other users
    /// can read is refused, like the token.
    pub fn load(path: &Path) -> anyhow::Result<Devices> {
        let mut file = DevicesFile::default();
        if path.exists() {
            api_token::check_private(path, "the paired devices file")?;
            let text = std::fs::read_to_string(path).with_context(|| {
                format!("cannot read the paired devices file {}", path.display())
            })?;
            match serde_json::from_str::<DevicesFile>(&text) {
                Ok(read) => file = read,
                // Losing them unpairs the devices; nothing else is at stake.
                Err(e) => tracing::warn!(path = %path.display(), error = %e,
                    "the paired devices file is unreadable; every device must be paired again"),
            }
        }
        Ok(Devices {
            path: path.to_path_buf(),
            held: Mutex::new(Held {
                file,
                waiting: None,
            }),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn save(&self, file: &DevicesFile) -> anyhow::Result<()> {
        let text = serde_json::to_vec(file).context("cannot encode the paired devices")?;
        api_token::write_atomically(&self.path, &text).with_context(|| {
            format!(
                "cannot write the paired devices file {}",
                self.path.display()
            )
        })
    }

    /// A new pairing code, good for [`CODE_VALID_FOR`] from `now` (monotonic); the
    /// code waiting before it, if any, no longer works.
    pub fn mint_code(&self, now: Duration) -> anyhow::Result<PairingCode> {
        let mut bytes = [0u8; CODE_LEN];
        getrandom::fill(&mut bytes)
            .map_err(|e| anyhow::anyhow!("no randomness for a pairing code: {e}"))?;
        // 256 is not a multiple of 30: a tiny bias, of no weight against five tries.
        let code: String = bytes
            .iter()
            .map(|b| CODE_ALPHABET[usize::from(*b) % CODE_ALPHABET.len()] as char)
            .collect();
        self.lock().waiting = Some(Waiting {
            code: code.clone(),
            minted: now,
            wrong: 0,
        });
        Ok(PairingCode {
            code: format!("{}-{}", &code[..4], &code[4..]),
            expires_in_s: CODE_VALID_FOR.as_secs(),
        })
    }

    /// Trades the waiting code for a capture-only device named `name`: its token,
    /// shown this once. `now` is the monotonic clock (the code's life), `wall` the date
    /// recorded.
    pub fn pair(
        &self,
        code: &str,
        name: &str,
        now: Duration,
        wall: DateTime<Utc>,
    ) -> Result<Paired, PairError> {
        let name = checked_name(name)?;
        let mut held = self.lock();
        let waiting = held.waiting.as_mut().ok_or(PairError::NoCode)?;
        if now.saturating_sub(waiting.minted) > CODE_VALID_FOR {
            held.waiting = None;
            return Err(PairError::Expired);
        }
        if !api_token::matches(&waiting.code, &normalise(code)) {
            waiting.wrong += 1;
            if waiting.wrong >= CODE_TRIES {
                held.waiting = None;
                return Err(PairError::TooManyTries);
            }
            return Err(PairError::Wrong {
                left: CODE_TRIES - waiting.wrong,
            });
        }
        if held.file.devices.len() >= MAX_DEVICES {
            return Err(PairError::TooManyDevices);
        }
        let token = api_token::new_secret()?;
        let id = api_token::new_secret()?[..8].to_owned();
        let device = Device {
            id: id.clone(),
            name: name.clone(),
            scope: Scope::Capture,
            paired_at: wall,
            last_used: wall,
        };
        held.file.devices.insert(digest(&token), device);
        if let Err(e) = self.save(&held.file) {
            held.file.devices.remove(&digest(&token));
            return Err(e.into());
        }
        // Used: the code pairs one device only.
        held.waiting = None;
        Ok(Paired {
            id,
            name,
            token,
            scope: Scope::Capture,
        })
    }

    /// The device `token` belongs to, its id and scope; a use is recorded (on disk at
    /// most once a day).
    pub fn check(&self, token: &str, now: DateTime<Utc>) -> Option<(String, Scope)> {
        let mut held = self.lock();
        let device = held.file.devices.get_mut(&digest(token))?;
        let found = (device.id.clone(), device.scope);
        let stale = now - device.last_used >= RECORD_USE_EVERY;
        device.last_used = now;
        if stale {
            if let Err(e) = self.save(&held.file) {
                tracing::warn!(error = %format!("{e:#}"), "cannot record a device's use");
            }
        }
        Some(found)
    }

    /// The paired devices, oldest first.
    pub fn list(&self) -> Vec<DeviceView> {
        let mut devices: Vec<DeviceView> = self
            .lock()
            .file
            .devices
            .values()
            .map(|d| DeviceView {
                id: d.id.clone(),
                name: d.name.clone(),
                scope: d.scope,
                paired_at: d.paired_at,
                last_used: d.last_used,
            })
            .collect();
        devices.sort_by(|a, b| a.paired_at.cmp(&b.paired_at).then(a.id.cmp(&b.id)));
        devices
    }

    /// Unpairs the device `id`: its token opens nothing from now on. Whether there was
    /// one.
    pub fn revoke(&self, id: &str) -> anyhow::Result<bool> {
        let mut held = self.lock();
        let Some(key) = held
            .file
            .devices
            .iter()
            .find(|(_, d)| d.id == id.trim())
            .map(|(k, _)| k.clone())
        else {
            return Ok(false);
        };
        let removed = held.file.devices.remove(&key);
        if let Err(e) = self.save(&held.file) {
            // Not revoked on disk: not revoked at all, rather than back after a restart.
            if let Some(device) = removed {
                held.file.devices.insert(key, device);
            }
            return Err(e);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
