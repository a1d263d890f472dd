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
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::{json, Value};

    use std::io::Write;
    use std::path::Path;

    use chrono::{DateTime, Utc};

    use super::*;
    use crate::clock::ManualClock;
    use crate::configuration::UserFile;
    use crate::telemetry::log;

    /// Appends an event given as `kind` and JSON `payload`, checked against the strict
    /// schema first: the schema's checks through the actor. The service's own events are
    /// typed and go by [`Emit`]; only these tests have JSON to send.
    #[derive(Debug, Message)]
    #[rtype(result = "Result<(), InvalidEvent>")]
    struct EmitJson {
        kind: String,
        payload: Value,
    }

    impl Handler<EmitJson> for TelemetryActor {
        type Result = ResponseFuture<Result<(), InvalidEvent>>;

        fn handle(&mut self, msg: EmitJson, _: &mut Context<Self>) -> Self::Result {
            let mut handled = handling!("EmitJson", actor = "telemetry");
            let event = UsageEvent::parse(&msg.kind, msg.payload)
                .inspect_err(|e| tracing::warn!(error = %e, "usage event refused"));
            self.write_reply(event, &mut handled)
        }
    }

    fn settings(dir: &Path, extra: &[(&str, &str)]) -> Settings {
        let mut env: std::collections::HashMap<String, String> = extra
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        env.insert("INKLING_LOCALE".into(), "en".into());
        let mut s = Settings::load_with_env(&UserFile::None, env).unwrap();
        s.set_data_dir(dir);
        s
    }

    fn clock() -> ManualClock {
        ManualClock::new(
            DateTime::parse_from_rfc3339("2026-03-01T12:00:00Z")
                .unwrap()
                .with_timezone(&Utc),
        )
    }

    fn log_text(dir: &Path) -> String {
        log::list_files(&dir.join("telemetry"))
            .unwrap()
            .iter()
            .map(|f| std::fs::read_to_string(&f.path).unwrap())
            .collect()
    }

    #[actix_rt::test]
    async fn each_kind_is_written_when_valid_and_refused_without_a_trace_when_not() {
        let dir = tempfile::tempdir().unwrap();
        let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();
        let kinds: [(&str, Value, Value, Value); 10] = [
            (
                "note_captured",
                json!({}),
                json!({ "x": 1 }),
                json!({ "x": 1 }),
            ),
            (
                "ai_done",
                json!({ "latencyMs": 5 }),
                json!({ "latencyMs": 5, "x": 1 }),
                json!({ "latencyMs": -5 }),
            ),
            (
                "ai_failed",
                json!({ "reason": "schema", "attempts": 3 }),
                json!({ "reason": "schema", "attempts": 3, "x": 1 }),
                json!({ "reason": "schema", "attempts": 0 }),
            ),
            (
                "ai_retry_manual",
                json!({ "failedCount": 1 }),
                json!({ "failedCount": 1, "x": 1 }),
                json!({ "failedCount": 0 }),
            ),
            (
                "ai_enrich_requested",
                json!({ "from": "failed" }),
                json!({ "from": "failed", "x": 1 }),
                json!({ "from": "trash" }),
            ),
            (
                "ollama_recheck_manual",
                json!({}),
                json!({ "x": 1 }),
                json!({ "x": 1 }),
            ),
            (
                "ollama_recovered",
                json!({ "downMs": 10 }),
                json!({ "downMs": 10, "x": 1 }),
                json!({ "downMs": -1 }),
            ),
            (
                "note_trashed",
                json!({}),
                json!({ "x": 1 }),
                json!({ "x": 1 }),
            ),
            (
                "note_restored",
                json!({}),
                json!({ "x": 1 }),
                json!({ "x": 1 }),
            ),
            (
                "usage_log_exported",
                json!({}),
                json!({ "x": 1 }),
                json!({ "x": 1 }),
            ),
        ];
        for (kind, valid, extra_field, out_of_range) in kinds {
            let before = log_text(dir.path());
            for bad in [extra_field, out_of_range, json!("not an object")] {
                let refused = actor
                    .send(EmitJson {
                        kind: kind.into(),
                        payload: bad.clone(),
                    })
                    .await
                    .unwrap();
                assert!(refused.is_err(), "{kind} accepted {bad}");
            }
            assert_eq!(
                log_text(dir.path()),
                before,
                "{kind}: a refused event wrote something"
            );
            actor
                .send(EmitJson {
                    kind: kind.into(),
                    payload: valid.clone(),
                })
                .await
                .unwrap()
                .unwrap();
            let last: Value =
                serde_json::from_str(log_text(dir.path()).lines().last().unwrap()).unwrap();
            assert_eq!(
                last,
                json!({ "ts": "2026-03-01T12:00:00.000Z", "kind": kind, "payload": valid })
            );
        }
    }

    #[actix_rt::test]
    async fn with_telemetry_disabled_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let s = settings(dir.path(), &[("INKLING_TELEMETRY__ENABLED", "false")]);
        let actor = TelemetryActor::new(&s, Arc::new(clock())).start();
        actor
            .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
            .await
            .unwrap()
            .unwrap();
        assert!(!dir.path().join("telemetry").exists());
    }

    #[actix_rt::test]
    async fn files_rotate_by_day_and_size_and_old_days_are_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let s = settings(
            dir.path(),
            &[
                ("INKLING_TELEMETRY__MAX_FILE_BYTES", "1024"),
                ("INKLING_TELEMETRY__RETENTION_DAYS", "7"),
            ],
        );
        let clock = clock();
        let actor = TelemetryActor::new(&s, Arc::new(clock.clone())).start();
        // 20 lines of 70 bytes: 14 fit in a 1 KiB file, the rest go to part 1.
        for _ in 0..20 {
            actor
                .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
                .await
                .unwrap()
                .unwrap();
        }
        let names = |d: &Path| -> Vec<String> {
            log::list_files(&d.join("telemetry"))
                .unwrap()
                .iter()
                .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(
            names(dir.path()),
            ["events-2026-03-01.jsonl", "events-2026-03-01.1.jsonl"]
        );
        for file in log::list_files(&dir.path().join("telemetry")).unwrap() {
            assert!(std::fs::metadata(&file.path).unwrap().len() <= 1024);
        }
        assert_eq!(
            log::read_events(&dir.path().join("telemetry"))
                .unwrap()
                .events
                .len(),
            20
        );

        clock.advance(chrono::Duration::days(8));
        actor
            .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            names(dir.path()),
            ["events-2026-03-09.jsonl"],
            "older than 7 days deleted"
        );
    }

    /// Counts the log lines a subscriber sees (the actor runs on this test's thread).
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[actix_rt::test]
    async fn a_log_that_cannot_be_written_is_reported_once_not_per_event() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::WARN)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let dir = tempfile::tempdir().unwrap();
        // A file where the directory should be: every write fails.
        std::fs::write(dir.path().join("telemetry"), b"in the way").unwrap();
        let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();

        for _ in 0..5 {
            let reply = actor
                .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
                .await
                .unwrap();
            assert!(reply.is_ok(), "a write failure is not the caller's failure");
        }

        let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text.matches("cannot write the usage log").count(),
            1,
            "{text}"
        );
    }

    #[actix_rt::test]
    async fn stats_and_export_read_the_log_and_the_export_is_logged() {
        let dir = tempfile::tempdir().unwrap();
        let actor = TelemetryActor::new(&settings(dir.path(), &[]), Arc::new(clock())).start();
        actor
            .send(Emit(UsageEvent::NoteCaptured(NoFields {})))
            .await
            .unwrap()
            .unwrap();

        let report = actor.send(GetStats).await.unwrap().unwrap();
        assert!(report.contains("| 2026-03-01 | 1 |"), "{report}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("stats.md")).unwrap(),
            report
        );

        let out = actor
            .send(ExportUsageLog { parent: None })
            .await
            .unwrap()
            .unwrap();
        assert!(out.starts_with(dir.path().join("exports")));
        assert!(out.join("events-2026-03-01.jsonl").exists());
        assert!(std::fs::read_to_string(out.join("stats.md"))
            .unwrap()
            .contains("| 2026-03-01 | 1 |"));
        let second = actor
            .send(ExportUsageLog { parent: None })
            .await
            .unwrap()
            .unwrap();
        assert_ne!(
            out, second,
            "a second export in the same second gets its own folder"
        );
        assert!(log_text(dir.path()).contains("usage_log_exported"));
    }
}
