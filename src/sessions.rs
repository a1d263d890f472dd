//! The inbox page's sessions: what a browser holds instead of a key to everything.
//!
//! Why not a cookie or a stored bearer: browsers send the cookies of 127.0.0.1 to
//! *every* port of it, so any other local web server the browser visited would receive
//! a credential for the whole API; and a bearer in `localStorage` is sent by an open
//! tab to whatever listens on the port while inkling is stopped (another user's
//! program would get it, and it would still work after inkling restarted). So:
//!
//! - a session is a random id (`POST /session` opens one, in exchange for a one-time
//!   code or the token) and a key derived from it and the token
//!   (`crate::page_proof::page_key`), which the page keeps as a non-extractable
//!   WebCrypto key; the id alone opens nothing;
//! - the page trades proofs with the service for an *access* (`grant_access`): a bearer
//!   kept only in memory here and in the page, which ends with the service's run, with
//!   its session, and which the page drops whenever a connection is lost;
//! - a session ends after [`IDLE_EXPIRY`] without use, and `inkling logout --all` ends
//!   every one, their accesses and live feeds with them;
//! - the service keeps only each id's SHA-256 in `<data_dir>/sessions` (0600, written
//!   whole or not at all), so a page stays signed in across a restart of the browser or
//!   of the service, and the file alone opens nothing.
//!
//! Each decision takes `now`, so expiry is tested with a moved clock.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::api_token;

/// A session unused for this long is ended.
pub const IDLE_EXPIRY: Duration = Duration::days(30);

/// How stale a session's recorded last use may get before it is written again (so
/// that a page in daily use costs one small write a day, not one per request).
const RECORD_USE_EVERY: Duration = Duration::days(1);

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
struct Session {
    created: DateTime<Utc>,
    last_used: DateTime<Utc>,
}

/// What is written to the file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SessionsFile {
    #[serde(default)]
    /// SHA-256 of each session's id (hex) → its dates.
    sessions: HashMap<String, Session>,
}

/// At most this many accesses per session (its tabs, and each one's reconnections);
/// the oldest goes first.
const ACCESSES_PER_SESSION: usize = 16;

/// An access handed to a page that proved its key: for this run of the service only.
#[derive(Debug, Clone)]
struct Access {
    /// The session's digest (a key of `SessionsFile::sessions`).
    session: String,
    granted: DateTime<Utc>,
    /// Breaks ties between accesses granted in the same instant.
    order: u64,
}

/// The sessions (as on disk) and the accesses (memory only).
#[derive(Debug, Default)]
struct Held {
    file: SessionsFile,
    /// SHA-256 of each access (hex) → its grant.
    accesses: HashMap<String, Access>,
    granted: u64,
}

impl Held {
    /// Forgets the accesses of sessions that no longer exist.
    fn drop_orphan_accesses(&mut self) {
        let sessions = &self.file.sessions;
        self.accesses
            .retain(|_, access| sessions.contains_key(&access.session));
    }
}

/// The sessions of the install's pages.
#[derive(Debug)]
pub struct Sessions {
    path: PathBuf,
    known: Arc<Mutex<Held>>,
    /// Bumped whenever sessions end, so that a live feed opened with one ends with it.
    ended: tokio::sync::watch::Sender<u64>,
}

fn digest(secret: &str) -> String {
    Sha256::digest(secret.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Sessions {
    /// The sessions kept in `path` (none if it does not exist yet), the expired ones
    /// dropped. A file other users can read is refused, like the token.
    pub fn load(path: &Path, now: DateTime<Utc>) -> anyhow::Result<Sessions> {
        let mut known = SessionsFile::default();
        if path.exists() {
            api_token::check_private(path, "the sessions file")?;
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the sessions file {}", path.display()))?;
            match serde_json::from_str::<SessionsFile>(&text) {
                Ok(read) => known = read,
                // Losing the sessions signs the pages out; nothing else is at stake.
                Err(e) => tracing::warn!(path = %path.display(), error = %e,
                    "the sessions file is unreadable; every page must be opened again"),
            }
        }
        let sessions = Sessions {
            path: path.to_path_buf(),
            known: Arc::new(Mutex::new(Held {
                file: known,
                ..Held::default()
            })),
            ended: tokio::sync::watch::Sender::new(0),
        };
        let mut held = sessions.lock();
        let before = held.file.sessions.len();
        held.file
            .sessions
            .retain(|_, session| !expired(session, now));
        if held.file.sessions.len() != before {
            sessions.save(&held.file)?;
        }
        drop(held);
        Ok(sessions)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn save(&self, known: &SessionsFile) -> anyhow::Result<()> {
        let text = serde_json::to_vec(known).context("cannot encode the sessions")?;
        api_token::write_atomically(&self.path, &text)
            .with_context(|| format!("cannot write the sessions file {}", self.path.display()))
    }

    /// A new session: its id, for the page to keep (with the key derived from it).
    /// Only its digest is kept here.
    pub fn open(&self, now: DateTime<Utc>) -> anyhow::Result<String> {
        let id = api_token::new_secret()?;
        let mut held = self.lock();
        held.file.sessions.insert(
            digest(&id),
            Session {
                created: now,
                last_used: now,
            },
        );
        self.save(&held.file)?;
        Ok(id)
    }

    /// Whether `id` is a live session; a use is recorded, an expired one ended.
    pub fn check(&self, id: &str, now: DateTime<Utc>) -> bool {
        self.check_digest(&digest(id), now)
    }

    fn check_digest(&self, key: &str, now: DateTime<Utc>) -> bool {
        let mut held = self.lock();
        let Some(session) = held.file.sessions.get_mut(key) else {
            return false;
        };
        if expired(session, now) {
            held.file.sessions.remove(key);
            held.drop_orphan_accesses();
            self.save_or_log(&held.file);
            self.ended.send_modify(|n| *n += 1);
            return false;
        }
        let stale = now - session.last_used >= RECORD_USE_EVERY;
        session.last_used = now;
        if stale {
            self.save_or_log(&held.file);
        }
        true
    }

    /// A new access for the live session `id` (whose page has just proved its key), or
    /// None when there is no such session. It is kept only in memory, as a digest.
    pub fn grant_access(&self, id: &str, now: DateTime<Utc>) -> anyhow::Result<Option<String>> {
        let session = digest(id);
        if !self.check_digest(&session, now) {
            return Ok(None);
        }
        let access = api_token::new_secret()?;
        let mut held = self.lock();
        held.granted += 1;
        let order = held.granted;
        held.accesses.insert(
            digest(&access),
            Access {
                session: session.clone(),
                granted: now,
                order,
            },
        );
        let mut of_this_session: Vec<(String, (DateTime<Utc>, u64))> = held
            .accesses
            .iter()
            .filter(|(_, a)| a.session == session)
            .map(|(k, a)| (k.clone(), (a.granted, a.order)))
            .collect();
        if of_this_session.len() > ACCESSES_PER_SESSION {
            of_this_session.sort_by_key(|(_, when)| *when);
            let surplus = of_this_session.len() - ACCESSES_PER_SESSION;
            for (key, _) in of_this_session.into_iter().take(surplus) {
                held.accesses.remove(&key);
            }
            self.ended.send_modify(|n| *n += 1);
        }
        Ok(Some(access))
    }

    /// Whether `access` was granted in this run to a session that is still live; a use
    /// of the session is recorded.
    pub fn check_access(&self, access: &str, now: DateTime<Utc>) -> bool {
        let session = match self.lock().accesses.get(&digest(access)) {
            Some(granted) => granted.session.clone(),
            None => return false,
        };
        self.check_digest(&session, now)
    }

    /// Ends the session that `access` belongs to (a page signing out); whether there
    /// was one.
    pub fn end_by_access(&self, access: &str) -> anyhow::Result<bool> {
        let session = match self.lock().accesses.get(&digest(access)) {
            Some(granted) => granted.session.clone(),
            None => return Ok(false),
        };
        self.end_digest(&session)
    }

    /// Ends the session `id` (its page was opened again and holds a new one); whether
    /// there was one.
    pub fn end(&self, id: &str) -> anyhow::Result<bool> {
        self.end_digest(&digest(id))
    }

    fn end_digest(&self, key: &str) -> anyhow::Result<bool> {
        let mut held = self.lock();
        let ended = held.file.sessions.remove(key).is_some();
        if ended {
            held.drop_orphan_accesses();
            self.save(&held.file)?;
            self.ended.send_modify(|n| *n += 1);
        }
        Ok(ended)
    }

    /// Ends every session (`inkling logout --all`): how many there were.
    pub fn end_all(&self) -> anyhow::Result<usize> {
        let mut held = self.lock();
        let count = held.file.sessions.len();
        held.file.sessions.clear();
        held.accesses.clear();
        self.save(&held.file)?;
        self.ended.send_modify(|n| *n += 1);
        Ok(count)
    }

    /// Resolves once `access` no longer opens anything (its session ended, or it was
    /// never one): a live feed opened with an access ends with it.
    pub fn until_ended(&self, access: &str) -> impl std::future::Future<Output = ()> + 'static {
        let key = digest(access);
        let mut ended = self.ended.subscribe();
        let live = move |held: &Held| held.accesses.contains_key(&key);
        let known = Arc::clone(&self.known);
        async move {
            loop {
                if !live(&known.lock().unwrap_or_else(|p| p.into_inner())) {
                    return;
                }
                if ended.changed().await.is_err() {
                    return;
                }
            }
        }
    }

    /// Sessions open now.
    pub fn count(&self) -> usize {
        self.lock().file.sessions.len()
    }

    /// A use is recorded in memory in any case; the file catches up with the next write.
    fn save_or_log(&self, known: &SessionsFile) {
        if let Err(e) = self.save(known) {
            tracing::warn!(error = %format!("{e:#}"), "cannot record a session's use");
        }
    }
}

fn expired(session: &Session, now: DateTime<Utc>) -> bool {
    now - session.last_used >= IDLE_EXPIRY
}

#[cfg(test)]
mod tests;
