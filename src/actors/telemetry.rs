//! `TelemetryActor`: the one writer of the local usage log, and its `Emit` message.
//!
//! Appends one JSON line per event to `<data_dir>/telemetry/events-YYYY-MM-DD.jsonl`
//! (UTC date). Callers `do_send` and move on: telemetry never fails the caller. An
//! invalid event is refused (and logged); a write error is logged once, not per event,
//! until a write succeeds again. Each line is one `write` on an `O_APPEND` file, so a
//! crash leaves at worst one torn last line, which readers skip.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use actix::{Actor, Context, Handler, Message};

use super::log_handled;
use crate::clock::SharedClock;
use crate::domain::timestamp;
use crate::telemetry::events::{InvalidEvent, UsageEvent};

/// Appends an event to the log. Replies `Err` only for an invalid event.
#[derive(Debug, Message)]
#[rtype(result = "Result<(), InvalidEvent>")]
pub struct Emit(pub UsageEvent);

pub struct TelemetryActor {
    dir: PathBuf,
    enabled: bool,
    clock: SharedClock,
    /// The open log file and the date (`YYYY-MM-DD`) it is for.
    file: Option<(String, File)>,
    /// Set while writes fail, so the failure is logged once.
    failing: bool,
}

impl TelemetryActor {
    pub fn new(dir: PathBuf, enabled: bool, clock: SharedClock) -> Self {
        TelemetryActor {
            dir,
            enabled,
            clock,
            file: None,
            failing: false,
        }
    }

    fn append(&mut self, date: &str, line: &str) -> std::io::Result<()> {
        if self.file.as_ref().is_none_or(|(d, _)| d != date) {
            std::fs::create_dir_all(&self.dir)?;
            let path = self.dir.join(format!("events-{date}.jsonl"));
            let file = OpenOptions::new().create(true).append(true).open(path)?;
            self.file = Some((date.to_string(), file));
        }
        let Some((_, file)) = self.file.as_mut() else {
            return Ok(());
        };
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        file.write_all(&bytes)
    }
}

impl Actor for TelemetryActor {
    type Context = Context<Self>;
}

impl Handler<Emit> for TelemetryActor {
    type Result = Result<(), InvalidEvent>;

    fn handle(&mut self, Emit(event): Emit, _: &mut Context<Self>) -> Self::Result {
        let started = Instant::now();
        let now = self.clock.now();
        let line = match event.to_line(&timestamp(now)) {
            Ok(line) => line,
            Err(e) => {
                tracing::warn!(error = %e, "usage event refused");
                log_handled!("Emit", started, false);
                return Err(e);
            }
        };
        if self.enabled {
            let date = now.format("%Y-%m-%d").to_string();
            match self.append(&date, &line) {
                Ok(()) => {
                    if self.failing {
                        tracing::info!("usage log writable again");
                        self.failing = false;
                    }
                }
                Err(e) => {
                    // Drop the handle: the next event reopens (the dir may come back).
                    self.file = None;
                    if !self.failing {
                        tracing::error!(error = %e, dir = %self.dir.display(),
                            "cannot write the usage log; events are dropped until it works again");
                        self.failing = true;
                    }
                }
            }
        }
        tracing::debug!(kind = event.kind(), "usage event");
        log_handled!("Emit", started, true);
        Ok(())
    }
}
