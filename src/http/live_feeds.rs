//! `LiveFeeds`: how many long-lived streams are open, and their cap: the live feeds
//! (`GET /api/events`, `routes/live.rs`) and the answers being streamed
//! (`POST /api/ask`, `routes/ask.rs`), each of which holds its connection for as long
//! as it lasts. In a file of its own because `AppState` holds it and the routes read
//! `AppState`: beside them, it lets none import another's module.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, ResponseError};

use crate::http::error::ApiError;
use crate::http::server::connection::Connection;

/// Live feeds and streaming answers open at once, at most: many tabs, far below the
/// connection cap.
pub const MAX_LIVE_FEEDS: usize = 32;

/// How many live feeds and streaming answers are open.
#[derive(Debug, Default, Clone)]
pub struct LiveFeeds {
    open: Arc<AtomicUsize>,
}

/// One open feed or answer, counted until dropped (with its stream, when the connection
/// ends).
pub(crate) struct OpenFeed(Arc<AtomicUsize>);

impl Drop for OpenFeed {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl LiveFeeds {
    /// Counts a new feed or answer in, or `None` at the cap.
    pub(crate) fn open(&self) -> Option<OpenFeed> {
        self.open
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |open| {
                (open < MAX_LIVE_FEEDS).then_some(open + 1)
            })
            .ok()
            .map(|_| OpenFeed(Arc::clone(&self.open)))
    }

    /// Feeds and answers open now.
    pub fn count(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }
}

/// The refusal at the cap: 503 with the reason, and the connection closed after it.
pub(crate) fn refusal(request: &HttpRequest) -> HttpResponse {
    if let Some(connection) = request.conn_data::<Connection>() {
        connection.close_after_response();
    }
    let mut refusal = ApiError::Unavailable(format!(
        "{MAX_LIVE_FEEDS} live feeds and answers are streaming already; close some inbox \
         tabs, or wait for an answer to end"
    ))
    .error_response();
    refusal
        .head_mut()
        .set_connection_type(actix_web::http::ConnectionType::Close);
    refusal
}
