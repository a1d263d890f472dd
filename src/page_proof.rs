//! How the inbox page and the service prove themselves to each other before the page
//! sends anything that matters: the page's key, the two proofs, and the challenges the
//! service hands out.
//!
//! While inkling is stopped its port is free, and another user's program can listen
//! there. It is the page's *same origin* (scheme, host and port): an open tab's requests
//! go to it, with whatever credential the page sends. So the page holds no bearer at
//! all between runs, only a key, and:
//!
//! 1. it sends a fresh nonce with its session's id (public: it opens nothing) to
//!    `GET /session/proof`; the service answers HMAC-SHA256 of the port and the nonce,
//!    keyed by the page's key, and a challenge of its own;
//! 2. only if that proof is right (checked with WebCrypto) does the page answer the
//!    challenge with HMAC of the port and the challenge, keyed the same, at
//!    `POST /session/access`, and get an access: a bearer that lives only in the
//!    service's memory and the page's, and dies with the service's run, the session,
//!    or the page.
//!
//! The page's key is derived from the install's token and the session's id, so the
//! service keeps no key on disk (`<data_dir>/sessions` holds a digest of each id),
//! and a page cannot make a key of its own. The labels differ in each direction, so
//! the page's answer is never a valid service proof nor the other way round.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::identity::{hex, sign, verify};

/// How long a challenge can be answered (the page answers within a round trip).
pub const CHALLENGE_VALID_FOR: Duration = Duration::from_secs(60);

/// At most this many challenges are waiting for an answer; the oldest goes first. Only
/// the user's own programs can reach the service (`src/http/server/peer.rs`), so this
/// bounds memory, not an attacker.
const MAX_PENDING: usize = 64;

/// The page's key for session `id` (32 bytes), as the page gets it once, as hex, when
/// the session opens.
pub fn page_key(token: &str, id: &str) -> Vec<u8> {
    sign(token.as_bytes(), &format!("inkling page key v1\n{id}"))
}

/// What the service signs: its port and the page's nonce.
fn service_message(port: u16, nonce: &str) -> String {
    format!("inkling service v1\n{port}\n{nonce}")
}

/// What the page signs: the port and the service's challenge.
fn page_message(port: u16, challenge: &str) -> String {
    format!("inkling page v1\n{port}\n{challenge}")
}

/// The service's proof for the page's `nonce` on `port`, as hex.
pub fn service_proof(key: &[u8], port: u16, nonce: &str) -> String {
    hex(&sign(key, &service_message(port, nonce)))
}

/// Whether `proof` is the service's for `nonce` on `port` (what the page checks; here
/// for the tests and for anything else that speaks for a page).
pub fn is_service_proof(key: &[u8], port: u16, nonce: &str, proof: &str) -> bool {
    verify(key, &service_message(port, nonce), proof)
}

/// The page's answer to `challenge` on `port`, as hex.
pub fn page_answer(key: &[u8], port: u16, challenge: &str) -> String {
    hex(&sign(key, &page_message(port, challenge)))
}

/// Whether `answer` is the page's to `challenge` on `port` (compared in constant time).
pub fn is_page_answer(key: &[u8], port: u16, challenge: &str, answer: &str) -> bool {
    verify(key, &page_message(port, challenge), answer)
}

/// The challenges handed out with a proof and not answered yet: each names its session,
/// works once, and only within [`CHALLENGE_VALID_FOR`].
#[derive(Debug, Default)]
pub struct Challenges {
    pending: Mutex<HashMap<String, (String, Instant)>>,
}

impl Challenges {
    /// A fresh challenge for the session `id`.
    pub fn issue(&self, id: &str, now: Instant) -> anyhow::Result<String> {
        let challenge = crate::identity::new_nonce()?;
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.retain(|_, (_, at)| now.duration_since(*at) <= CHALLENGE_VALID_FOR);
        while pending.len() >= MAX_PENDING {
            let oldest = pending
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(challenge, _)| challenge.clone());
            match oldest {
                Some(oldest) => pending.remove(&oldest),
                None => break,
            };
        }
        pending.insert(challenge.clone(), (id.to_owned(), now));
        Ok(challenge)
    }

    /// Takes `challenge` if it was issued for session `id` and is still good: true once.
    /// A challenge given with another session's id is used up all the same.
    pub fn take(&self, challenge: &str, id: &str, now: Instant) -> bool {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.remove(challenge).is_some_and(|(issued_to, at)| {
            issued_to == id && now.duration_since(at) <= CHALLENGE_VALID_FOR
        })
    }
}

#[cfg(test)]
mod tests;
