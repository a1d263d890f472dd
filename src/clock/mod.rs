//! Injectable wall-clock time.
//!
//! Timestamps written to the database come from a [`Clock`], never from `Utc::now()`
//! directly, so tests can put "now" anywhere (expiry, trash retention) without waiting.
//! Timers (backoffs) use tokio's clock, which tests pause and advance; [`TokioClock`]
//! keeps timestamps in step with it.
//!
//! Each clock also gives a monotonic reading (it never jumps; it counts a suspended
//! machine's sleep), against which [`confirmed::ConfirmedClock`] tells a wall clock
//! that jumped ahead from one that moved with time.

pub mod confirmed;
mod wall;

pub use confirmed::{ConfirmedClock, JumpRule};
pub use wall::{Clock, ManualClock, SharedClock, SystemClock, TokioClock};
