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

    /// The handler impls in `text` (up to its tests) that do not start with
    /// `handling!`, by their first line.
    fn uncounted_handlers(text: &str) -> Vec<String> {
        let text = text.split("#[cfg(test)]").next().unwrap_or(text);
        let lines: Vec<&str> = text.lines().collect();
        let is_impl = |line: &str| line.trim_start().starts_with("impl");
        let mut missing = Vec::new();
        for (at, line) in lines.iter().enumerate() {
            if !(is_impl(line) && line.contains("Handler<")) {
                continue;
            }
            let end = (at + 1..lines.len())
                .find(|&next| is_impl(lines[next]))
                .unwrap_or(lines.len());
            if !lines[at..end].iter().any(|l| l.contains("handling!(")) {
                missing.push(line.trim().to_string());
            }
        }
        missing
    }

    #[test]
    fn every_handler_counts_what_it_handles() {
        // The actors, and the tray's in the desktop layer above the use cases.
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.join("actors"), src.join("desktop")];
        let mut missing = Vec::new();
        let mut handlers = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                handlers += text.matches("Handler<").count();
                for handler in uncounted_handlers(&text) {
                    missing.push(format!("{}: {handler}", path.display()));
                }
            }
        }
        assert!(handlers > 30, "the scan found the handlers ({handlers})");
        assert!(
            missing.is_empty(),
            "handlers without handling!: {missing:#?}"
        );
        assert_eq!(
            uncounted_handlers("impl Handler<A> for X {\n fn handle() {}\n}\nimpl Other for X {}"),
            ["impl Handler<A> for X {"],
            "the scan sees a handler that forgot"
        );
    }
}
