//! The confirmed clock: "now" as far as the wall clock can be trusted.
//!
//! A wall clock can jump: set by hand, a bad time server, a virtual machine restored.
//! A transient jump ahead once purged the trash for good (a note trashed a minute
//! earlier was "older than 30 days") and dated new notes 400 days ahead, where they
//! stayed on top. So every reading of the wall clock is compared with the monotonic
//! clock since the last reading it confirmed ([`Confirmation::read`], a plain function
//! of the two readings):
//!
//! - in step (within [`JumpRule::tolerance`] of the last confirmed reading plus the
//!   monotonic time since), or behind it (a clock set back only ever makes purges do
//!   less), the wall clock is "now";
//! - ahead of that by more than the tolerance, it is not trusted yet: "now" is the last
//!   confirmed reading plus the monotonic time since, until the wall clock has stayed
//!   that far ahead for [`JumpRule::hold`] (measured on the monotonic clock); then the
//!   jump is confirmed. A jump that goes away before is never acted on.
//!
//! At start there is no earlier reading: the wall clock is compared with the newest
//! time the database holds instead. Far past it (the service was stopped for a while,
//! or the clock jumped while it was stopped) the reading dates captures, having
//! nothing better, but purges wait until it has held for [`JumpRule::hold`]
//! ([`Confirmed::settled`]).
//!
//! Captures, edits and the expiry's "now" read [`ConfirmedClock`] as any clock (so a
//! capture's time is never later than "now" as confirmed); the hourly purge asks
//! [`ConfirmedClock::settled_now`] and skips a purge while a jump waits.

use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::wall::{Clock, SharedClock};

/// How far ahead the wall clock may move without question, and how long a larger jump
/// must hold before it is believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JumpRule {
    /// Small steps (a time server's correction) are taken as they come: a purge counts
    /// in days, and a capture dated two minutes off is still in its place.
    pub tolerance: chrono::Duration,
    /// A jump that stays this long (monotonic time) is the new time. Ten minutes: time
    /// servers correct a wrong clock within minutes, and a note captured meanwhile is
    /// dated by the clock as it was, carried on, rather than by the jump.
    pub hold: Duration,
}

impl Default for JumpRule {
    fn default() -> Self {
        JumpRule {
            tolerance: chrono::Duration::minutes(2),
            hold: Duration::from_secs(10 * 60),
        }
    }
}

/// One reading of both clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Reading {
    wall: DateTime<Utc>,
    monotonic: Duration,
}

/// A jump ahead seen and not confirmed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ahead {
    /// When it was first seen (monotonic).
    since: Duration,
    /// How far ahead of the carried-on clock the wall clock was then.
    by: chrono::Duration,
}

/// What a reading gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confirmed {
    /// "Now", as confirmed: never later than the carried-on clock plus the tolerance
    /// while a jump waits.
    pub now: DateTime<Utc>,
    /// Whether a purge may act on `now`: no jump waiting, and the start's reading held.
    pub settled: bool,
    /// What changed with this reading, to say in the log.
    pub change: Option<ClockChange>,
}

/// A change worth a line in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockChange {
    /// The wall clock jumped ahead by this much; not trusted yet.
    JumpedAhead(chrono::Duration),
    /// A jump ahead held for the rule's hold: the wall clock is "now" again.
    JumpConfirmed(chrono::Duration),
    /// A jump ahead went away before it was confirmed; nothing acted on it.
    JumpWentAway,
}

/// The state of the confirmed clock, as plain data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirmation {
    rule: JumpRule,
    /// The last reading trusted.
    anchor: Reading,
    ahead: Option<Ahead>,
    /// At start, a wall clock far past the newest stored time settles at this
    /// monotonic time.
    settles_at: Option<Duration>,
}

impl Confirmation {
    /// Starts from the first reading and the newest time the database holds.
    pub fn start(
        rule: JumpRule,
        wall: DateTime<Utc>,
        monotonic: Duration,
        newest_stored: Option<DateTime<Utc>>,
    ) -> Self {
        let far_past_the_store = newest_stored.is_some_and(|newest| wall > newest + rule.tolerance);
        Confirmation {
            rule,
            anchor: Reading { wall, monotonic },
            ahead: None,
            settles_at: far_past_the_store.then(|| monotonic + rule.hold),
        }
    }

    /// The wall clock read at `monotonic`: "now" as confirmed.
    pub fn read(&mut self, wall: DateTime<Utc>, monotonic: Duration) -> Confirmed {
        let since = monotonic.saturating_sub(self.anchor.monotonic);
        let carried_on =
            self.anchor.wall + chrono::Duration::from_std(since).unwrap_or(chrono::Duration::MAX);
        if self.settles_at.is_some_and(|at| monotonic >= at) {
            self.settles_at = None;
        }
        if wall <= carried_on + self.rule.tolerance {
            let change = self.ahead.take().map(|_| ClockChange::JumpWentAway);
            return self.trust(wall, monotonic, change);
        }
        let by = wall - carried_on;
        match self.ahead {
            Some(ahead) if (by - ahead.by).abs() <= self.rule.tolerance => {
                if monotonic.saturating_sub(ahead.since) >= self.rule.hold {
                    self.ahead = None;
                    return self.trust(wall, monotonic, Some(ClockChange::JumpConfirmed(by)));
                }
                self.waiting(carried_on, None)
            }
            _ => {
                self.ahead = Some(Ahead {
                    since: monotonic,
                    by,
                });
                self.waiting(carried_on, Some(ClockChange::JumpedAhead(by)))
            }
        }
    }

    fn trust(
        &mut self,
        wall: DateTime<Utc>,
        monotonic: Duration,
        change: Option<ClockChange>,
    ) -> Confirmed {
        self.anchor = Reading { wall, monotonic };
        Confirmed {
            now: wall,
            settled: self.settles_at.is_none(),
            change,
        }
    }

    fn waiting(&self, carried_on: DateTime<Utc>, change: Option<ClockChange>) -> Confirmed {
        Confirmed {
            now: carried_on,
            settled: false,
            change,
        }
    }
}

/// A [`Clock`] whose "now" is confirmed: the service's one clock, shared by every
/// actor, the use cases and the routes.
pub struct ConfirmedClock {
    wall: SharedClock,
    state: Mutex<Confirmation>,
}

impl ConfirmedClock {
    /// Over `wall`, starting now, with the newest time the database holds.
    pub fn new(wall: SharedClock, newest_stored: Option<DateTime<Utc>>) -> Self {
        Self::with_rule(wall, newest_stored, JumpRule::default())
    }

    pub fn with_rule(
        wall: SharedClock,
        newest_stored: Option<DateTime<Utc>>,
        rule: JumpRule,
    ) -> Self {
        let state = Confirmation::start(rule, wall.now(), wall.monotonic(), newest_stored);
        if state.settles_at.is_some() {
            tracing::info!(
                now = %state.anchor.wall,
                newest_stored = ?newest_stored,
                "the clock is far past the newest time stored; the trash is purged once it has held"
            );
        }
        ConfirmedClock {
            wall,
            state: Mutex::new(state),
        }
    }

    fn read(&self) -> Confirmed {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let confirmed = state.read(self.wall.now(), self.wall.monotonic());
        match confirmed.change {
            Some(ClockChange::JumpedAhead(by)) => tracing::warn!(
                ahead_s = by.num_seconds(),
                "the system clock jumped ahead; until it has held, inkling keeps time by its own clock and purges nothing"
            ),
            Some(ClockChange::JumpConfirmed(by)) => tracing::info!(
                ahead_s = by.num_seconds(),
                "the system clock's jump ahead held; it is the time now"
            ),
            Some(ClockChange::JumpWentAway) => {
                tracing::info!("the system clock is back in step; nothing acted on its jump")
            }
            None => {}
        }
        confirmed
    }

    /// "Now" as confirmed (what [`Clock::now`] gives, without the trait in scope).
    pub fn now(&self) -> DateTime<Utc> {
        self.read().now
    }

    /// "Now" for what deletes or expires: `None` while a jump ahead waits to be
    /// confirmed (or the start's reading has not held yet).
    pub fn settled_now(&self) -> Option<DateTime<Utc>> {
        let confirmed = self.read();
        confirmed.settled.then_some(confirmed.now)
    }
}

impl Clock for ConfirmedClock {
    fn now(&self) -> DateTime<Utc> {
        self.read().now
    }

    fn monotonic(&self) -> Duration {
        self.wall.monotonic()
    }
}

#[cfg(test)]
mod tests;
