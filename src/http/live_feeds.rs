//! `LiveFeeds`: how many live feeds (`GET /api/events`, `routes/live.rs`) are open, and
//! their cap. In a file of its own because `AppState` holds it and the live route reads
//! `AppState`: beside both, it lets neither import the other's module.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Live feeds open at once, at most: many tabs, far below the connection cap.
pub const MAX_LIVE_FEEDS: usize = 32;

/// How many live feeds are open.
#[derive(Debug, Default, Clone)]
pub struct LiveFeeds {
    open: Arc<AtomicUsize>,
}

/// One open feed, counted until dropped (with its stream, when the connection ends).
pub(crate) struct OpenFeed(Arc<AtomicUsize>);

impl Drop for OpenFeed {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl LiveFeeds {
    /// Counts a new feed in, or `None` at the cap.
    pub(crate) fn open(&self) -> Option<OpenFeed> {
        self.open
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |open| {
                (open < MAX_LIVE_FEEDS).then_some(open + 1)
            })
            .ok()
            .map(|_| OpenFeed(Arc::clone(&self.open)))
    }

    /// Feeds open now.
    pub fn count(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }
}
