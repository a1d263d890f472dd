//! Per-actor counters for `/api/status` (SPEC §12): messages handled, time spent in
//! handlers, the slowest handler, per actor.
//!
//! Fed by `log_handled!`, so every handler that logs its message counts it. Process-wide
//! (one service per process). actix 0.13 exposes no mailbox depth, so "waiting" is not
//! here (research/actix.md §5).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

/// One actor's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ActorCounters {
    pub handled: u64,
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

/// A copy of every actor's counters, by actor.
pub fn snapshot() -> BTreeMap<&'static str, ActorCounters> {
    COUNTERS.lock().unwrap_or_else(|p| p.into_inner()).clone()
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
        record("counter_test_actor", Duration::from_micros(10));
        record("counter_test_actor", Duration::from_micros(30));
        let counters = snapshot()["counter_test_actor"];
        assert_eq!(
            counters,
            ActorCounters {
                handled: 2,
                busy_us: 40,
                slowest_us: 30
            }
        );
        assert_eq!(actor_name("inkling::actors::repository"), "repository");
    }
}
