//! `TelemetryActor`: the usage log's front door, and its messages.
//!
//! Callers `do_send` an event and move on: telemetry never fails the caller. Here each
//! event is checked against its strict schema (docs/DESIGN.md, "Usage telemetry"; an
//! invalid one is refused and nothing is written) and stamped with the clock, on the
//! System arbiter, so the tests' virtual clock dates it. The finished line goes to the
//! [`UsageLogActor`], which owns the files on a thread of its own: no file I/O happens
//! on this arbiter. A write error is logged once, not per event, until a write
//! succeeds again. Reports and exports are asked of the same actor, after every event
//! sent before them.

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use actix::prelude::*;

use super::handling;
use super::mailbox::Mailbox;
use super::mailbox_stats::Handling;
use super::usage_log::{Append, Appended, Export, Flush, ReadStats, UsageLogActor, WriteReport};
use crate::ai::FailureReason;
use crate::clock::SharedClock;
use crate::configuration::{Locale, Settings};
use crate::domain::timestamp;
use crate::events::JobFailed;
use crate::telemetry::events::{AiFailed, FailedReason, InvalidEvent, NoFields, UsageEvent};
use crate::telemetry::stats;

/// Appends an event. Replies `Err` only for an invalid event (nothing is written), and
/// replies once the line is written (or its write has failed).
#[derive(Debug, Message)]
#[rtype(result = "Result<(), InvalidEvent>")]
pub struct Emit(pub UsageEvent);

/// Replies once every event sent before it is written: the graceful stop waits for it,
/// and so do the tests' barriers.
#[derive(Debug, Message)]
#[rtype(result = "()")]
pub struct FlushUsageLog;

/// Builds `stats.md` from the log, writes it to `<data_dir>/stats.md`, replies with it.
#[derive(Debug, Message)]
#[rtype(result = "Result<String, String>")]
pub struct GetStats;

/// The aggregated log as data (the inbox page's stats view and chart).
#[derive(Debug, Message)]
#[rtype(result = "Result<stats::UsageStats, String>")]
pub struct GetUsageStats;

/// Copies the log and a fresh `stats.md` into a new folder under `<data_dir>/exports/`
/// (or under `parent`); replies with the folder's path.
#[derive(Debug, Message)]
#[rtype(result = "Result<PathBuf, String>")]
pub struct ExportUsageLog {
    pub parent: Option<PathBuf>,
}

pub struct TelemetryActor {
    log: Mailbox<UsageLogActor>,
    data_dir: PathBuf,
    enabled: bool,
    locale: Locale,
    clock: SharedClock,
}

impl TelemetryActor {
    /// The actor, with its [`UsageLogActor`] started on a thread of its own. Must run
    /// inside an actix `System`.
    pub fn new(settings: &Settings, clock: SharedClock) -> Self {
        TelemetryActor {
            log: Mailbox::from(UsageLogActor::start(settings)),
            data_dir: settings.data_dir(),
            enabled: settings.telemetry.enabled,
            locale: settings.locale(),
            clock,
        }
    }

    /// Checks and stamps `event`, and sends its line to be written. `None`: telemetry
    /// is off, nothing to wait for.
    fn write(
        &mut self,
        event: &UsageEvent,
    ) -> Result<Option<impl Future<Output = ()> + 'static>, InvalidEvent> {
        let now = self.clock.now();
        let line = event.to_line(&timestamp(now)).inspect_err(|e| {
            tracing::warn!(error = %e, "usage event refused");
        })?;
        if !self.enabled {
            return Ok(None);
        }
        tracing::debug!(kind = event.kind(), "usage event");
        let appended = self.log.send(Append {
            date: now.date_naive(),
            line,
        });
        Ok(Some(async move {
            match appended.await {
                Ok(Appended::Written) => {}
                Ok(Appended::WrittenAgain) => tracing::info!("the usage log is writable again"),
                Ok(Appended::Failed { error, first: true }) => tracing::error!(%error,
                    "cannot write the usage log; events are dropped until it works again"),
                Ok(Appended::Failed { first: false, .. }) => {}
                Err(e) => tracing::warn!(error = %e, "the usage log writer is gone"),
            }
        }))
    }

    /// [`Self::write`] as a handler's reply: `Ok` once the line is written (or lost);
    /// `handled` learns whether the event was refused.
    fn write_reply<F: FnOnce(Duration, bool)>(
        &mut self,
        event: Result<UsageEvent, InvalidEvent>,
        handled: &mut Handling<F>,
    ) -> ResponseFuture<Result<(), InvalidEvent>> {
        match event.and_then(|event| self.write(&event)) {
            Err(invalid) => {
                handled.succeeded(false);
                Box::pin(async move { Err(invalid) })
            }
            Ok(None) => Box::pin(async { Ok(()) }),
            Ok(Some(written)) => Box::pin(async move {
                written.await;
                Ok(())
            }),
        }
    }
}

fn gone(e: MailboxError) -> String {
    format!("the usage log writer is gone ({e})")
}

impl Actor for TelemetryActor {
    type Context = Context<Self>;
}

impl Handler<Emit> for TelemetryActor {
    type Result = ResponseFuture<Result<(), InvalidEvent>>;

    fn handle(&mut self, Emit(event): Emit, _: &mut Context<Self>) -> Self::Result {
        let mut handled = handling!("Emit");
        self.write_reply(Ok(event), &mut handled)
    }
}

/// A job failed for good (announced by the worker through the hub): `ai_failed`.
impl Handler<JobFailed> for TelemetryActor {
    type Result = ();

    fn handle(&mut self, msg: JobFailed, ctx: &mut Context<Self>) {
        let _handled = handling!("JobFailed");
        let reason = if msg.reason == FailureReason::Schema {
            FailedReason::Schema
        } else {
            FailedReason::Other
        };
        let event = UsageEvent::AiFailed(AiFailed {
            reason,
            attempts: msg.attempts,
        });
        if let Ok(Some(written)) = self.write(&event) {
            ctx.spawn(written.into_actor(self));
        }
    }
}

impl Handler<FlushUsageLog> for TelemetryActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: FlushUsageLog, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("FlushUsageLog");
        let flushed = self.log.send(Flush);
        Box::pin(async move {
            if let Err(e) = flushed.await {
                tracing::warn!(error = %e, "the usage log writer is gone");
            }
        })
    }
}

impl Handler<GetStats> for TelemetryActor {
    type Result = ResponseFuture<Result<String, String>>;

    fn handle(&mut self, _: GetStats, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetStats");
        let report = self.log.send(WriteReport {
            locale: self.locale,
            now: self.clock.now(),
            path: self.data_dir.join("stats.md"),
        });
        Box::pin(async move { report.await.map_err(gone)? })
    }
}

impl Handler<GetUsageStats> for TelemetryActor {
    type Result = ResponseFuture<Result<stats::UsageStats, String>>;

    fn handle(&mut self, _: GetUsageStats, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("GetUsageStats");
        let stats = self.log.send(ReadStats);
        Box::pin(async move { stats.await.map_err(gone)? })
    }
}

impl Handler<ExportUsageLog> for TelemetryActor {
    type Result = ResponseActFuture<Self, Result<PathBuf, String>>;

    fn handle(&mut self, msg: ExportUsageLog, _: &mut Context<Self>) -> Self::Result {
        let _handled = handling!("ExportUsageLog");
        let export = self.log.send(Export {
            parent: msg.parent.unwrap_or_else(|| self.data_dir.join("exports")),
            locale: self.locale,
            now: self.clock.now(),
        });
        Box::pin(export.into_actor(self).map(|exported, act, ctx| {
            let exported = exported.map_err(gone)?;
            if let Ok(path) = &exported {
                tracing::info!(path = %path.display(), "usage log exported");
                if let Ok(Some(written)) = act.write(&UsageEvent::UsageLogExported(NoFields {})) {
                    ctx.spawn(written.into_actor(act));
                }
            }
            exported
        }))
    }
}

#[cfg(test)]
mod tests;
