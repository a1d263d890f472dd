//! Per-actor counters for `/api/status` (docs/DESIGN.md, "Logs and actor counters"): messages received, handled and
//! waiting, time spent in handlers, the slowest handler, per actor.
//!
//! "Received" is counted by the sending side ([`super::mailbox`]), "handled" by the
//! [`Handling`] guard that `handling!` makes at the top of every handler; waiting is
//! the difference. Process-wide
//! (one service per process).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One actor's counters: a wire type (`crate::api::status`), kept here.
use crate::api::status::ActorCounters;

static COUNTERS: Mutex<BTreeMap<&'static str, ActorCounters>> = Mutex::new(BTreeMap::new());

/// Counts one handled message of `actor` (its module name, e.g. `repository`).
pub fn record(actor: &'static str, took: Duration) {
    let micros = took.as_micros().min(u128::from(u64::MAX)) as u64;
    let mut counters = COUNTERS.lock().unwrap_or_else(|p| p.into_inner());
    let entry = counters.entry(actor).or_default();
    entry.handled += 1;
    entry.busy_us += micros;
    entry.slowest_us = entry.slowest_us.max(micros);
}

/// Counts one handled message when it goes out of scope, and logs it: what
/// `handling!` makes at the top of every handler.
pub struct Handling<F: FnOnce(Duration, bool)> {
    actor: &'static str,
    started: Instant,
    ok: bool,
    log: Option<F>,
}

impl<F: FnOnce(Duration, bool)> Handling<F> {
    pub fn new(actor: &'static str, log: F) -> Self {
        Handling {
            actor,
            started: Instant::now(),
            ok: true,
            log: Some(log),
        }
    }

    /// Whether the message was carried out (the log line's `ok`); `true` unless said.
    pub fn succeeded(&mut self, ok: bool) {
        self.ok = ok;
    }
}

impl<F: FnOnce(Duration, bool)> Drop for Handling<F> {
    fn drop(&mut self) {
        let took = self.started.elapsed();
        record(self.actor, took);
        if let Some(log) = self.log.take() {
            log(took, self.ok);
        }
    }
}

/// Counts one message sent to `actor`.
pub fn record_received(actor: &'static str) {
    let mut counters = COUNTERS.lock().unwrap_or_else(|p| p.into_inner());
    counters.entry(actor).or_default().received += 1;
}

/// A copy of every actor's counters, by actor.
pub fn snapshot() -> BTreeMap<&'static str, ActorCounters> {
    let mut counters = COUNTERS.lock().unwrap_or_else(|p| p.into_inner()).clone();
    for counter in counters.values_mut() {
        counter.waiting = counter.received.saturating_sub(counter.handled);
    }
    counters
}

/// `inkling::actors::repository` → `repository`.
pub fn actor_name(module_path: &'static str) -> &'static str {
    module_path.rsplit("::").next().unwrap_or(module_path)
}

#[cfg(test)]
mod tests;
