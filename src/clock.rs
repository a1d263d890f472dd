//! Injectable wall-clock time.
//!
//! Timestamps written to the database come from a [`Clock`], never from `Utc::now()`
//! directly, so tests can put "now" anywhere (expiry, trash retention) without waiting.
//! Timers (backoffs) use tokio's clock, which tests pause and advance; [`TokioClock`]
//! keeps timestamps in step with it.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, Utc};

/// A source of "now".
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that stands still until told to move (tests).
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        ManualClock(Arc::new(Mutex::new(at)))
    }

    pub fn set(&self, at: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = at;
    }

    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The clock as the actors and routes share it.
pub type SharedClock = Arc<dyn Clock>;

/// Wall-clock time that follows tokio's clock from a fixed start: under a paused test
/// runtime, `tokio::time::advance` moves timers and timestamps together, so a test can
/// let a day of outages pass in milliseconds and still read consistent times.
#[derive(Debug, Clone, Copy)]
pub struct TokioClock {
    start_wall: DateTime<Utc>,
    start: actix_rt::time::Instant,
}

impl TokioClock {
    /// Must be created inside the runtime whose clock it follows.
    pub fn starting_at(start_wall: DateTime<Utc>) -> Self {
        TokioClock {
            start_wall,
            start: actix_rt::time::Instant::now(),
        }
    }
}

impl Clock for TokioClock {
    fn now(&self) -> DateTime<Utc> {
        let elapsed = actix_rt::time::Instant::now().duration_since(self.start);
        self.start_wall + chrono::Duration::from_std(elapsed).unwrap_or(chrono::Duration::MAX)
    }
}
