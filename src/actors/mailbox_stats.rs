//! Per-actor counters for `/api/status` (docs/DESIGN.md, "Logs and actor counters"): messages received, handled and
//! waiting, time spent in handlers, the slowest handler, per actor.
//!
//! "Received" is counted by the sending side ([`super::mailbox`]), "handled" by
//! `log_handled!`, which every handler calls; waiting is the difference. Process-wide
//! (one service per process).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One actor's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActorCounters {
    pub received: u64,
    pub handled: u64,
    /// Received and not yet handled, the message in hand included.
    pub waiting: u64,
    pub busy_us: u64,
    pub slowest_us: u64,
}

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
mod tests {
    use super::*;

    #[test]
    fn handled_messages_are_counted_per_actor() {
        for _ in 0..3 {
            record_received("counter_test_actor");
        }
        record("counter_test_actor", Duration::from_micros(10));
        record("counter_test_actor", Duration::from_micros(30));
        let counters = snapshot()["counter_test_actor"];
        assert_eq!(
            counters,
            ActorCounters {
                received: 3,
                handled: 2,
                waiting: 1,
                busy_us: 40,
                slowest_us: 30
            }
        );
        assert_eq!(actor_name("inkling::actors::repository"), "repository");
    }
}
