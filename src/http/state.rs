//! `AppState`: what every route can reach (the service's addresses, the clock, the
//! limits and settings the answers need, the server and the open live feeds). In a
//! file of its own so that the routes and the credential check use it beside them,
//! not from `http/mod.rs` above them.

use crate::clock::SharedClock;
use crate::http::live_feeds::LiveFeeds;
use crate::http::server::ServerHandle;
use crate::services::Services;

/// What every route can reach.
pub struct AppState {
    pub services: Services,
    pub clock: SharedClock,
    /// Largest note body, in bytes (`http.max_body_bytes`).
    pub max_body_bytes: usize,
    /// `worker.max_attempts`: a note's detail says how many tries it has used of these.
    pub max_attempts: u32,
    /// The language of the inbox page.
    pub locale: crate::configuration::Locale,
    /// Whether notes expire and after how many days: the page tells an expired note from
    /// one that is not.
    pub expiry: crate::expiry::Expiry,
    /// The kind of model server configured, and its model (`/api/status`).
    pub model_server: crate::api::provider::ModelServer,
    pub model: String,
    /// The model of the notes' vectors (a server's, or the built-in embedder), if any.
    pub embedding_model: Option<String>,
    /// The port the service listens on (its identity proof covers it).
    pub port: u16,
    /// The server serving these routes: long responses end when it stops.
    pub server: ServerHandle,
    /// The live feeds open now (capped).
    pub live_feeds: LiveFeeds,
}

impl AppState {
    /// A note as the answers carry it: with its expiry facts as of now.
    pub fn note_view(&self, note: crate::domain::Note) -> crate::api::notes::NoteView {
        crate::api::notes::NoteView::new(note, self.expiry.active_days(), self.clock.now())
    }
}
