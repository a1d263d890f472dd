//! The inbox page's sessions: what a browser holds instead of a key to everything.
//!
//! The page used to be signed in by a cookie whose value was a permanent secret of the
//! install, and browsers send the cookies of 127.0.0.1 to *every* port of it: any other
//! local web server the browser visited received a credential for the whole API. Now:
//!
//! - a session is a fresh random secret (`POST /session` makes one, in exchange for a
//!   one-time code or the token), one per signed-in page;
//! - the page keeps it in `localStorage`, which the browser keeps per origin (scheme,
//!   host *and port*), and sends it as `Authorization: Bearer …`, never as a cookie, so
//!   no other port's page or server ever sees it;
//! - it ends after [`IDLE_EXPIRY`] without use, and `inkling logout --all` ends every one;
//! - the service keeps only each session's SHA-256 in `<data_dir>/sessions` (0600,
//!   written whole or not at all), so a page stays signed in across a restart of the
//!   browser or of the service, and the file alone opens nothing.
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
    /// SHA-256 of each session's secret (hex) → its dates.
    sessions: HashMap<String, Session>,
}

/// The sessions of the install's pages.
#[derive(Debug)]
pub struct Sessions {
    path: PathBuf,
    known: Arc<Mutex<SessionsFile>>,
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
            known: Arc::new(Mutex::new(known)),
            ended: tokio::sync::watch::Sender::new(0),
        };
        let mut known = sessions.lock();
        let before = known.sessions.len();
        known.sessions.retain(|_, session| !expired(session, now));
        if known.sessions.len() != before {
            sessions.save(&known)?;
        }
        drop(known);
        Ok(sessions)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SessionsFile> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn save(&self, known: &SessionsFile) -> anyhow::Result<()> {
        let text = serde_json::to_vec(known).context("cannot encode the sessions")?;
        api_token::write_atomically(&self.path, &text)
            .with_context(|| format!("cannot write the sessions file {}", self.path.display()))
    }

    /// A new session: its secret, for the page to keep. Only its digest is kept here.
    pub fn open(&self, now: DateTime<Utc>) -> anyhow::Result<String> {
        let secret = api_token::new_secret()?;
        let mut known = self.lock();
        known.sessions.insert(
            digest(&secret),
            Session {
                created: now,
                last_used: now,
            },
        );
        self.save(&known)?;
        Ok(secret)
    }

    /// Whether `secret` is a live session; a use is recorded, an expired one ended.
    pub fn check(&self, secret: &str, now: DateTime<Utc>) -> bool {
        let key = digest(secret);
        let mut known = self.lock();
        let Some(session) = known.sessions.get_mut(&key) else {
            return false;
        };
        if expired(session, now) {
            known.sessions.remove(&key);
            self.save_or_log(&known);
            self.ended.send_modify(|n| *n += 1);
            return false;
        }
        let stale = now - session.last_used >= RECORD_USE_EVERY;
        session.last_used = now;
        if stale {
            self.save_or_log(&known);
        }
        true
    }

    /// Ends the session `secret` (a page signing out); whether there was one.
    pub fn end(&self, secret: &str) -> anyhow::Result<bool> {
        let mut known = self.lock();
        let ended = known.sessions.remove(&digest(secret)).is_some();
        if ended {
            self.save(&known)?;
            self.ended.send_modify(|n| *n += 1);
        }
        Ok(ended)
    }

    /// Ends every session (`inkling logout --all`): how many there were.
    pub fn end_all(&self) -> anyhow::Result<usize> {
        let mut known = self.lock();
        let count = known.sessions.len();
        known.sessions.clear();
        self.save(&known)?;
        self.ended.send_modify(|n| *n += 1);
        Ok(count)
    }

    /// Resolves once `secret` is no longer a session (ended, or never one): a live
    /// feed opened with a session ends with it.
    pub fn until_ended(&self, secret: &str) -> impl std::future::Future<Output = ()> + 'static {
        let key = digest(secret);
        let mut ended = self.ended.subscribe();
        let live = move |sessions: &SessionsFile| sessions.sessions.contains_key(&key);
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
        self.lock().sessions.len()
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
mod tests {
    use super::*;

    fn at(day: i64) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
            + Duration::days(day)
    }

    #[test]
    fn a_session_opens_is_checked_and_survives_a_restart_with_only_its_digest_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions");
        let sessions = Sessions::load(&path, at(0)).unwrap();
        let secret = sessions.open(at(0)).unwrap();
        assert_eq!(secret.len(), 64);
        assert!(sessions.check(&secret, at(0)));
        assert!(!sessions.check("not a session", at(0)));
        assert_ne!(sessions.open(at(0)).unwrap(), secret);

        let file = std::fs::read_to_string(&path).unwrap();
        assert!(!file.contains(&secret), "the secret itself is not kept");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let reloaded = Sessions::load(&path, at(1)).unwrap();
        assert!(reloaded.check(&secret, at(1)));
        assert_eq!(reloaded.count(), 2);
    }

    #[test]
    fn a_session_unused_for_thirty_days_ends_and_one_in_use_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions");
        let sessions = Sessions::load(&path, at(0)).unwrap();
        let idle = sessions.open(at(0)).unwrap();
        let used = sessions.open(at(0)).unwrap();
        for day in [10, 20, 29, 40, 55] {
            assert!(sessions.check(&used, at(day)), "day {day}");
        }
        assert!(!sessions.check(&idle, at(30)));
        assert!(!sessions.check(&idle, at(1)), "ended for good");
        // The daily record of use is on disk: a restart keeps the session in use.
        let reloaded = Sessions::load(&path, at(80)).unwrap();
        assert!(reloaded.check(&used, at(80)));
        assert!(Sessions::load(&path, at(200)).unwrap().count() == 0);
    }

    #[test]
    fn one_session_or_all_of_them_can_be_ended() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions");
        let sessions = Sessions::load(&path, at(0)).unwrap();
        let first = sessions.open(at(0)).unwrap();
        let second = sessions.open(at(0)).unwrap();
        let third = sessions.open(at(0)).unwrap();
        assert!(sessions.end(&first).unwrap());
        assert!(!sessions.end(&first).unwrap());
        assert!(!sessions.check(&first, at(0)));
        assert!(sessions.check(&second, at(0)));
        assert_eq!(sessions.end_all().unwrap(), 2);
        assert!(!sessions.check(&third, at(0)));
        assert_eq!(Sessions::load(&path, at(0)).unwrap().count(), 0);
    }

    #[actix_rt::test]
    async fn a_wait_on_a_session_ends_when_the_session_does() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = Sessions::load(&dir.path().join("sessions"), at(0)).unwrap();
        let first = sessions.open(at(0)).unwrap();
        let second = sessions.open(at(0)).unwrap();
        let first_ended = actix_rt::spawn(sessions.until_ended(&first));
        let second_ended = actix_rt::spawn(sessions.until_ended(&second));
        sessions.end(&first).unwrap();
        first_ended.await.unwrap();
        assert!(!second_ended.is_finished());
        sessions.end_all().unwrap();
        second_ended.await.unwrap();
        // Not a session at all: ends at once.
        sessions.until_ended("nothing").await;
    }

    #[test]
    fn a_sessions_file_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions");
        std::fs::write(&path, "{}").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
            let error = Sessions::load(&path, at(0)).unwrap_err().to_string();
            assert!(error.contains("chmod 600"), "{error}");
        }
    }
}
