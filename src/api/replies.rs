//! The small answers of the API, typed, so the CLI reads `reply.count` rather than
//! `reply["count"]`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `{"count": n}`: how many notes a bulk operation touched (retry-all, empty the
/// trash), or how many sessions ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Count {
    pub count: u64,
}

/// `POST /api/inbox/trash-expired` → the notes moved to the trash (the page's Undo
/// restores them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrashedExpired {
    pub count: u64,
    pub ids: Vec<String>,
}

/// `POST /api/inbox/keep-expired` → the notes kept, in the same shape.
pub type KeptExpired = TrashedExpired;

/// `POST /api/usage-log/export` → the new export folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportedTo {
    pub path: PathBuf,
}

/// `GET /identity` → the proof that this is the install's inkling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityProof {
    pub proof: String,
}

/// `POST /api/open-code` → a one-time code that opens the inbox page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenCode {
    pub code: String,
    pub expires_in_s: u64,
}

/// `POST /api/notes/import` → how many notes came in, and how many were skipped
/// because a note with their id exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedCount {
    pub imported: u64,
    pub skipped: u64,
}

/// `POST /session` → the page's new session: its id (public: it opens nothing) and its
/// key (hex), which the page imports as a non-extractable WebCrypto key and which never
/// crosses the wire again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionOpened {
    pub session: String,
    pub key: String,
    pub idle_expiry_days: i64,
}

/// `GET /session/proof` → the service's proof for the page's nonce, and a challenge
/// for the page to answer (`crate::page_proof`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionProof {
    pub proof: String,
    pub challenge: String,
}

/// `POST /session/access` → the bearer for this run of the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionAccess {
    pub access: String,
}

/// Any refusal (a 4xx or 5xx answer): what went wrong, in words for the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub error: String,
}

impl Refusal {
    pub fn new(error: impl Into<String>) -> Self {
        Refusal {
            error: error.into(),
        }
    }
}

/// A tag and how many active notes have it (`GET /api/tags`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagCount {
    pub tag: String,
    pub count: u64,
}

/// What a tag rename did (`POST /api/tags/rename`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TagRenamed {
    /// The tag's name now.
    pub tag: String,
    /// How many notes changed.
    pub notes: u64,
    /// The new name was in use already: the two tags are one now.
    pub merged: bool,
}
