//! The clocks: the `Clock` trait (wall and monotonic readings), the real one, and the
//! two that tests drive.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};

/// A source of "now".
pub trait Clock: Send + Sync + 'static {
    /// The wall clock: what the machine says the time is (it can be set, and jump).
    fn now(&self) -> DateTime<Utc>;
    /// Time since a fixed point, which moves only forward, with time (a suspended
    /// machine's sleep included): the measure a wall clock's jump is told by.
    fn monotonic(&self) -> Duration;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }

    /// `CLOCK_BOOTTIME`: Linux's `CLOCK_MONOTONIC` (std's `Instant`) stops while the
    /// machine sleeps, so a laptop woken after a night would read as a clock that
    /// jumped a night ahead.
    fn monotonic(&self) -> Duration {
        #[cfg(target_os = "linux")]
        const WHICH: libc::clockid_t = libc::CLOCK_BOOTTIME;
        #[cfg(not(target_os = "linux"))]
        const WHICH: libc::clockid_t = libc::CLOCK_MONOTONIC;
        let mut at = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `at` is a valid timespec to write; the clock id is a constant the
        // platform has. It cannot fail for these ids; if it did, `at` stays zero.
        unsafe {
            libc::clock_gettime(WHICH, &mut at);
        }
        Duration::new(
            u64::try_from(at.tv_sec).unwrap_or(0),
            u32::try_from(at.tv_nsec).unwrap_or(0),
        )
    }
}

/// A clock that stands still until told to move (tests): [`ManualClock::advance`] is
/// time passing (wall and monotonic together), [`ManualClock::set`] and
/// [`ManualClock::jump`] a wall clock set by hand (the monotonic one stays).
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<(DateTime<Utc>, Duration)>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        ManualClock(Arc::new(Mutex::new((at, Duration::ZERO))))
    }

    /// The wall clock set to `at`, as `date -s` does: no time passes.
    pub fn set(&self, at: DateTime<Utc>) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0 = at;
    }

    /// The wall clock moved by `by` (either way), no time passing.
    pub fn jump(&self, by: chrono::Duration) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0 += by;
    }

    /// `by` passes: both clocks move.
    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self.0.lock().unwrap_or_else(|p| p.into_inner());
        now.0 += by;
        now.1 += by.to_std().unwrap_or_default();
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0
    }

    fn monotonic(&self) -> Duration {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).1
    }
}

/// The clock as the actors and routes share it.
pub type SharedClock = Arc<dyn Clock>;

/// Wall-clock time that follows tokio's clock from a fixed start: under a paused test
/// runtime, `tokio::time::advance` moves timers and timestamps together, so a test can
/// let a day of outages pass in milliseconds and still read consistent times. Its
/// monotonic reading is tokio's time since the start; [`TokioClock::jump`] moves the
/// wall clock alone, as a clock set wrong does.
#[derive(Debug, Clone)]
pub struct TokioClock {
    start_wall: DateTime<Utc>,
    start: actix_rt::time::Instant,
    /// How far the wall clock has been set away from tokio's.
    jumped: Arc<Mutex<chrono::Duration>>,
}

impl TokioClock {
    /// Must be created inside the runtime whose clock it follows.
    pub fn starting_at(start_wall: DateTime<Utc>) -> Self {
        TokioClock {
            start_wall,
            start: actix_rt::time::Instant::now(),
            jumped: Arc::new(Mutex::new(chrono::Duration::zero())),
        }
    }

    /// The wall clock moved by `by` (either way), no time passing; every clone sees it.
    pub fn jump(&self, by: chrono::Duration) {
        *self.jumped.lock().unwrap_or_else(|p| p.into_inner()) += by;
    }
}

impl Clock for TokioClock {
    fn now(&self) -> DateTime<Utc> {
        let jumped = *self.jumped.lock().unwrap_or_else(|p| p.into_inner());
        self.start_wall
            + chrono::Duration::from_std(self.monotonic()).unwrap_or(chrono::Duration::MAX)
            + jumped
    }

    fn monotonic(&self) -> Duration {
        actix_rt::time::Instant::now().duration_since(self.start)
    }
}
